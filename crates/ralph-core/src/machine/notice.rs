//! Things the loop decided that the user should hear about, without stopping.

use serde::{Deserialize, Serialize};

use super::queued::QueuedEvents;
use super::stream_cap::StreamCap;
use crate::count_text::{self, count};
use crate::event::InvalidLine;
use crate::inbox::{InboxRestart, excerpt};

/// A decision worth reporting. The CLI shows each one; the JSON output carries them (and
/// a view reading them back, `ralph watch`, deserializes them to say them in words).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "notice", rename_all = "snake_case")]
pub enum Notice {
    /// A hat reached `max_activations`: the events for it were dropped and
    /// `<hat>.exhausted` published instead. `dropped`: their topics; `payloads`: the
    /// start of each one's payload on one line, as `<hat>.exhausted` quotes it (`None`
    /// for an event without one), in the same order.
    HatExhausted {
        hat: String,
        max_activations: u32,
        dropped: Vec<String>,
        /// Absent from the notices of older versions, which named topics only.
        #[serde(default)]
        payloads: Vec<Option<String>>,
    },
    /// The hat emitted nothing, so its `default_publishes` was published for it.
    DefaultPublished { hat: String, topic: String },
    /// The iteration failed without emitting anything: its events go back to the
    /// front of the queue, so the hat gets them again.
    EventsRequeued { hat: String, topics: Vec<String> },
    /// The agent signalled completion, but some `required_events` were never emitted.
    CompletionRefused { missing: Vec<String> },
    /// The agent signalled completion while tasks of the run were open or in progress;
    /// a `task.resume` event naming them is queued. `tasks` names the first of them
    /// (`id: title` each, at most `REFUSAL_TASKS_SHOWN`, as the `task.resume` event
    /// does: a run with thousands of open tasks refuses every iteration, and the list
    /// whole would be a line that size each time), `count` says how many there are.
    TasksUnfinished {
        tasks: Vec<String>,
        /// Absent from the notices of older versions, which listed every task.
        #[serde(default)]
        count: usize,
    },
    /// A gate refused an event the hat published: it was not published, and
    /// `gate.failed` went to the hat (or to the hat that triggers on it) instead.
    EventWithheld {
        topic: String,
        gate: String,
        hat: String,
    },
    /// The promise was emitted but other events followed it, so it does not complete
    /// the loop; it is dropped.
    PromiseNotLast { promise: String },
    /// The promise was the last event of an attempt that a provider's rate or usage
    /// limit cut short: only an attempt that ends can complete the task, so it is
    /// dropped (the attempt runs again, or its failure counts, per `on_rate_limit`).
    PromiseRateLimited { promise: String },
    /// The promise was the last event of an iteration, or alone on the last line of its
    /// final answer, but the iteration did not succeed: its agent failed (exited
    /// non-zero, crashed, timed out, its stream reported an error) or ralph stopped it at
    /// the cost or runtime limit. Only an iteration that succeeds completes the run, so
    /// the promise is dropped; the hat gets its events again, if the run goes on.
    /// `outcome`: how the iteration ended (`failed`, `stopped_at_cost_limit`,
    /// `stopped_at_runtime_limit`).
    PromiseFailed { promise: String, outcome: String },
    /// The promise was alone on the last line of the final answer, but the model's
    /// output-token limit cut that answer short (its stop was `length`): what it says may
    /// be missing its end, so it is no clean "done" and the promise is dropped (the
    /// iteration still succeeded: the next one can say it again).
    PromiseCutAtLength { promise: String },
    /// The iteration succeeded and its final answer names the promise, but not alone on
    /// its last line, and nothing else completed the loop: the fallback did not apply.
    PromiseNotAlone { promise: String },
    /// The promise was emitted from outside the iteration's agent (a person, a gate, a
    /// hook, a script: not by the agent's `ralph emit`): it does not complete the run,
    /// which only its agent can say it finished, and it is dropped.
    PromiseFromOutside { promise: String },
    /// A steering message was handed to the agent mid-turn, but its turn ended before it
    /// read it (pi shows each message it reads; it never showed this one): the next
    /// iteration's prompt carries it.
    SteerUnread { id: String, message: String },
    /// The prompt that carried a steering message never reached the model (a rate or
    /// usage limit, or a prompt no agent could be started with), or the agent read it
    /// mid-turn in an attempt that then ended on such a limit: the next attempt's prompt
    /// carries it (again).
    SteerRequeued { id: String, message: String },
    /// An inbox line was not an event.
    InvalidLine { error: InvalidLine, excerpt: String },
    /// An event was read from an `<event topic="…">` tag in the agent's answer,
    /// ralph-orchestrator's way of publishing, rather than from `ralph emit`. Given once
    /// per run, for the first such event.
    LegacyEventTag { topic: String },
    /// An `<event>` tag in the agent's answer was not taken, for `reason`: `ralph emit`
    /// would have refused its topic or its payload, or it was taken for a plain-text
    /// agent's prompt printed back. `topic` is cut when long.
    EventTagIgnored { topic: String, reason: String },
    /// A cost budget is set but the agent reported no cost (or only part of it) for an
    /// iteration: the budget then counts only what is known. Given once per run; the
    /// notice event says which iteration.
    CostUnknown { backend: String },
    /// The inbox was shorter than the offset already read, or another file: it was read
    /// again from its start so that no later event is lost.
    InboxRestarted {
        #[serde(flatten)]
        restart: InboxRestart,
    },
    /// An earlier ralph in the workspace was killed (SIGKILL) while its agent ran, and
    /// processes the agent had started were still running: they were stopped before this
    /// run began. `survivors` outlived SIGKILL (uninterruptible sleep).
    LeftoversStopped {
        ralph_pid: i32,
        stopped: usize,
        survivors: usize,
    },
    /// Events were published after the loop had read its last iteration's (by a gate or
    /// hook of that iteration, or from outside meanwhile): read as the loop closed its
    /// inbox, too late to change how the run ended. `kept`: they wait in the run's queue
    /// for `ralph run --continue`, as any event from outside would; otherwise (the run
    /// completed, and cannot be continued) nothing acts on them. `topics` names the first
    /// of them (at most `LATE_TOPICS_SHOWN`), `count` says how many there are.
    EventsAfterEnd {
        topics: Vec<String>,
        count: usize,
        kept: bool,
    },
    /// The agent's streamed output in this iteration (text, thinking, lines that were not
    /// its format) reached what the run records of one iteration, or (`cap`: `run`) what
    /// is left of what it records of the whole run: what it streams after this is left
    /// out of the run's record and views (its transcript, `stdout.zst`, keeps it, up to
    /// `transcripts.max_bytes_per_run`). `kept_bytes`: the record bytes of it kept.
    AgentOutputCut {
        kept_bytes: u64,
        /// Absent from the notices of older versions, which had only the iteration's cap.
        #[serde(default)]
        cap: StreamCap,
    },
    /// How much of the iteration's streamed output was left out after an
    /// [`Notice::AgentOutputCut`]: `lines` streamed events (a line each from a text
    /// agent), `bytes` of their text, `cap` the cap that cut it. Given as the iteration
    /// ends.
    AgentOutputLeftOut {
        lines: u64,
        bytes: u64,
        /// Absent from the notices of older versions, which had only the iteration's cap.
        #[serde(default)]
        cap: StreamCap,
    },
    /// The run completed while events still waited in its queue: no iteration will take
    /// them (a completed run cannot be continued). `pending` groups them by the hat each
    /// would go to and its topic (the first `QUEUED_GROUPS_SHOWN` groups); `count` says
    /// how many events there are in all.
    EventsPendingAtCompletion {
        pending: Vec<QueuedEvents>,
        count: usize,
    },
    /// Steering messages were still queued for the prompt of iteration `queued_for` when
    /// the loop ended, so no prompt carried them. `kept`: `ralph run --continue` carries
    /// them in its first prompt; otherwise (the run completed, and cannot be continued)
    /// they are never delivered. `ids` names them all (a queue holds at most
    /// `MAX_QUEUED_STEERS`).
    SteerUndelivered {
        ids: Vec<String>,
        queued_for: u32,
        kept: bool,
    },
}

impl std::fmt::Display for Notice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Notice::HatExhausted {
                hat,
                max_activations,
                dropped,
                payloads,
            } => {
                let named: Vec<String> = (dropped.iter().enumerate())
                    .map(|(i, topic)| match payloads.get(i) {
                        Some(Some(start)) => format!("{topic} ({start})"),
                        _ => topic.clone(),
                    })
                    .collect();
                write!(
                    f,
                    "hat `{hat}` reached max_activations ({max_activations}): published \
                     `{hat}.exhausted` instead of running it (dropped: {})",
                    named.join(", ")
                )
            }
            Notice::DefaultPublished { hat, topic } => write!(
                f,
                "hat `{hat}` emitted nothing: published its default_publishes `{topic}`"
            ),
            Notice::EventsRequeued { hat, topics } => write!(
                f,
                "hat `{hat}` did not hand over: it gets {} again",
                topics.join(", ")
            ),
            Notice::CompletionRefused { missing } => write!(
                f,
                "completion refused: these required events were never emitted: {}",
                missing.join(", ")
            ),
            Notice::TasksUnfinished { tasks, count } => {
                let count = (*count).max(tasks.len());
                write!(
                    f,
                    "completion refused: {} not done yet ({}",
                    if count == 1 {
                        "1 task of this run is".to_owned()
                    } else {
                        format!("{count} tasks of this run are")
                    },
                    tasks.join("; ")
                )?;
                match count - tasks.len() {
                    0 => f.write_str(")"),
                    more => write!(f, "; and {more} more: `ralph tools task list`)"),
                }
            }
            Notice::EventWithheld { topic, gate, hat } => write!(
                f,
                "gate `{gate}` failed: `{topic}` was withheld and `gate.failed` published for \
                 hat `{hat}`"
            ),
            Notice::PromiseNotLast { promise } => write!(
                f,
                "`{promise}` was emitted but other events followed it, so the task is not \
                 complete (it must be the last event)"
            ),
            Notice::PromiseRateLimited { promise } => write!(
                f,
                "`{promise}` came from an attempt that a rate limit cut short, so the task is \
                 not complete (only an attempt that ends can complete it)"
            ),
            Notice::PromiseFailed { promise, outcome } => write!(
                f,
                "`{promise}` came from an iteration that {}, so the task is not complete \
                 (only an iteration that succeeds can complete it)",
                match outcome.as_str() {
                    "stopped_at_cost_limit" => "ralph stopped at the cost limit",
                    "stopped_at_runtime_limit" => "ralph stopped at the runtime limit",
                    _ => "failed",
                }
            ),
            Notice::PromiseCutAtLength { promise } => write!(
                f,
                "`{promise}` ended a final answer that hit the model's output-token limit, so \
                 the task is not complete (the answer was cut short; only a whole answer can \
                 complete it)"
            ),
            Notice::PromiseFromOutside { promise } => write!(
                f,
                "`{promise}` was emitted from outside the iteration's agent, so it does not \
                 complete the run (only the agent's own `ralph emit {promise}` does; to end \
                 the loop yourself, press Ctrl-C or send ralph SIGTERM)"
            ),
            Notice::PromiseNotAlone { promise } => write!(
                f,
                "the final answer mentions `{promise}` but not alone on its last line, so the \
                 task is not complete (run `ralph emit {promise}`, or end the answer with a \
                 line that holds only `{promise}`)"
            ),
            Notice::SteerUnread { message, .. } => write!(
                f,
                "the agent ended its turn before reading the steering message “{}”: it is \
                 queued again, for the next iteration's prompt",
                first_line(message)
            ),
            Notice::SteerRequeued { message, .. } => write!(
                f,
                "the prompt that carried the steering message “{}” did not reach the model: \
                 it is queued again, for the next iteration's prompt",
                first_line(message)
            ),
            Notice::InvalidLine { error, excerpt } => {
                write!(
                    f,
                    "ignored an inbox line that is not an event ({error}): {excerpt}"
                )
            }
            Notice::LegacyEventTag { topic } => write!(
                f,
                "read the event `{topic}` from an `<event>` tag in the agent's answer, as \
                 ralph-orchestrator did; `ralph emit {topic}` is the supported way to publish \
                 an event (said once per run)"
            ),
            Notice::EventTagIgnored { topic, reason } => write!(
                f,
                "ignored the `<event topic=\"{topic}\">` tag in the agent's answer: {reason}"
            ),
            Notice::CostUnknown { backend } => write!(
                f,
                "`{backend}` did not report all of its cost: the cost budget counts only \
                 reported costs, so it may be overrun"
            ),
            Notice::InboxRestarted { restart } => write!(f, "{restart}"),
            Notice::EventsAfterEnd {
                topics,
                count,
                kept,
            } => {
                let (were, them) = match count {
                    1 => ("was", "it"),
                    _ => ("were", "them"),
                };
                let more = match count.saturating_sub(topics.len()) {
                    0 => String::new(),
                    more => format!(" and {more} more"),
                };
                write!(
                    f,
                    "`{}`{more} {were} published after the loop had read its last \
                     iteration's events, too late to change how this run ended: ",
                    topics.join("`, `")
                )?;
                if *kept {
                    f.write_str("queued for `ralph run --continue`")
                } else {
                    write!(f, "the run completed, so nothing acts on {them}")
                }
            }
            // The bytes kept, not a rounded size: the cap is counted in record bytes, and
            // flooring them to MiB said "reached 15 MiB" (or 0) of a 16 MiB cap.
            Notice::AgentOutputCut {
                kept_bytes,
                cap: StreamCap::Iteration,
            } => write!(
                f,
                "the agent's output in this iteration reached what the run records of one \
                 iteration ({kept_bytes} bytes of record kept): what it writes after this is \
                 left out of the run's record and of this view (its transcript keeps it: \
                 `ralph inspect`)"
            ),
            Notice::AgentOutputCut {
                kept_bytes,
                cap: StreamCap::Run,
            } => write!(
                f,
                "the agents' output in this run reached what the run records of it in all \
                 ({kept_bytes} bytes of record kept of this iteration): what this agent \
                 writes after this is left out of the run's record and of this view, and \
                 each later iteration keeps only its start (its transcript keeps it all: \
                 `ralph inspect`)"
            ),
            Notice::AgentOutputLeftOut { lines, bytes, cap } => write!(
                f,
                "left out {} ({}) of the agent's output in this iteration from the run's \
                 record and from this view, past what it records of {} (its transcript keeps \
                 them: `ralph inspect`)",
                count(*lines, "line", "lines"),
                count(*bytes, "byte", "bytes"),
                match cap {
                    StreamCap::Iteration => "one iteration",
                    StreamCap::Run => "the whole run",
                }
            ),
            Notice::EventsPendingAtCompletion { pending, count } => {
                let shown: usize = pending.iter().map(|g| g.count).sum();
                write!(
                    f,
                    "the run completed with {} still queued, which no iteration will handle: ",
                    count_text::count(*count as u64, "event", "events")
                )?;
                let groups: Vec<String> = (pending.iter())
                    .map(|g| match g.count {
                        1 => format!("`{}` for hat `{}`", g.topic, g.hat),
                        n => format!("`{}` ×{n} for hat `{}`", g.topic, g.hat),
                    })
                    .collect();
                f.write_str(&groups.join(", "))?;
                match count.saturating_sub(shown) {
                    0 => Ok(()),
                    more => write!(f, ", and {more} more"),
                }
            }
            Notice::SteerUndelivered {
                ids,
                queued_for,
                kept,
            } => {
                let (messages, was, it) = match ids.len() {
                    1 => ("1 steering message".to_owned(), "was", "it"),
                    n => (format!("{n} steering messages"), "were", "them"),
                };
                write!(
                    f,
                    "{messages} queued for iteration {queued_for} {was} not delivered: the \
                     loop ended before that iteration; "
                )?;
                if *kept {
                    write!(f, "`ralph run --continue` carries {it} in its first prompt")
                } else {
                    write!(f, "the run completed, so no prompt will carry {it}")
                }
            }
            Notice::LeftoversStopped {
                ralph_pid,
                stopped,
                survivors,
            } => {
                let processes = |n: &usize| {
                    if *n == 1 {
                        "1 process".to_owned()
                    } else {
                        format!("{n} processes")
                    }
                };
                write!(
                    f,
                    "stopped {} that an earlier ralph (pid {ralph_pid}, killed before it \
                     could stop them) had left running",
                    processes(stopped)
                )?;
                if *survivors > 0 {
                    write!(f, "; {} did not stop even on SIGKILL", processes(survivors))?;
                }
                Ok(())
            }
        }
    }
}

/// The first line of `text`, cut to [`EXCERPT_CHARS`] characters, with `…` when
/// anything was left out: enough to recognise a message in a one-line notice.
fn first_line(text: &str) -> String {
    let first = text.lines().next().unwrap_or_default();
    let mut shown = excerpt(first, EXCERPT_CHARS);
    // Cut, `excerpt` has put the mark already.
    let cut = shown.chars().count() > EXCERPT_CHARS;
    if !cut && first.len() < text.trim_end().len() {
        shown.push('…');
    }
    shown
}

/// Characters of a message a notice shows.
const EXCERPT_CHARS: usize = 60;

#[path = "notice_examples.rs"]
mod examples;

#[cfg(test)]
#[path = "notice_tests.rs"]
mod tests;
