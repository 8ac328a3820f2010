//! The loop core: everything ralph decides, kept free of processes and terminals.
//!
//! How it works: the core is sans-IO. It takes values in (the configuration, the
//! events an agent emitted, what an iteration cost) and gives decisions back (which
//! hat runs next, with which prompt, whether the loop is done or a limit is reached),
//! so every rule can be tested as a pure state transition. The CLI crate does the
//! I/O around it. The first part is [`config`]: `ralph.yml` and its layers, parsed
//! with a position for every value, checked, and resolved into the values a run
//! uses; reading the config and prompt files is the only I/O it does.

pub mod config;
pub mod topic;
