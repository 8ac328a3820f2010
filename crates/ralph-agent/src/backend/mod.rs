//! Agent backends: how each agent CLI is started headless and interactively, and what
//! its arguments mean (which model they ask for).

mod command;
mod custom;
mod delivery;
mod live;
mod model;
mod profile;

pub use command::{BuildError, CommandBuilder, CommandLine, InteractiveCommand};
pub use custom::CustomSettings;
pub use delivery::{MAX_SINGLE_ARG_BYTES, PromptDelivery};
pub use live::{LiveInput, SteerProtocol, SteerRefused, Steering};
pub use model::{ModelOption, requested_model};
pub use profile::BackendProfile;
pub use ralph_types::PromptMode;
