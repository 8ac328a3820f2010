//! The config-described backend (`cli.backend: custom`).

use ralph_stream::StreamFormat;
use ralph_types::PromptMode;

/// Settings of a custom backend, as read from the config.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CustomSettings {
    /// The program (`cli.command`): a name on `PATH` or a path. Required.
    pub command: Option<String>,
    /// Arguments placed before extra arguments and the prompt (`cli.args`).
    pub args: Vec<String>,
    pub prompt_mode: PromptMode,
    /// With `prompt_mode: arg`, the flag that precedes the prompt (e.g. `--message`).
    pub prompt_flag: Option<String>,
    /// What the command writes on stdout; plain text when unset.
    pub output_format: Option<StreamFormat>,
}
