//! Agent backends and process supervision.
//!
//! How it works: [`backend`] turns a [`BackendKind`], its config and a prompt into an
//! exact command line (program, arguments, stdin bytes, output format); [`probe`] finds
//! which agent CLIs are installed by probing their version commands; [`supervise`] runs
//! one command line as a child in its own process group, hands its stdout bytes to a sink
//! (the stream parser) as they arrive, enforces the startup, inactivity, wall-clock and
//! exit-grace deadlines and the caller's stop requests, and always ends with the agent's
//! whole process tree stopped and reaped, reporting a typed [`ProcessOutcome`]; [`session`]
//! puts the two together: one agent run whose output is parsed into events as it arrives.

pub mod backend;
pub mod command;
pub mod probe;
pub mod probe_cache;
pub mod runnable;
pub mod session;
pub mod supervise;
pub mod terminal_asked;

pub use backend::{
    BackendProfile, BuildError, CommandBuilder, CommandLine, CustomSettings, InteractiveCommand,
    LiveInput, ModelOption, PromptDelivery, PromptMode, SteerProtocol, SteerRefused, Steering,
    requested_model,
};
pub use probe::{Availability, DetectError, Detector, resolve_binary};
pub use probe_cache::ProbeCache;
pub use ralph_types::{BackendKind, UnknownBackend};
pub use session::{AgentRun, Control, run_agent, run_agent_teed, run_agent_with};
pub use supervise::{
    Flow, LiveStdin, OutputSink, ProcessOutcome, RunDeadlines, Running, RunningGuard, SpawnSpec,
    StdinSource, StopController, StopLevel, StopRequests, Termination, run,
};
