//! Command-line overrides: the last layer, checked by the same rules as a file.

use std::path::PathBuf;

use super::choice::BackendChoice;
use super::decode::prompt_conflict;
use super::error::{ConfigError, ConfigErrorKind, ConfigErrors};
use super::node::range_requirement;
use super::origin::{Origin, Spanned};
use super::raw::{RawCli, RawConfig, RawEventLoop};
use super::read::{MAX_SECONDS, MIN_LIMIT};
use crate::topic::validate_topic;

/// The command-line flags each override comes from (used in messages, so they must
/// match the CLI's spelling).
pub mod flag {
    pub const BACKEND: &str = "--backend";
    pub const MAX_ITERATIONS: &str = "--max-iterations";
    pub const MAX_COST: &str = "--max-cost";
    pub const MAX_RUNTIME: &str = "--max-runtime";
    pub const COMPLETION_PROMISE: &str = "--completion-promise";
    pub const PROMPT: &str = "--prompt";
    pub const PROMPT_FILE: &str = "--prompt-file";
}

/// Settings given on the command line; each wins over every config file.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Overrides {
    /// `-b/--backend`. A backend different from the config's also drops the config's
    /// `cli.command`, `cli.args` and custom settings (see [`super::merge`]).
    pub backend: Option<BackendChoice>,
    /// `--max-iterations`.
    pub max_iterations: Option<u32>,
    /// `--max-cost`, in US dollars.
    pub max_cost_usd: Option<f64>,
    /// `--max-runtime`, in seconds.
    pub max_runtime_seconds: Option<u64>,
    /// `--completion-promise`.
    pub completion_promise: Option<String>,
    /// `-p/--prompt`: the task as text.
    pub prompt: Option<String>,
    /// `-P/--prompt-file`: relative to the working directory.
    pub prompt_file: Option<PathBuf>,
}

impl Overrides {
    /// The overrides as a layer, or every value that is out of range.
    pub fn into_layer(self) -> Result<RawConfig, ConfigErrors> {
        let mut errors = Vec::new();
        let at = |flag: &'static str| Origin::CommandLine(flag);
        let mut in_range = |flag: &'static str, n: u64, max: u64| {
            if !(MIN_LIMIT..=max).contains(&n) {
                errors.push(ConfigError::new(
                    at(flag),
                    ConfigErrorKind::OutOfRange {
                        key: flag.to_owned(),
                        requirement: range_requirement(MIN_LIMIT, max),
                        found: n.to_string(),
                    },
                ));
            }
        };
        if let Some(n) = self.max_iterations {
            in_range(flag::MAX_ITERATIONS, n.into(), u32::MAX.into());
        }
        if let Some(n) = self.max_runtime_seconds {
            in_range(flag::MAX_RUNTIME, n, MAX_SECONDS);
        }
        if let Some(cost) = self.max_cost_usd.filter(|c| !(c.is_finite() && *c > 0.0)) {
            errors.push(ConfigError::new(
                at(flag::MAX_COST),
                ConfigErrorKind::OutOfRange {
                    key: flag::MAX_COST.to_owned(),
                    requirement: "a number greater than 0".to_owned(),
                    found: cost.to_string(),
                },
            ));
        }
        if let Some(promise) = &self.completion_promise {
            let kind = if promise.trim().is_empty() {
                Some(ConfigErrorKind::Empty {
                    key: flag::COMPLETION_PROMISE.to_owned(),
                    why: "the agent could never signal that the task is done; leave the flag \
                          out to use the configured promise",
                })
            } else {
                validate_topic(promise)
                    .err()
                    .map(|reason| ConfigErrorKind::InvalidTopic {
                        key: flag::COMPLETION_PROMISE.to_owned(),
                        topic: promise.clone(),
                        reason,
                    })
            };
            errors.extend(kind.map(|k| ConfigError::new(at(flag::COMPLETION_PROMISE), k)));
        }
        if self.prompt.as_ref().is_some_and(|p| p.trim().is_empty()) {
            errors.push(ConfigError::new(
                at(flag::PROMPT),
                ConfigErrorKind::Empty {
                    key: flag::PROMPT.to_owned(),
                    why: "write the task, or leave the flag out",
                },
            ));
        }
        let prompt = self.prompt.map(|p| Spanned::new(p, at(flag::PROMPT)));
        let prompt_file = self
            .prompt_file
            .map(|p| Spanned::new(p, at(flag::PROMPT_FILE)));
        if let (Some(p), Some(f)) = (&prompt, &prompt_file) {
            errors.push(prompt_conflict(p, f));
        }
        if !errors.is_empty() {
            return Err(ConfigErrors(errors));
        }
        Ok(RawConfig {
            cli: RawCli {
                backend: self.backend.map(|b| Spanned::new(b, at(flag::BACKEND))),
                ..RawCli::default()
            },
            event_loop: RawEventLoop {
                prompt,
                prompt_file,
                completion_promise: self
                    .completion_promise
                    .map(|p| Spanned::new(p, at(flag::COMPLETION_PROMISE))),
                max_iterations: self
                    .max_iterations
                    .map(|n| Spanned::new(n, at(flag::MAX_ITERATIONS))),
                max_runtime_seconds: self
                    .max_runtime_seconds
                    .map(|n| Spanned::new(n, at(flag::MAX_RUNTIME))),
                max_cost_usd: self
                    .max_cost_usd
                    .map(|c| Spanned::new(c, at(flag::MAX_COST))),
                ..RawEventLoop::default()
            },
            ..RawConfig::default()
        })
    }
}
