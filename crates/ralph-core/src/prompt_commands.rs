//! ralph's commands in the text a prompt passes on (the task, the rules, a hat's
//! instructions, the hats' descriptions the coordinator reads, the skills), spelled the
//! way the agent's shell can run them.
//!
//! ralph puts its own directory first on the agent's `PATH`, but some agents run each
//! command in a login shell whose profile sets `PATH` anew (Codex: `bash -lc`), so a bare
//! `ralph` is not found there unless it is installed on the system's `PATH`. ralph's own
//! sections then say `"$RALPH_BIN" emit`; the text people wrote (the built-in presets'
//! `ralph tools task add`, a task file's `ralph emit LOOP_COMPLETE`) is rewritten to match,
//! so that one prompt does not give two spellings of which the literal one fails.
//! Rewriting here rather than in the presets keeps them readable for people (`ralph init
//! --preset` writes them into ralph.yml) and covers hats copied from ralph-orchestrator.

use std::borrow::Cow;

use crate::prompt::RALPH_BY_NAME;

/// The commands an agent runs, which a rewrite covers: `ralph emit`, `ralph tools …`,
/// `ralph events`. Others (`ralph run`, `ralph init`) are not the agent's to run, and
/// words such as "ralph runs the gate" stay as written.
const AGENT_COMMANDS: [&str; 3] = ["emit", "tools", "events"];

/// `text` with each `ralph emit`, `ralph tools` and `ralph events` spelled `ralph` (how the
/// agent's shell calls ralph: [`crate::prompt::RALPH_BY_PATH_VAR`] or
/// [`RALPH_BY_NAME`]); unchanged when that is `ralph` itself. `ralph` is taken only as a
/// word of its own: not in `./ralph`, `my-ralph`, `$ralph`, or after a `"` (the quoted
/// variable would end the quotes it is in).
pub fn spelled_for<'t>(text: &'t str, ralph: &str) -> Cow<'t, str> {
    if ralph == RALPH_BY_NAME {
        return Cow::Borrowed(text);
    }
    let mut out: Option<String> = None;
    let mut copied = 0;
    for (at, name) in text.match_indices(RALPH_BY_NAME) {
        let rest = &text[at + name.len()..];
        let runs_a_command = rest.strip_prefix(' ').is_some_and(|rest| {
            AGENT_COMMANDS.iter().any(|command| {
                rest.strip_prefix(command)
                    .is_some_and(|after| after.chars().next().is_none_or(ends_word))
            })
        });
        if !runs_a_command || !starts_word(&text[..at]) {
            continue;
        }
        let out = out.get_or_insert_with(|| String::with_capacity(text.len() + 64));
        out.push_str(&text[copied..at]);
        out.push_str(ralph);
        copied = at + name.len();
    }
    match out {
        Some(mut out) => {
            out.push_str(&text[copied..]);
            Cow::Owned(out)
        }
        None => Cow::Borrowed(text),
    }
}

/// Whether a word starts after `before`: at the start, or after a blank, a backtick, a
/// bracket, a `'` or a shell's `;`, `|`, `&`.
fn starts_word(before: &str) -> bool {
    before
        .chars()
        .next_back()
        .is_none_or(|c| !(c.is_alphanumeric() || "_-./$\"\\".contains(c)))
}

/// Whether `c` ends the command's name (`emits` and `tools-x` are other words).
fn ends_word(c: char) -> bool {
    !(c.is_alphanumeric() || c == '_' || c == '-')
}

#[cfg(test)]
#[path = "prompt_commands_tests.rs"]
mod tests;
