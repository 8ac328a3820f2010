//! `mutate: {enabled: true}`: a hook answers on stdout with JSON whose `metadata` object
//! is merged into the run's metadata, which later payloads carry and later prompts show.
//!
//! The answer is `{"metadata": {"key": value, ...}}`. Empty stdout changes nothing. Anything
//! else (not JSON, not an object, a `metadata` that is not an object, an answer cut at
//! `max_output_bytes`, or metadata grown past [`MAX_METADATA_BYTES`]) makes the hook fail,
//! and its `on_error` applies: a half-read answer must not half-apply.

use std::fmt::Write as _;

use serde_json::{Map, Value};

/// The most the run's accumulated metadata may take as JSON: it goes into every later
/// prompt and payload.
pub const MAX_METADATA_BYTES: usize = 64 * 1024;

/// The run's accumulated metadata.
pub type Metadata = Map<String, Value>;

/// Why a hook's answer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum MutateError {
    #[error("its answer is longer than `max_output_bytes` ({limit} bytes)")]
    Truncated { limit: u64 },
    #[error("its answer is not JSON: {0}")]
    NotJson(String),
    #[error("its answer is not a JSON object with a `metadata` object")]
    NotMetadata,
    #[error("the run's hook metadata would exceed {MAX_METADATA_BYTES} bytes")]
    TooLarge,
}

/// Merges the answer in `stdout` into `metadata` (all or nothing).
pub fn apply_answer(
    metadata: &mut Metadata,
    stdout: &[u8],
    truncated: bool,
    limit: u64,
) -> Result<(), MutateError> {
    if truncated {
        return Err(MutateError::Truncated { limit });
    }
    if stdout.iter().all(u8::is_ascii_whitespace) {
        return Ok(());
    }
    let value: Value =
        serde_json::from_slice(stdout).map_err(|e| MutateError::NotJson(e.to_string()))?;
    let Value::Object(mut answer) = value else {
        return Err(MutateError::NotMetadata);
    };
    let Some(Value::Object(added)) = answer.remove("metadata") else {
        return Err(MutateError::NotMetadata);
    };
    let mut merged = metadata.clone();
    merged.extend(added);
    if serde_json::to_vec(&merged).map_or(usize::MAX, |v| v.len()) > MAX_METADATA_BYTES {
        return Err(MutateError::TooLarge);
    }
    *metadata = merged;
    Ok(())
}

/// The prompt section that shows the metadata (empty when there is none): one line a
/// key, the value as compact JSON.
pub fn prompt_section(metadata: &Metadata) -> String {
    if metadata.is_empty() {
        return String::new();
    }
    let mut out = String::from(
        "\n## Notes from hooks\n\nThe project's hooks added this metadata to the run:\n\n",
    );
    for (key, value) in metadata {
        let shown = match value {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        };
        let _ = writeln!(out, "- {key}: {shown}");
    }
    out
}

#[cfg(test)]
#[path = "mutate_tests.rs"]
mod tests;
