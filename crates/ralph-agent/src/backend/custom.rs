//! The config-described backend (`cli.backend: custom`).

use ralph_stream::StreamFormat;

/// How a custom command receives its prompt (`cli.prompt_mode`).
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum PromptMode {
    /// As the last argument, or after `prompt_flag` when one is set.
    #[default]
    Arg,
    /// On stdin, which is then closed.
    Stdin,
}

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
