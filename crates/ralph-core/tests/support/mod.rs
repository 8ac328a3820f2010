//! Helpers shared by the config integration tests.
#![allow(dead_code, unreachable_pub)]

pub mod dirs;

use std::path::{Path, PathBuf};

use ralph_core::config::{ParsedLayer, ResolveEnv, Resolved, parse_layer, resolve};

/// The name every in-memory config is given in messages.
pub const FILE: &str = "ralph.yml";

/// Parses `yaml` as `ralph.yml`, expecting errors; returns each rendered error.
pub fn parse_errors(yaml: &str) -> Vec<String> {
    match parse_layer(yaml, Path::new(FILE)) {
        Ok(parsed) => panic!("expected errors, parsed: {parsed:?}"),
        Err(errors) => errors.0.iter().map(ToString::to_string).collect(),
    }
}

/// Parses `yaml` as `ralph.yml`, expecting success.
pub fn parse_ok(yaml: &str) -> ParsedLayer {
    match parse_layer(yaml, Path::new(FILE)) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("expected success, got:\n{errors}"),
    }
}

/// An environment whose working directory is `cwd` and which has no default prompt.
pub fn env_in(cwd: &Path) -> ResolveEnv {
    ResolveEnv {
        cwd: cwd.to_path_buf(),
        default_prompt_file: PathBuf::from("PROMPT.md"),
        sources: vec![PathBuf::from(FILE)],
    }
}

/// Parses and resolves `yaml` in an empty directory, expecting success.
pub fn resolve_ok(yaml: &str) -> Resolved {
    let dir = tempfile::tempdir().expect("tempdir");
    match resolve(parse_ok(yaml).config, &env_in(dir.path())) {
        Ok(resolved) => resolved,
        Err(errors) => panic!("expected success, got:\n{errors}"),
    }
}

/// Parses `yaml` (which must parse) and resolves it in an empty directory,
/// expecting errors; returns each rendered error.
pub fn resolve_errors(yaml: &str) -> Vec<String> {
    let dir = tempfile::tempdir().expect("tempdir");
    match resolve(parse_ok(yaml).config, &env_in(dir.path())) {
        Ok(resolved) => panic!("expected errors, resolved: {resolved:?}"),
        Err(errors) => errors.0.iter().map(ToString::to_string).collect(),
    }
}

/// Renders warnings one per string.
pub fn rendered<T: ToString>(items: &[T]) -> Vec<String> {
    items.iter().map(ToString::to_string).collect()
}
