//! Tips added to clap's "unexpected argument" for the slips `ralph run` sees most: the
//! task typed as a positional (`ralph run "fix the test"`, as `ralph plan IDEA` takes
//! its idea), a task after `-p` left unquoted, a worktree's name after `--worktree`
//! without its `=`. clap alone says only that the word was not expected. And for
//! `ralph plan`, a word of the idea that starts with `-`, for which clap's own tip (`--`)
//! is refused there.

use std::ffi::OsString;

use clap::builder::StyledStr;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::shell_words::quote;

/// The flags that give `ralph run` its task.
const TASK_FLAGS: [&str; 4] = ["-p", "--prompt", "-P", "--prompt-file"];

/// Adds a tip to `err` when `args` (the whole command line, program first) is a
/// `ralph run` with a word it did not expect and the slip behind it is clear.
pub(crate) fn add_run_tips(err: &mut clap::Error, args: &[OsString]) {
    if err.kind() != ErrorKind::UnknownArgument || args.get(1).is_none_or(|a| a != "run") {
        return;
    }
    let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidArg) else {
        return;
    };
    if word.starts_with('-') {
        return;
    }
    let words: Vec<String> = (args.iter().skip(2))
        .map(|a| a.to_string_lossy().into_owned())
        .collect();
    let Some(at) = words.iter().position(|w| w == word) else {
        return;
    };
    let tip = if at > 0 && words[at - 1] == "--worktree" {
        format!(
            "`--worktree` takes its name after `=`: `--worktree={}`",
            quote(word)
        )
    } else if words.iter().any(|w| gives_task(w)) {
        "the task is one argument: put it in quotes".to_owned()
    } else {
        format!(
            "ralph run takes the task with -p: `ralph run -p {}` (or -P FILE, or PROMPT.md)",
            quote(word)
        )
    };
    let mut tips = match err.get(ContextKind::Suggested) {
        Some(ContextValue::StyledStrs(tips)) => tips.clone(),
        _ => Vec::new(),
    };
    tips.push(StyledStr::from(tip));
    err.insert(ContextKind::Suggested, ContextValue::StyledStrs(tips));
}

/// Replaces clap's tip for a word `ralph plan` refused as a flag (`ralph plan support -1
/// values`): clap says to put `--` before it, but plan refuses the words after `--`
/// (ralph-orchestrator gave them to the agent), so the way to have it in the idea is
/// quotes, which make the idea one argument that does not start with `-`.
pub(crate) fn add_plan_tip(err: &mut clap::Error, args: &[OsString]) {
    if err.kind() != ErrorKind::UnknownArgument || args.get(1).is_none_or(|a| a != "plan") {
        return;
    }
    let Some(ContextValue::String(word)) = err.get(ContextKind::InvalidArg) else {
        return;
    };
    if !word.starts_with('-') {
        return;
    }
    let tip = format!(
        "if `{word}` is part of the idea, put the whole idea in quotes, as one argument \
         (`ralph plan 'fix the {word} handling'`)"
    );
    err.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![StyledStr::from(tip)]),
    );
}

/// Whether `word` is a flag that gives the task (`-p`, `-pTEXT`, `--prompt=TEXT`, …).
fn gives_task(word: &str) -> bool {
    TASK_FLAGS.iter().any(|flag| {
        word == *flag
            || match flag.strip_prefix("--") {
                Some(_) => word.starts_with(&format!("{flag}=")),
                None => word.starts_with(flag),
            }
    })
}

#[cfg(test)]
#[path = "cli_tips_tests.rs"]
mod tests;
