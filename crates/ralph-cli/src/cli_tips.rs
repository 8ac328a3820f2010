//! Tips added to clap's "unexpected argument" for the slips `ralph run` sees most: the
//! task typed as a positional (`ralph run "fix the test"`, as `ralph plan IDEA` takes
//! its idea), a task after `-p` left unquoted, a worktree's name after `--worktree`
//! without its `=`. clap alone says only that the word was not expected. And for
//! `ralph plan`, a word of the idea that starts with `-`, for which clap's own tip (`--`
//! before that word) is refused there when idea words come before it.

use std::ffi::OsString;

use clap::builder::StyledStr;
use clap::error::{ContextKind, ContextValue, ErrorKind};

use crate::shell_words::quote;

/// Where the words of a `ralph plan` line begin: after the program and `plan`.
const PLAN_WORDS_FROM: usize = 2;

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
/// values`): clap says to put `--` before it, but plan refuses idea words before `--`
/// (ralph-orchestrator gave the words after it to the agent). An idea with the word inside
/// goes in quotes, as one argument that does not start with `-`; an idea that starts with
/// it (quoted or not: quotes do not hide a leading `-`) goes after `--`, all of it.
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
    let tip = match idea_with(args, word) {
        Some(idea) if idea.starts_with('-') => format!(
            "if `{word}` begins the idea, give the idea after `--`, with any flags before it \
             (`ralph plan -- {}`)",
            quote(&idea)
        ),
        Some(idea) => format!(
            "if `{word}` is part of the idea, put the whole idea in quotes, as one argument \
             (`ralph plan {}`)",
            quote(&idea)
        ),
        None => format!(
            "if `{word}` is part of the idea, put the whole idea in quotes, as one argument \
             (`ralph plan 'fix the {word} handling'`), or after `--` when it starts with \
             `-` (`ralph plan -- '{word} …'`)"
        ),
    };
    err.insert(
        ContextKind::Suggested,
        ContextValue::StyledStrs(vec![StyledStr::from(tip)]),
    );
}

/// The idea of `args` (a `ralph plan` command line, program first) if the argument clap
/// refused for `word` were one of its words: the line parsed without it gives the other
/// idea words, and it goes where it was among them. clap names only the flag it read of
/// an argument (`-1` of `-1 as a limit`), so the argument is the first that is `word` or
/// starts with it. `None` when the line without it is refused too.
fn idea_with(args: &[OsString], word: &str) -> Option<String> {
    let typed: Vec<&str> = args.iter().map(|a| a.to_str().unwrap_or("")).collect();
    let after_plan = PLAN_WORDS_FROM;
    let at = (typed[after_plan..].iter().position(|a| *a == word))
        .or_else(|| typed[after_plan..].iter().position(|a| a.starts_with(word)))?
        + after_plan;
    let refused = typed[at];
    let rest: Vec<&OsString> = (args.iter().enumerate())
        .filter(|(i, _)| *i != at)
        .map(|(_, a)| a)
        .collect();
    let matches = crate::cli_config_env::command(None)
        .try_get_matches_from(rest)
        .ok()?;
    let others: Vec<&String> = (matches.subcommand_matches("plan")?)
        .get_many::<String>("idea")
        .map(Iterator::collect)
        .unwrap_or_default();
    // The other idea words in the order typed, `word` where it was: those before it on
    // the line come before it.
    let before = (typed[after_plan..at].iter())
        .filter(|a| others.iter().any(|o| o == *a))
        .count()
        .min(others.len());
    let mut idea: Vec<&str> = others.iter().map(|o| o.as_str()).collect();
    idea.insert(before, refused);
    Some(idea.join(" "))
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
