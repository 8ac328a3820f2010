//! How a command ralph runs for itself (a gate, a hook) is written in `ralph.yml`: a
//! string is a shell command line, a list is the program and its arguments.

use std::fmt;

/// The program gates and hooks written as a string run through (`sh -c <string>`).
pub const SHELL: &str = "sh";

/// A configured command.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(untagged)]
pub enum Invocation {
    /// Run by `sh -c`: pipes, `&&` and globs work, as the user wrote them.
    Shell(String),
    /// The program (looked up on `PATH` unless it contains a `/`) and its arguments,
    /// with no shell in between.
    Argv(Vec<String>),
}

impl Invocation {
    /// The program to start and its arguments. `None` for an empty command (the config
    /// refuses one, so only a hand-made value gets here).
    pub fn program_and_args(&self) -> Option<(&str, Vec<&str>)> {
        match self {
            Invocation::Shell(line) if line.trim().is_empty() => None,
            Invocation::Shell(line) => Some((SHELL, vec!["-c", line.as_str()])),
            Invocation::Argv(argv) => {
                let (program, args) = argv.split_first()?;
                if program.is_empty() {
                    return None;
                }
                Some((program.as_str(), args.iter().map(String::as_str).collect()))
            }
        }
    }

    /// Whether there is nothing to run.
    pub fn is_empty(&self) -> bool {
        self.program_and_args().is_none()
    }
}

impl fmt::Display for Invocation {
    /// The command as the user wrote it: the string, or the words joined by spaces.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invocation::Shell(line) => f.write_str(line),
            Invocation::Argv(argv) => f.write_str(&argv.join(" ")),
        }
    }
}

#[cfg(test)]
#[path = "invocation_tests.rs"]
mod tests;
