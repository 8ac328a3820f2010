//! The loop core: everything ralph decides, kept free of processes and terminals.
//!
//! How it works: the core is sans-IO where it decides. [`machine`] takes values in (the
//! configuration, the events an agent emitted, what an iteration cost) and gives
//! decisions back (which hat runs next with which events, whether the loop is done or
//! a limit is reached), so every rule is tested as a pure state transition; [`prompt`]
//! builds each iteration's prompt, [`summary`] the run's `summary.md`, all from values;
//! [`run_event`] is what a run reports to its observers (the `--output json` schema). The
//! vocabulary it shares with the supervisor (agent names, deadlines, how a run ended)
//! comes from `ralph-types`; the core does not depend on the crate that starts processes.
//! The CLI crate turns configuration into command lines and runs the agents around it. The I/O that belongs to ralph's own files lives here too, in modules of its
//! own: [`config`] reads `ralph.yml` and its layers, [`inbox`] appends and reads a
//! run's event inbox, [`store`] keeps a run's files under `.ralph/` (history, saved
//! state, summary, the workspace lock), and every one of those files, like the files a user
//! names, is opened through [`fsafe`] (no links under `.ralph/`, regular files only,
//! bounded reads).

pub mod config;
pub mod count_text;
pub mod event;
pub mod event_tag;
pub mod file_lock;
pub mod fsafe;
pub mod hooks;
pub mod inbox;
pub mod machine;
pub mod memory;
pub mod prompt;
pub mod prompt_memory;
mod prompt_steering;
mod prompt_tasks;
pub mod run_event;
pub mod shell_quote;
pub mod skills;
pub mod steer;
pub mod store;
pub mod summary;
pub mod tasks;
pub mod time_text;
pub mod token_count;
pub mod topic;
pub mod trigger;
pub mod visible;
