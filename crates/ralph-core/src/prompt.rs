//! The prompt of one iteration, built from values (no I/O), in this order: what the
//! loop is, the task (every iteration: the agent starts with a fresh context), the
//! guardrails, the scratchpad's tail, the events to handle, the role (the active hat's
//! instructions, or how to work alone, or how to hand work to a hat), and how to hand
//! over and finish.
//!
//! Lean on purpose: every section that would be empty is left out, ralph's own bare
//! start/resume events are not listed, and the completion promise is only offered to a
//! role allowed to finish (a hat whose `publishes` names it, or the default hat), which
//! keeps hats from declaring the whole task done after their own step.

use std::fmt::Write as _;

use crate::config::HatConfig;
use crate::event::Event;
use crate::topic::{TASK_RESUME, TASK_START};

/// The most of the scratchpad a prompt carries: its end, where the latest notes are.
pub const SCRATCHPAD_TAIL_BYTES: usize = 16 * 1024;

/// Everything a prompt is built from.
#[derive(Clone, Debug)]
pub struct PromptInput<'a> {
    pub objective: &'a str,
    pub guardrails: &'a [String],
    /// `None` when the scratchpad is disabled.
    pub scratchpad: Option<Scratchpad<'a>>,
    /// The events the active hat handles, oldest first.
    pub events: &'a [Event],
    pub role: Role<'a>,
    pub promise: &'a str,
    /// `required_events` not emitted yet.
    pub required_missing: &'a [String],
    /// How the agent's shell calls ralph: [`RALPH_BY_NAME`], or [`RALPH_BY_PATH_VAR`] for
    /// agents whose shell tool loses ralph's directory from `PATH`.
    pub ralph: &'a str,
}

/// ralph found on `PATH` (ralph puts its own directory first for the agent).
pub const RALPH_BY_NAME: &str = "ralph";
/// ralph found through the variable ralph sets for the agent, whatever its shell does to
/// `PATH`.
pub const RALPH_BY_PATH_VAR: &str = "\"$RALPH_BIN\"";

/// The scratchpad file and its current text (empty when it does not exist yet).
#[derive(Clone, Copy, Debug)]
pub struct Scratchpad<'a> {
    pub path: &'a str,
    pub text: &'a str,
}

/// Who the agent is this iteration.
#[derive(Clone, Copy, Debug)]
pub enum Role<'a> {
    /// No hats are configured: the agent does the task itself.
    Solo,
    /// Hats are configured but none handles the events: the agent hands work to one.
    Coordinator { hats: &'a [HatConfig] },
    /// A hat.
    Hat { hat: &'a HatConfig },
}

/// The prompt for one iteration.
pub fn build_prompt(input: &PromptInput<'_>) -> String {
    let mut p = String::with_capacity(2048 + input.objective.len());
    p.push_str(if input.scratchpad.is_some() {
        "You are working on a task in a loop. Each iteration starts with a fresh context: \
         the files, the scratchpad and the events below are your memory.\n"
    } else {
        "You are working on a task in a loop. Each iteration starts with a fresh context: \
         the files and the events below are your memory.\n"
    });
    section(&mut p, "Task");
    p.push_str(input.objective.trim_end());
    p.push('\n');

    if !input.guardrails.is_empty() {
        section(&mut p, "Rules");
        for rule in input.guardrails {
            let _ = writeln!(p, "- {}", rule.trim());
        }
    }

    if let Some(pad) = &input.scratchpad {
        section(&mut p, "Scratchpad");
        let (tail, cut) = scratchpad_tail(pad.text);
        let _ = writeln!(
            p,
            "Your notes from earlier iterations, in `{}`. Keep them current before you \
             stop: what is done, what is next, what you learned.",
            pad.path
        );
        if tail.trim().is_empty() {
            p.push_str("\n(The file is empty or does not exist yet.)\n");
        } else {
            p.push_str("\n<scratchpad>\n");
            if cut {
                p.push_str("(earlier notes omitted)\n");
            }
            p.push_str(tail.trim_end());
            p.push_str("\n</scratchpad>\n");
        }
    }

    let shown: Vec<&Event> = input.events.iter().filter(|e| !is_bare_start(e)).collect();
    if !shown.is_empty() {
        section(&mut p, "Events to handle");
        for event in shown {
            write_event(&mut p, event);
        }
    }

    let can_finish = match input.role {
        Role::Solo => {
            section(&mut p, "How to work");
            p.push_str(
                "Do the most important unfinished step of the task completely and verify \
                 it. Then stop: the next iteration continues from there.\n",
            );
            true
        }
        Role::Coordinator { hats } => {
            section(&mut p, "Your role: coordinator");
            p.push_str(
                "You coordinate the hats below: decide which one works next and hand over \
                 to it with `",
            );
            p.push_str(input.ralph);
            p.push_str(
                " emit <topic> \"<what to do>\"`, then stop. Each hat starts on the topics \
                 listed:\n\n",
            );
            for hat in hats.iter().filter(|h| !h.triggers.is_empty()) {
                let _ = writeln!(
                    p,
                    "- {}: {} ({})",
                    code_list(&hat.triggers),
                    hat.name,
                    hat.description.trim()
                );
            }
            true
        }
        Role::Hat { hat } => {
            let _ = write!(p, "\n## Your role: {}\n\n", hat.name);
            let text = if hat.instructions.trim().is_empty() {
                &hat.description
            } else {
                &hat.instructions
            };
            p.push_str(text.trim_end());
            p.push('\n');
            section(&mut p, "Handing over");
            let ralph = input.ralph;
            let _ = write!(
                p,
                "When your part is done, publish the result with `{ralph} emit <topic> \
                 \"<summary>\"` (a JSON payload: `{ralph} emit <topic> --json '<json>'`), \
                 then stop."
            );
            let publishes: Vec<&String> = hat
                .publishes
                .iter()
                .filter(|t| *t != input.promise)
                .collect();
            if !publishes.is_empty() {
                let _ = write!(p, " You publish: {}.", code_list(publishes));
            }
            p.push('\n');
            hat.publishes.iter().any(|t| t == input.promise)
        }
    };
    if can_finish {
        if matches!(input.role, Role::Solo) {
            section(&mut p, "Finishing");
        } else {
            p.push('\n');
        }
        let _ = write!(
            p,
            "When the whole task is complete and verified, run `{} emit {}` as your last \
             action.",
            input.ralph, input.promise
        );
        if !input.required_missing.is_empty() {
            let _ = write!(
                p,
                " It is accepted only once {} has been emitted.",
                code_list(input.required_missing)
            );
        }
        p.push('\n');
    }
    p
}

/// The end of `text`, at most [`SCRATCHPAD_TAIL_BYTES`], starting at a line start when
/// it was cut; and whether it was cut.
pub fn scratchpad_tail(text: &str) -> (&str, bool) {
    if text.len() <= SCRATCHPAD_TAIL_BYTES {
        return (text, false);
    }
    let mut start = text.len() - SCRATCHPAD_TAIL_BYTES;
    while !text.is_char_boundary(start) {
        start += 1;
    }
    let tail = &text[start..];
    let tail = match tail.find('\n') {
        Some(nl) if nl + 1 < tail.len() => &tail[nl + 1..],
        _ => tail,
    };
    (tail, true)
}

fn section(p: &mut String, title: &str) {
    let _ = write!(p, "\n## {title}\n\n");
}

/// ralph's own start or resume event with nothing to say: the task section already
/// says it all.
fn is_bare_start(event: &Event) -> bool {
    (event.topic == TASK_START || event.topic == TASK_RESUME) && event.payload_text().is_none()
}

fn write_event(p: &mut String, event: &Event) {
    match event.payload_text() {
        None => {
            let _ = writeln!(p, "- `{}`", event.topic);
        }
        Some(payload) if !payload.contains('\n') => {
            let _ = writeln!(p, "- `{}`: {}", event.topic, payload.trim());
        }
        Some(payload) => {
            let _ = writeln!(p, "- `{}`:", event.topic);
            for line in payload.trim_end().lines() {
                let _ = writeln!(p, "  {line}");
            }
        }
    }
}

fn code_list<S: AsRef<str>>(items: impl IntoIterator<Item = S>) -> String {
    items
        .into_iter()
        .map(|s| format!("`{}`", s.as_ref()))
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
#[path = "prompt_tests.rs"]
mod tests;
