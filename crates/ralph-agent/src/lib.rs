//! Agent backends and process supervision.
//!
//! How it works: [`backend`] turns a [`BackendKind`], its config and a prompt into an
//! exact command line (program, arguments, stdin bytes, output format); [`detect`] finds
//! which agent CLIs are installed by probing their version commands; [`supervise`] runs
//! one command line as a child in its own process group, hands its stdout bytes to a sink
//! (the stream parser) as they arrive, enforces the startup, inactivity, wall-clock and
//! exit-grace deadlines and the caller's stop requests, and always ends with the agent's
//! whole process tree stopped and reaped, reporting a typed [`Outcome`]; [`session`]
//! puts the two together: one agent run whose output is parsed into events as it arrives.

mod backend_kind;

pub mod backend;
pub mod detect;
pub mod session;
pub mod supervise;

pub use backend::{
    BackendProfile, BuildError, CommandBuilder, CommandLine, CustomSettings, InteractiveCommand,
    PromptDelivery, PromptMode,
};
pub use backend_kind::BackendKind;
pub use backend_kind::UnknownBackend;
pub use detect::{Availability, DetectError, Detector, resolve_binary};
pub use session::{AgentRun, Control, run_agent, run_agent_with};
pub use supervise::{
    Deadlines, Flow, Outcome, OutputSink, SpawnSpec, StdinSource, StopController, StopLevel,
    StopRequests, Termination, run,
};
