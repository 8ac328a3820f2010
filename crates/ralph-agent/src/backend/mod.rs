//! Agent backends: how each agent CLI is started headless and interactively.

mod command;
mod custom;
mod delivery;
mod profile;

pub use command::{BuildError, CommandBuilder, CommandLine, InteractiveCommand};
pub use custom::{CustomSettings, PromptMode};
pub use delivery::{MAX_SINGLE_ARG_BYTES, PromptDelivery};
pub use profile::BackendProfile;
