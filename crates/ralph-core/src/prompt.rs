//! The prompt of one iteration, built from values (no I/O), in this order: what the
//! loop is, the task (every iteration: the agent starts with a fresh context), the
//! guardrails, the scratchpad's tail, the memories and skills ([`crate::prompt_memory`]),
//! the events to handle, the guidance sent with `ralph steer`, the role (the active hat's
//! instructions, or how to work alone, or how to hand work to a hat), and how to hand
//! over and finish.
//!
//! Lean on purpose: every section that would be empty is left out, ralph's own bare
//! start/resume events are not listed, and the completion promise is only offered to a
//! role allowed to finish (a hat whose `publishes` names it, or the default hat), which
//! keeps hats from declaring the whole task done after their own step.
//!
//! Bounded on purpose: the events section carries at most
//! [`PromptInput::events_max_bytes`] (the newest events; an agent flooding the bus with
//! thousands of large payloads once made a prompt of 120 MB), and says how many were
//! left out and how to read them.

use std::borrow::Cow;
use std::fmt::Write as _;

use crate::config::HatConfig;
use crate::event::Event;
use crate::machine::QueuedEvents;
use crate::prompt_memory::{MemoryPrompt, write_memories, write_skills};
pub use crate::prompt_steering::STEERING_HEADING;
use crate::prompt_steering::write_steering;
use crate::prompt_tasks::write_tasks;
use crate::skills::Skill;
use crate::tasks::TasksView;
use crate::topic::{GATE_FAILED, TASK_RESUME, TASK_START};

/// The most topics waiting for one hat that the coordinator's list names: enough to see
/// what is handed out, without a line per event of a long queue.
pub const QUEUED_TOPICS_SHOWN: usize = 3;

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
    /// The most bytes the events section carries (`event_loop.prompt_events_max_bytes`):
    /// the newest events are kept, a payload longer than what is left is cut, and the
    /// prompt says how many events were left out.
    pub events_max_bytes: usize,
    /// How the agent's shell calls ralph: [`RALPH_BY_NAME`], or [`RALPH_BY_PATH_VAR`] for
    /// agents whose shell tool loses ralph's directory from `PATH`.
    pub ralph: &'a str,
    /// The run's task list, when `tasks.enabled`.
    pub tasks: Option<&'a TasksView<'a>>,
    /// What the prompt carries of the memories; `None` when they are off.
    pub memories: Option<MemoryPrompt<'a>>,
    /// The skills the agent sees this iteration (none: no skills section).
    pub skills: &'a [Skill],
    /// Guidance sent with `ralph steer` for this iteration, oldest first (none: no
    /// section); shown before the role.
    pub steering: &'a [String],
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
    /// `exhausted`: the ids of the hats that used up their `max_activations`.
    /// `queued`: what waits in the queue for each hat ([`Machine::queued_by_hat`](crate::machine::Machine::queued_by_hat)), so
    /// that the coordinator does not say the task is done over work still handed out.
    Coordinator {
        hats: &'a [HatConfig],
        exhausted: &'a [String],
        queued: &'a [QueuedEvents],
    },
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

    if let Some(view) = input.tasks {
        write_tasks(&mut p, view, input.ralph);
    }

    if let Some(memories) = input.memories {
        write_memories(&mut p, memories, input.ralph);
    }
    write_skills(&mut p, input.skills, input.ralph);
    write_events(&mut p, input);
    write_steering(&mut p, input.steering);

    let can_finish = match input.role {
        Role::Solo => {
            section(&mut p, "How to work");
            p.push_str(
                "Do the most important unfinished step of the task completely and verify \
                 it. Then stop: the next iteration continues from there.\n",
            );
            true
        }
        Role::Coordinator {
            hats,
            exhausted,
            queued,
        } => {
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
                let _ = write!(
                    p,
                    "- {}: {} ({})",
                    code_list(&hat.triggers),
                    hat.name,
                    hat.description.trim()
                );
                // Still listed, so that its topics are not mistaken for free ones; a
                // hand-over to it would be dropped, and repeating one would go on until
                // the iteration limit.
                if exhausted.contains(&hat.id) {
                    p.push_str(
                        " — exhausted: it ran as often as its max_activations allow, so \
                         ralph drops events for it; hand the work to another hat",
                    );
                } else {
                    write_queued(&mut p, queued, &hat.id);
                }
                p.push('\n');
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
        let (ralph, promise) = (input.ralph, input.promise);
        let _ = write!(
            p,
            "When the whole task is complete and verified, run `{ralph} emit {promise}` as \
             your last action (if you cannot run commands, end your final answer with a \
             line that holds only `{promise}`: the word anywhere else in it does not count)."
        );
        if !input.required_missing.is_empty() {
            let _ = write!(
                p,
                " It is accepted only once {} has been emitted.",
                code_list(input.required_missing)
            );
        }
        // Only what the list above showed waiting (not an exhausted hat's, which ralph
        // drops anyway).
        if let Role::Coordinator {
            hats,
            exhausted,
            queued,
        } = input.role
            && queued.iter().any(|q| {
                !exhausted.contains(&q.hat)
                    && (hats.iter()).any(|h| h.id == q.hat && !h.triggers.is_empty())
            })
        {
            p.push_str(
                " What is queued for a hat above is never handled once the run completes: \
                 finish only if that work is no longer needed.",
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
    let start = text.ceil_char_boundary(text.len() - SCRATCHPAD_TAIL_BYTES);
    let tail = &text[start..];
    let tail = match tail.find('\n') {
        Some(nl) if nl + 1 < tail.len() => &tail[nl + 1..],
        _ => tail,
    };
    (tail, true)
}

/// The topics waiting for `hat`, after its line in the coordinator's list: at most
/// [`QUEUED_TOPICS_SHOWN`], each with how many events of it wait.
fn write_queued(p: &mut String, queued: &[QueuedEvents], hat: &str) {
    let waiting: Vec<&QueuedEvents> = queued.iter().filter(|q| q.hat == hat).collect();
    if waiting.is_empty() {
        return;
    }
    let shown: Vec<String> = (waiting.iter().take(QUEUED_TOPICS_SHOWN))
        .map(|q| match q.count {
            1 => format!("`{}`", q.topic),
            n => format!("`{}` ×{n}", q.topic),
        })
        .collect();
    let _ = write!(p, " — queued for it, not handled yet: {}", shown.join(", "));
    if waiting.len() > QUEUED_TOPICS_SHOWN {
        let _ = write!(
            p,
            " and {} more topics",
            waiting.len() - QUEUED_TOPICS_SHOWN
        );
    }
}

fn section(p: &mut String, title: &str) {
    let _ = write!(p, "\n## {title}\n\n");
}

/// ralph's own start or resume event with nothing to say: the task section already
/// says it all.
fn is_bare_start(event: &Event) -> bool {
    (event.topic == TASK_START || event.topic == TASK_RESUME) && event.payload_text().is_none()
}

/// The events section: the newest events that fit in [`PromptInput::events_max_bytes`],
/// oldest first, after a line saying how many earlier ones were left out. The newest
/// event is always shown, its payload cut to the bound when it alone exceeds it.
fn write_events(p: &mut String, input: &PromptInput<'_>) {
    let shown: Vec<&Event> = input.events.iter().filter(|e| !is_bare_start(e)).collect();
    if shown.is_empty() {
        return;
    }
    let mut left = input.events_max_bytes;
    let mut kept: Vec<String> = Vec::new();
    for event in shown.iter().rev() {
        let mut text = String::new();
        let whole = write_event(&mut text, event, left, input.ralph);
        if kept.is_empty() || (whole && text.len() <= left) {
            left = left.saturating_sub(text.len());
            kept.push(text);
        } else {
            break;
        }
    }
    section(p, "Events to handle");
    let omitted = shown.len() - kept.len();
    if omitted > 0 {
        let _ = writeln!(
            p,
            "({omitted} earlier {} left out to keep this prompt short: `{} events` lists \
             them all.)\n",
            if omitted == 1 {
                "event was"
            } else {
                "events were"
            },
            input.ralph
        );
    }
    for text in kept.iter().rev() {
        p.push_str(text);
    }
}

/// What a cut payload ends with: where the whole payload is.
fn cut_marker(ralph: &str) -> String {
    format!("… (payload cut: `{ralph} events` shows all of it)")
}

/// The payload as the agent reads it, cut at a character boundary to at most `max`
/// bytes (the marker included) when longer; and whether it is whole.
fn payload_within<'e>(event: &'e Event, max: usize, ralph: &str) -> Option<(Cow<'e, str>, bool)> {
    let text = match &event.payload {
        _ if event.topic == GATE_FAILED && gate_failed_text(event).is_some() => {
            Cow::Owned(gate_failed_text(event)?)
        }
        None | Some(serde_json::Value::Null) => return None,
        Some(serde_json::Value::String(s)) => Cow::Borrowed(s.as_str()),
        Some(_) => Cow::Owned(event.payload_text()?),
    };
    if text.len() <= max {
        return Some((text, true));
    }
    let marker = cut_marker(ralph);
    let end = text.floor_char_boundary(max.saturating_sub(marker.len()));
    Some((Cow::Owned(format!("{}{marker}", &text[..end])), false))
}

/// Writes one event, its payload cut to `max` bytes; returns whether it is whole.
fn write_event(p: &mut String, event: &Event, max: usize, ralph: &str) -> bool {
    let payload = payload_within(event, max, ralph);
    let whole = payload.as_ref().is_none_or(|(_, whole)| *whole);
    match payload.map(|(text, _)| text) {
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
    whole
}

/// `gate.failed`'s payload in words: which gate refused which event and why, what to
/// do, and the end of the gate's output (the JSON is there for hats that want it, but an
/// agent acts on the sentence).
fn gate_failed_text(event: &Event) -> Option<String> {
    let payload = event.payload.as_ref()?;
    let field = |key: &str| payload.get(key).and_then(serde_json::Value::as_str);
    let (gate, guarded) = (field("gate")?, field("event")?);
    let why = match (
        field("reason"),
        payload.get("exit_code").and_then(serde_json::Value::as_i64),
    ) {
        (Some("exit"), Some(code)) => format!("failed with exit code {code}"),
        (Some("timeout"), _) => "did not finish before its timeout and was stopped".to_owned(),
        (Some("spawn"), _) => "could not be started".to_owned(),
        (Some("interrupted"), _) => "was interrupted before it finished".to_owned(),
        _ => "failed".to_owned(),
    };
    let command = field("command")
        .filter(|c| !c.is_empty())
        .map(|c| format!(" (`{c}`)"))
        .unwrap_or_default();
    let mut text = format!(
        "ralph ran gate `{gate}`{command} before accepting `{guarded}`, and it {why}, so \
         `{guarded}` was not accepted. Find and fix the cause, check it yourself, then \
         publish `{guarded}` again."
    );
    match field("output").map(str::trim_end).filter(|o| !o.is_empty()) {
        Some(output) => {
            text.push_str(" The end of its output:\n```\n");
            text.push_str(output);
            text.push_str("\n```");
        }
        None => text.push_str(" It printed nothing."),
    }
    Some(text)
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
