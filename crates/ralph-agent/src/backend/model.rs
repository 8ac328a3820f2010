//! Which model an agent's arguments ask for.
//!
//! Pricing needs it: Codex never names its model in its stream, so ralph prices its
//! tokens as the model the agent's arguments ask for (`--model`/`-m`, and Codex's
//! `-c model=…`). Taking it from the arguments, rather than from a key of its own, means
//! ralph prices exactly what it told the agent to use; a model chosen in the agent's own
//! config file (`~/.codex/config.toml`) is unknown to ralph, and its cost stays unknown.

use crate::BackendKind;
use crate::backend::BackendProfile;

/// How a backend's command line names a model: its long option, and its short one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ModelOption {
    pub long: &'static str,
    pub short: Option<&'static str>,
}

impl ModelOption {
    fn names(self, arg: &str) -> bool {
        arg == self.long || self.short == Some(arg)
    }
}

/// The model that `args` (a backend's extra arguments) ask `kind` to use: the last of
/// `--model NAME`, `--model=NAME`, `-m NAME`, `-m=NAME` (where `-m` is the backend's
/// short option) and, for a backend with config options (Codex), `-c model=NAME` (TOML
/// quotes removed). Arguments after a `--` are not options.
pub fn requested_model(kind: BackendKind, args: &[String]) -> Option<&str> {
    let profile = BackendProfile::of(kind);
    let option = profile.model_option?;
    let mut model = None;
    let mut args = args.iter().map(String::as_str);
    while let Some(arg) = args.next() {
        if arg == "--" {
            break;
        }
        if option.names(arg) {
            model = args.next().or(model);
        } else if let Some((name, value)) = arg.split_once('=')
            && option.names(name)
        {
            model = Some(value);
        } else if profile.config_options.contains(&arg) {
            let value = args.next().unwrap_or_default();
            if let Some(name) = config_model(value) {
                model = Some(name);
            }
        }
    }
    model.map(str::trim).filter(|m| !m.is_empty())
}

/// `NAME` from a config setting `model=NAME` or `model="NAME"`.
fn config_model(setting: &str) -> Option<&str> {
    let (key, value) = setting.split_once('=')?;
    if key.trim() != "model" {
        return None;
    }
    let value = value.trim();
    let unquoted = ['"', '\'']
        .iter()
        .find_map(|q| value.strip_prefix(*q)?.strip_suffix(*q));
    Some(unquoted.unwrap_or(value))
}

#[cfg(test)]
#[path = "model_tests.rs"]
mod tests;
