//! `ralph events [--last N] [--topic T] [--format table|json]`: what the current run's
//! iterations did and emitted, read from its files (`history.jsonl`, the inbox and the
//! saved inbox offset), so it works during a run as well as after.
//!
//! One row per event: what the agent emitted (a gate's refusal marked `withheld`, as
//! history's `withheld` says), what ralph published itself, and a person's guidance, so
//! the rows explain why each hat ran. An iteration that produced nothing gets one row
//! with no topic. Events an agent emitted in the iteration still running (the inbox past
//! the saved offset) come after the history, marked `running` (one row with no topic
//! while it has emitted nothing). Each `ralph steer` message is a row too,
//! as ralph-orchestrator lists a person's guidance: topic `human.guidance`, its text the
//! payload, first among the rows of the iteration it went to (`steering.jsonl`). ralph's
//! own events that an iteration was handed (`task.resume`, `<hat>.exhausted`,
//! `gate.failed`, from its `consumed`) come next, and the hat's `default_publishes`
//! (history's `default_published`) after the iteration's own events.

use ralph_core::event::Event;
use ralph_core::inbox::{InboxLine, InboxReader};
use ralph_core::machine::{CompletionSignal, EXHAUSTED_SUFFIX, IterationRecord, StopReason};
use ralph_core::steer::{Logged, SteerLogLine};
use ralph_core::store::{IterationStart, RalphDir, RunDir, StoreError};
use ralph_core::topic::{GATE_FAILED, TASK_RESUME};
use ralph_core::visible::visible;
use serde::Serialize;
use serde_json::Value;

use crate::cli::EventsArgs;
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::output::print_rows;
use crate::view::table::text_table;
use crate::view::term::clock;
use crate::view::term::one_line;

/// The outcome shown for the iteration still running.
const RUNNING: &str = "running";
/// The outcome shown for an iteration of an ended run that never ran.
const NOT_RUN: &str = "not_run";
/// The topic of a `ralph steer` message's row: ralph-orchestrator's name for a person's
/// guidance in its event history.
const GUIDANCE_TOPIC: &str = "human.guidance";
/// After a topic a gate withheld, in a table.
const WITHHELD_MARK: &str = "(withheld)";
/// Widest payload column in a table.
const PAYLOAD_CHARS: usize = 60;

/// Who put a row's event on the bus.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
enum Source {
    /// The iteration's agent (`ralph emit`).
    Agent,
    /// The iteration's agent, through a ralph-orchestrator `<event>` tag in its answer.
    Tag,
    /// ralph itself, for its own reasons (`task.resume`, `<hat>.exhausted`, `gate.failed`).
    Ralph,
    /// ralph, for the hat: its `default_publishes`, because the agent emitted nothing.
    Default,
    /// The iteration's agent, by the promise as the last line of its final answer: it
    /// completed the run without an event.
    Answer,
    /// A person, through `ralph steer`.
    Person,
    /// Anyone but the iteration's agent, through `ralph emit` (a person in another
    /// terminal, a gate, a hook, a script): routed, never credited to the hat.
    Outside,
}

impl Source {
    fn name(self) -> &'static str {
        match self {
            Source::Agent => "agent",
            Source::Tag => "tag",
            Source::Ralph => "ralph",
            Source::Default => "default",
            Source::Answer => "answer",
            Source::Person => "person",
            Source::Outside => "outside",
        }
    }
}

/// One row: what `--format json` prints per line (docs/cli.md).
#[derive(Debug, PartialEq, Serialize)]
struct Row {
    iteration: u32,
    /// The hat, backend and start of the iteration still running come from its
    /// `iteration_started` line in `run-events.jsonl`: `null` only when that record is
    /// gone or unreadable (history.jsonl has the iteration once it ends).
    hat: Option<String>,
    backend: Option<String>,
    /// The iteration's outcome status, `running`, or `not_run` (no agent got it yet).
    outcome: String,
    /// When the iteration started, in Unix milliseconds.
    started_at_ms: Option<u64>,
    /// The topics the iteration was given.
    consumed: Vec<String>,
    /// Who published the event; `null` with the topic.
    source: Option<Source>,
    /// The event; `null` for an iteration that produced nothing.
    topic: Option<String>,
    payload: Option<Value>,
    /// A gate refused the event (or the run stopped before it was checked): it was not
    /// published, and the hat it would have gone to did not get it.
    withheld: bool,
}

pub(crate) fn run(args: &EventsArgs) -> Result<CommandOutcome, CliError> {
    let cwd = super::enclosing_workspace()?;
    let dir = RalphDir::in_workspace(&cwd);
    let run_dir = match &args.run {
        Some(id) => super::runs::find_run(&dir, id)?,
        None => dir
            .current_run()
            .map_err(|e| CliError::io("read the current run of", dir.path(), e))?
            .ok_or_else(|| CliError::NoRunForEvents(dir.path().to_path_buf()))?,
    };
    let mut rows = rows(&run_dir)?;
    // The TIME column is the run's clock: it starts at the run's first iteration, whatever
    // rows the filters keep.
    let run_start = rows
        .iter()
        .filter_map(|r| r.started_at_ms)
        .min()
        .unwrap_or(0);
    if let Some(pattern) = &args.topic {
        rows.retain(|r| r.topic.as_deref().is_some_and(|t| glob(pattern, t)));
    }
    if let Some(last) = args.last {
        rows.drain(..rows.len().saturating_sub(last));
    }
    print_rows(&rows, args.format, |rows| {
        table(rows, run_dir.id(), run_start)
    })?;
    Ok(CommandOutcome::Success)
}

fn rows(run_dir: &RunDir) -> Result<Vec<Row>, CliError> {
    let history = run_dir
        .read_history_counted()
        .map_err(|e| CliError::io("read", run_dir.history(), e))?;
    if history.skipped > 0 {
        diagnostic(format_args!(
            "warning: skipped {} damaged line(s) of {}",
            history.skipped,
            run_dir.history().display()
        ));
    }
    let history = history.records;
    // The inbox past what the loop has read: the running iteration's events.
    let (offset, ended, promise) = match run_dir.load() {
        Ok(saved) => {
            let promise = match &saved.state.end {
                Some(StopReason::Completed { promise, .. }) => Some(promise.clone()),
                _ => None,
            };
            (saved.inbox_offset, saved.state.end.is_some(), promise)
        }
        Err(StoreError::NoRun(_)) => (0, false, None),
        Err(e) => return Err(e.into()),
    };
    let mut reader = InboxReader::new(run_dir.inbox(), offset);
    let pending = reader
        .read()
        .map_err(|e| CliError::io("read", run_dir.inbox(), e))?;
    // The history is a workspace file: its numbers can be anything.
    let number = history.last().map_or(1, |r| r.iteration.saturating_add(1));
    let running = Running {
        iteration: number,
        start: running_start(run_dir, number),
        ended,
    };
    let steering = ralph_core::steer::read_log(run_dir).map_err(|e| {
        CliError::io(
            "read",
            run_dir.path().join(ralph_core::steer::STEERING_FILE),
            e,
        )
    })?;
    Ok(assemble(
        &history,
        &running,
        &steering,
        pending,
        promise.as_deref(),
    ))
}

/// Every row, in iteration order: the finished iterations' (`history`), then the running
/// one's (ralph's events it was handed, what its agent emitted so far, in the inbox lines
/// `pending`, or one row without a topic while it has emitted nothing), each `ralph
/// steer` message first among the rows of the iteration it went to. `promise`: the
/// promise that completed the run, when one did.
fn assemble(
    history: &[IterationRecord],
    running: &Running,
    steering: &[SteerLogLine],
    pending: Vec<InboxLine>,
    promise: Option<&str>,
) -> Vec<Row> {
    let mut rows = Vec::new();
    for (n, record) in history.iter().enumerate() {
        rows.extend(record_rows(record, &history[..n], promise));
    }
    rows.extend(running.ralphs_rows(history));
    let emitted: Vec<Row> = pending
        .into_iter()
        .filter_map(|line| match line {
            InboxLine::Event { event, sender } => {
                // The running agent's token is not on disk: a line that names no sender
                // is surely from outside, one that names one is taken for the agent's
                // (its history record, once the iteration ends, says for sure).
                let source = match sender {
                    Some(_) => Source::Agent,
                    None => Source::Outside,
                };
                let topic = Some((source, event.topic));
                Some(running.row(running.iteration, topic, event.payload))
            }
            InboxLine::Invalid { .. } => None,
        })
        .collect();
    // The iteration at work is listed even before its agent emits anything, as a
    // finished one that emitted nothing is: else a message queued for the next one
    // would be the only row after the history, and read as the one running.
    if emitted.is_empty() && running.started() {
        rows.push(running.row(running.iteration, None, None));
    }
    rows.extend(emitted);
    with_guidance(rows, steering, history, running)
}

/// `rows` (in iteration order) with a row for each message `ralph steer` gave (where
/// `steering.jsonl` says it was received), placed first among the rows of the iteration
/// it went to, and described as that iteration is in `history` (as running when it has
/// no record yet).
fn with_guidance(
    rows: Vec<Row>,
    steering: &[SteerLogLine],
    history: &[IterationRecord],
    running: &Running,
) -> Vec<Row> {
    let mut guidance = steering
        .iter()
        .filter(|line| matches!(line.went, Logged::Queued | Logged::MidTurn))
        .filter_map(|line| {
            let (topic, payload) = (
                Some((Source::Person, GUIDANCE_TOPIC.to_owned())),
                Some(Value::String(line.message.clone()?)),
            );
            Some(
                match history.iter().find(|r| r.iteration == line.iteration) {
                    Some(record) => record_row(record, topic, payload),
                    None => running.row(line.iteration, topic, payload),
                },
            )
        })
        .collect::<Vec<Row>>();
    // Stable: messages to one iteration stay in the order they came.
    guidance.sort_by_key(|row| row.iteration);
    let mut guidance = guidance.into_iter().peekable();
    let mut all = Vec::with_capacity(rows.len());
    for row in rows {
        while let Some(given) = guidance.next_if(|g| g.iteration <= row.iteration) {
            all.push(given);
        }
        all.push(row);
    }
    all.extend(guidance);
    all
}

/// The rows of the iteration `record` (`before`: the records before it): ralph's own
/// events it was handed, what its agent emitted (marked when withheld), the default
/// published for its hat, and the run's `promise` when its final answer completed the run
/// (there is no event of it to list, and its row would read as an iteration that did
/// nothing); one row without a topic when it produced nothing.
fn record_rows(
    record: &IterationRecord,
    before: &[IterationRecord],
    promise: Option<&str>,
) -> Vec<Row> {
    let mut rows: Vec<Row> = ralphs(&record.consumed, before)
        .map(|e| {
            record_row(
                record,
                Some((Source::Ralph, e.topic.clone())),
                e.payload.clone(),
            )
        })
        .collect();
    let given = rows.len();
    let emitted = ralph_core::event_tag::first_from_tag(record.events.len(), record.from_tags);
    for (at, event) in record.events.iter().enumerate() {
        let source = if at < emitted {
            Source::Agent
        } else {
            Source::Tag
        };
        let mut row = record_row(
            record,
            Some((source, event.topic.clone())),
            event.payload.clone(),
        );
        row.withheld = record.withheld.contains(&event.topic);
        rows.push(row);
    }
    for event in &record.outside {
        rows.push(record_row(
            record,
            Some((Source::Outside, event.topic.clone())),
            event.payload.clone(),
        ));
    }
    // A topic withheld that the agent did not emit is the hat's default, held by its gate.
    let emitted = |topic: &String| record.events.iter().any(|e| e.topic == *topic);
    for topic in record.withheld.iter().filter(|t| !emitted(t)) {
        let mut row = record_row(record, Some((Source::Default, topic.clone())), None);
        row.withheld = true;
        rows.push(row);
    }
    if let Some(topic) = &record.default_published {
        rows.push(record_row(
            record,
            Some((Source::Default, topic.clone())),
            None,
        ));
    }
    if let (Some(CompletionSignal::FinalText), Some(promise)) = (record.completion, promise) {
        rows.push(record_row(
            record,
            Some((Source::Answer, promise.to_owned())),
            None,
        ));
    }
    if rows.len() == given {
        rows.push(record_row(record, None, None));
    }
    rows
}

/// The events of `consumed` that ralph published itself: `task.resume`, `gate.failed`,
/// and `<hat>.exhausted` for a hat that ran `before` (a hat is exhausted only once it has
/// run, so a topic of the user's that happens to end the same way is not mistaken).
fn ralphs<'a>(
    consumed: &'a [Event],
    before: &'a [IterationRecord],
) -> impl Iterator<Item = &'a Event> + 'a {
    consumed.iter().filter(move |e| {
        e.topic == TASK_RESUME
            || e.topic == GATE_FAILED
            || e.topic
                .strip_suffix(EXHAUSTED_SUFFIX)
                .is_some_and(|hat| before.iter().any(|r| r.hat == hat))
    })
}

/// A row of the iteration `record` keeps, for `topic` (with who published it) and
/// `payload`.
fn record_row(
    record: &IterationRecord,
    topic: Option<(Source, String)>,
    payload: Option<Value>,
) -> Row {
    let (source, topic) = topic.unzip();
    Row {
        iteration: record.iteration,
        hat: Some(record.hat.clone()),
        backend: Some(record.backend.clone()),
        outcome: record.outcome.name().to_owned(),
        started_at_ms: Some(record.started_at_ms),
        consumed: record.consumed.iter().map(|e| e.topic.clone()).collect(),
        source,
        topic,
        payload,
        withheld: false,
    }
}

/// The iteration after the history's last: the one running (or the one a killed ralph
/// left), and what its start line said, when the record has it.
struct Running {
    iteration: u32,
    start: Option<IterationStart>,
    /// The run has ended: an iteration without a record never ran (a `ralph steer
    /// --next` message queued for it reached no agent).
    ended: bool,
}

impl Running {
    /// Whether this iteration has started (its start line is there) in a run still going.
    fn started(&self) -> bool {
        !self.ended && self.start.is_some()
    }

    /// A row of `iteration`, which has no record yet, for `topic` and `payload`: described
    /// by the start line when it is this iteration's. An iteration after this one (a
    /// `ralph steer --next` message queued for it) has not run, nor has any of an ended
    /// run.
    fn row(&self, iteration: u32, topic: Option<(Source, String)>, payload: Option<Value>) -> Row {
        let start = self.start.as_ref().filter(|s| s.iteration == iteration);
        let (source, topic) = topic.unzip();
        let not_run = self.ended || iteration > self.iteration;
        Row {
            iteration,
            hat: start.map(|s| s.hat.clone()),
            backend: start.map(|s| s.backend.clone()),
            outcome: if not_run { NOT_RUN } else { RUNNING }.to_owned(),
            started_at_ms: start.map(|s| s.started_at_ms),
            consumed: start.map_or_else(Vec::new, |s| {
                s.events.iter().map(|e| e.topic.clone()).collect()
            }),
            source,
            topic,
            payload,
            withheld: false,
        }
    }

    /// Rows for ralph's own events the running iteration was handed, as its start line
    /// says (`history`: every finished iteration).
    fn ralphs_rows(&self, history: &[IterationRecord]) -> Vec<Row> {
        // `running_start` kept only this iteration's start.
        let Some(start) = &self.start else {
            return Vec::new();
        };
        ralphs(&start.events, history)
            .map(|e| {
                let topic = Some((Source::Ralph, e.topic.clone()));
                self.row(self.iteration, topic, e.payload.clone())
            })
            .collect()
    }
}

/// The start of iteration `iteration` from the run's record, if it is the last one
/// there. A record that cannot be read only leaves the row less described.
fn running_start(run_dir: &RunDir, iteration: u32) -> Option<IterationStart> {
    match run_dir.last_iteration_start() {
        Ok(start) => start.filter(|s| s.iteration == iteration),
        Err(e) => {
            diagnostic(format_args!(
                "warning: {}: {e}; the running iteration is shown without its hat",
                run_dir.run_events().display()
            ));
            None
        }
    }
}

/// The rows as an aligned table; times are the run's clock (since `start`, its first
/// iteration's start).
fn table(rows: &[Row], run_id: &str, start: u64) -> String {
    if rows.is_empty() {
        return format!("run {run_id}: no events\n");
    }
    let cells: Vec<[String; 7]> = rows
        .iter()
        .map(|r| {
            let payload = match &r.payload {
                None | Some(Value::Null) => String::new(),
                Some(Value::String(s)) => s.clone(),
                Some(other) => other.to_string(),
            };
            // Hats, topics and payloads are the agents' (and the config's) text.
            [
                r.started_at_ms
                    .map_or_else(String::new, |t| clock(t.saturating_sub(start))),
                r.iteration.to_string(),
                visible(r.hat.as_deref().unwrap_or("…")).into_owned(),
                r.outcome.clone(),
                r.source.map_or("", Source::name).to_owned(),
                topic_cell(r),
                truncate(&visible(&one_line(&payload)), PAYLOAD_CHARS),
            ]
        })
        .collect();
    let header = ["TIME", "ITER", "HAT", "OUTCOME", "FROM", "TOPIC", "PAYLOAD"];
    text_table(header, cells, &[1])
}

/// The topic as the table shows it: `—` for none, with a mark when a gate withheld it.
fn topic_cell(row: &Row) -> String {
    let topic = visible(row.topic.as_deref().unwrap_or("—")).into_owned();
    if row.withheld {
        format!("{topic} {WITHHELD_MARK}")
    } else {
        topic
    }
}

fn truncate(text: &str, max: usize) -> String {
    if text.chars().count() <= max {
        return text.to_owned();
    }
    let mut cut: String = text.chars().take(max - 1).collect();
    cut.push('…');
    cut
}

/// Whether `topic` matches `pattern`, where `*` matches any run of characters.
fn glob(pattern: &str, topic: &str) -> bool {
    let mut parts = pattern.split('*');
    let first = parts.next().unwrap_or("");
    let Some(mut rest) = topic.strip_prefix(first) else {
        return false;
    };
    let parts: Vec<&str> = parts.collect();
    let Some((last, middle)) = parts.split_last() else {
        return rest.is_empty();
    };
    for part in middle {
        match rest.find(part) {
            Some(at) => rest = &rest[at + part.len()..],
            None => return false,
        }
    }
    rest.ends_with(last)
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
