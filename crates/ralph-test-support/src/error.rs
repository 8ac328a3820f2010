//! The one error type of this crate: what failed, where, and how to fix it.

use std::path::PathBuf;

/// Everything that can go wrong while loading a script, starting the server or writing an
/// agent's configuration.
#[derive(Debug, thiserror::Error)]
pub enum MockError {
    /// A script file could not be read.
    #[error("cannot read mock script {path}: {source}")]
    ReadScript {
        /// The file.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A script file name ends in neither `.json`, `.yaml` nor `.yml`.
    #[error("mock script {path} must end in .json, .yaml or .yml so its format is known")]
    ScriptFormat {
        /// The file.
        path: PathBuf,
    },
    /// A JSON script does not parse or does not match the format of the README.
    #[error("mock script {origin} is not a valid JSON script: {message}")]
    ParseJson {
        /// The file, or `<inline>`.
        origin: String,
        /// serde's message (it includes the line and column).
        message: String,
    },
    /// A YAML script does not parse or does not match the format of the README.
    #[error("mock script {origin} is not a valid YAML script: {message}")]
    ParseYaml {
        /// The file, or `<inline>`.
        origin: String,
        /// serde-saphyr's message (it includes the line and column).
        message: String,
    },
    /// A script refers to a scenario it does not define (and that is not built in).
    #[error(
        "mock script {origin}: {what} names scenario `{name}`, which is neither defined under \
         `scenarios` nor built in (built in: {builtins})"
    )]
    UnknownScenario {
        /// The file, or `<inline>`.
        origin: String,
        /// Which field names it (`default`, `routes[2]`).
        what: String,
        /// The missing name.
        name: String,
        /// The built-in names, comma separated.
        builtins: String,
    },
    /// A scenario has no turns, so there is nothing to answer.
    #[error("mock script {origin}: scenario `{name}` has no turns; give it at least one")]
    EmptyScenario {
        /// The file, or `<inline>`.
        origin: String,
        /// The scenario.
        name: String,
    },
    /// Binding the listening socket failed.
    #[error("cannot bind the mock model server to {addr}: {source}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The I/O error.
        source: std::io::Error,
    },
    /// The server's background thread or runtime could not be started.
    #[error("cannot start the mock model server's runtime: {source}")]
    Runtime {
        /// The I/O error.
        source: std::io::Error,
    },
    /// Writing a file (agent configuration, port file) failed.
    #[error("cannot write {path}: {source}")]
    Write {
        /// The file or directory.
        path: PathBuf,
        /// The I/O error.
        source: std::io::Error,
    },
    /// A real agent CLI that a test needs is not installed.
    #[error(
        "the real agent `{name}` is not installed ({path} is missing): run \
         scripts/install-agents.sh, or set RALPH_SKIP_REAL_AGENTS=1 to skip real-agent tests"
    )]
    AgentNotInstalled {
        /// The launcher's name.
        name: String,
        /// Where it was looked for.
        path: PathBuf,
    },
}
