//! The command file of an iteration's transcript (`command.json`).

use std::ffi::OsString;
use std::path::Path;

use ralph_agent::{SpawnSpec, StdinSource};
use ralph_stream::StreamFormat;
use serde::Serialize;

use super::Who;

/// What the command file holds: enough to run the agent again, without secrets (the
/// environment's names only; the prompt is `prompt.md`), and without this machine's
/// paths: `.ralph/` is restored on other machines and at other paths (a CI artifact, a
/// volume), where the workspace's absolute path and where the agent was installed mean
/// nothing.
#[derive(Serialize)]
pub(super) struct CommandRecord<'a> {
    /// Relative to the workspace when inside it, else the program's file name (as found
    /// on `PATH`).
    program: String,
    /// The arguments, the prompt replaced by [`PROMPT_ARG`].
    args: Vec<String>,
    /// Whether the prompt went to the agent's stdin.
    prompt_on_stdin: bool,
    /// Relative to the workspace (`.` for the workspace itself).
    cwd: Option<String>,
    /// The variables ralph set for the agent (names only).
    env_set: Vec<String>,
    /// The variables the agent inherited from ralph's environment (names only).
    env_inherited: Vec<String>,
    pty: bool,
    iteration: u32,
    /// 1, or more when the attempts before it at the iteration ended on a rate limit.
    attempt: u32,
    hat: &'a str,
    backend: &'a str,
    /// How the run decoded the agent's stdout: `ralph inspect --run` reads the stream
    /// the same way (a custom backend's plain text cannot be recognised by its look).
    output_format: StreamFormat,
}

/// Stands for the prompt in the recorded arguments.
const PROMPT_ARG: &str = "@prompt.md";

pub(super) fn command_record<'a>(
    who: &Who<'a>,
    prompt: &str,
    spec: &SpawnSpec,
) -> CommandRecord<'a> {
    let text = |s: &OsString| s.to_string_lossy().into_owned();
    let set: Vec<String> = spec.env.iter().map(|(name, _)| text(name)).collect();
    let mut inherited: Vec<String> = std::env::vars_os()
        .map(|(name, _)| text(&name))
        .filter(|name| !set.contains(name))
        .collect();
    inherited.sort();
    let program = Path::new(&spec.program);
    let program = match program.strip_prefix(who.workspace) {
        Ok(inside) => inside.display().to_string(),
        Err(_) if program.is_absolute() => program
            .file_name()
            .map_or_else(|| text(&spec.program), |name| text(&name.to_owned())),
        Err(_) => text(&spec.program),
    };
    CommandRecord {
        program,
        args: spec
            .args
            .iter()
            .map(|a| {
                if a.as_os_str() == prompt {
                    PROMPT_ARG.to_owned()
                } else {
                    text(a)
                }
            })
            .collect(),
        prompt_on_stdin: matches!(spec.stdin, StdinSource::Bytes(_) | StdinSource::Live(_)),
        cwd: spec.cwd.as_ref().map(|p| relative_dir(p, who.workspace)),
        env_set: set,
        env_inherited: inherited,
        pty: spec.pty,
        iteration: who.iteration,
        attempt: who.attempt,
        hat: who.hat,
        backend: who.backend,
        output_format: who.output_format,
    }
}

/// `dir` relative to `workspace` (`.` for the workspace itself); a directory outside it
/// as it is.
fn relative_dir(dir: &Path, workspace: &Path) -> String {
    match dir.strip_prefix(workspace) {
        Ok(inside) if inside.as_os_str().is_empty() => ".".to_owned(),
        Ok(inside) => inside.display().to_string(),
        Err(_) => dir.display().to_string(),
    }
}
