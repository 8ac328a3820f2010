//! Where the workspace's repository stands when the loop ends: the branch and the commit
//! a batch job hands on (`loop_finished`'s `git`, the CI summary).
//!
//! Asked of git through the one command runner, like a gate: its own process group and a
//! deadline, so a repository on a hung network file system cannot hold the loop's end.

use std::path::Path;
use std::time::Duration;

use ralph_agent::StopRequests;
use ralph_agent::command::{CommandRequest, CommandResult, run_command};
use ralph_core::run_event::GitHead;
use ralph_types::Invocation;

/// How long each git question may take: it reads two small files, but a CI runner or a
/// pod's volume may be slow, and the run is already over.
const GIT_DEADLINE: Duration = Duration::from_secs(5);

/// A full hash (SHA-1 or SHA-256) is at most this long; what git says is read no further.
const MAX_ANSWER_BYTES: usize = 256;

/// The most of git's refusal quoted in the warning.
const REFUSAL_LINES: usize = 6;
const REFUSAL_BYTES: usize = 1024;

/// The branch and commit of the repository `workspace` is in; `Ok(None)` outside one
/// (or without git). `Err` holds git's message when it refuses the repository there (one
/// owned by another user, git's `safe.directory` check): its message names the fix.
pub(crate) async fn git_head(workspace: &Path) -> Result<Option<GitHead>, String> {
    // Inside a work tree at all? Answers `true` on stdout.
    let asked = run(workspace, &["rev-parse", "--is-inside-work-tree"]).await;
    if !asked.passed() {
        let said = asked.tail_text(REFUSAL_LINES, REFUSAL_BYTES);
        let started = !matches!(
            asked.termination,
            ralph_agent::Termination::FailedToStart { .. }
        );
        if started && !said.trim().is_empty() && !crate::commands::worktree::no_repository(&said) {
            return Err(said.trim_end().to_owned());
        }
        return Ok(None);
    }
    if answer(asked).as_deref() != Some("true") {
        return Ok(None);
    }
    let branch = ask(workspace, &["symbolic-ref", "--quiet", "--short", "HEAD"]).await;
    let commit = ask(
        workspace,
        &["rev-parse", "--quiet", "--verify", "HEAD^{commit}"],
    )
    .await
    .filter(|c| c.bytes().all(|b| b.is_ascii_hexdigit()));
    Ok(Some(GitHead { branch, commit }))
}

/// What `git <args>` prints on stdout, trimmed, when it succeeds with some output.
async fn ask(workspace: &Path, args: &[&str]) -> Option<String> {
    answer(run(workspace, args).await)
}

/// `git <args>` in `workspace`, to its end or its deadline.
async fn run(workspace: &Path, args: &[&str]) -> CommandResult {
    let mut argv = vec!["git".to_owned()];
    argv.extend(args.iter().map(|a| (*a).to_owned()));
    let request = CommandRequest {
        invocation: Invocation::Argv(argv),
        cwd: workspace.to_path_buf(),
        // Never ask for credentials or open a pager at the end of a batch job; messages
        // in English, read for "not a git repository".
        env: vec![
            ("GIT_TERMINAL_PROMPT".into(), "0".into()),
            ("GIT_PAGER".into(), "cat".into()),
            ("LC_ALL".into(), "C".into()),
        ],
        stdin: None,
        timeout: GIT_DEADLINE,
        keep_stdout: MAX_ANSWER_BYTES,
        own_session: true,
    };
    // Asked after the loop's end, a stop request included: it must still be answered.
    run_command(request, None, StopRequests::never()).await
}

/// The trimmed stdout of `result` when it succeeded with some.
fn answer(result: CommandResult) -> Option<String> {
    if !result.passed() || result.stdout_truncated {
        return None;
    }
    let text = String::from_utf8(result.stdout).ok()?;
    let text = text.trim();
    (!text.is_empty()).then(|| text.to_owned())
}

#[cfg(test)]
#[path = "git_head_tests.rs"]
mod tests;
