//! What the TUI knows of a run, built from its run events in order ([`RunModel::apply`]).
//! Streamed text appends to the transcript entry it continues, so following a long
//! stream costs time and memory linear in what the agent said, never more.

use ralph_core::event_tag::first_from_tag;
use ralph_core::machine::{GateEnd, Notice};
use ralph_stream::CostKind;

use super::keep::Kept;
use super::mirror::{Outcome, RunLine, Tokens, Totals};
use super::model_agent::{THINKING, WRITING, agent};
use crate::view::term::ending::{Ending, STDERR_LINES};
use crate::view::term::{gate_lines, limit_lines, tool_preview};

/// The most of one tool's output the view keeps (its tail): a tool that prints a
/// gigabyte must not grow ralph with it. The whole output stays in the agent's stream.
pub(crate) const TOOL_OUTPUT_KEPT: usize = 64 * 1024;
/// Said of an event the agent wrote as an `<event>` tag in its answer rather than with
/// `ralph emit`, as the line view and `ralph events` mark it.
const FROM_TAG: &str = "(tag)";
/// How an event a gate withheld (not published) is marked.
const WITHHELD: &str = "(withheld)";

/// A tool call in an iteration's transcript.
#[derive(Debug)]
pub(crate) struct ToolCall {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) preview: String,
    /// `None` while it runs, then whether it failed.
    pub(crate) failed: Option<bool>,
    pub(crate) output: String,
    pub(crate) expanded: bool,
}

/// A gate's check in an iteration's transcript.
#[derive(Debug)]
pub(crate) struct GateCheck {
    pub(crate) name: String,
    /// `None` while it runs.
    pub(crate) passed: Option<bool>,
    pub(crate) detail: String,
    pub(crate) output: Option<String>,
}

/// One piece of an iteration's transcript, in the order it happened.
#[derive(Debug)]
pub(crate) enum Entry {
    Text(String),
    Thinking(String),
    Tool(ToolCall),
    /// Events the agent emitted: topic and payload on one line.
    Events(Vec<(String, String)>),
    Gate(GateCheck),
    /// Notices, retries, errors, non-JSON lines: one line said as is.
    Note(String),
}

#[cfg(test)]
impl Entry {
    /// The entry's text, as the tests compare it.
    pub(crate) fn searchable(&self) -> std::borrow::Cow<'_, str> {
        match self {
            Entry::Text(t) | Entry::Thinking(t) | Entry::Note(t) => t.as_str().into(),
            Entry::Tool(t) => format!("{} {}\n{}", t.name, t.preview, t.output).into(),
            Entry::Events(events) => events
                .iter()
                .map(|(t, p)| format!("{t} {p}"))
                .collect::<Vec<_>>()
                .join("\n")
                .into(),
            Entry::Gate(g) => format!(
                "{} {}\n{}",
                g.name,
                g.detail,
                g.output.as_deref().unwrap_or("")
            )
            .into(),
        }
    }
}

/// One iteration of the run.
#[derive(Debug, Default)]
pub(crate) struct Iteration {
    pub(crate) number: u32,
    /// 1, or more for an attempt after a rate limit (it keeps the iteration's number).
    pub(crate) attempt: u32,
    pub(crate) hat: String,
    pub(crate) backend: String,
    pub(crate) model: Option<String>,
    pub(crate) started_at_ms: u64,
    /// `None` while it runs.
    pub(crate) outcome: Option<Outcome>,
    pub(crate) duration_ms: Option<u64>,
    pub(crate) cost_usd: Option<f64>,
    /// What `cost_usd` is: the agent's figure, ralph's estimate (Codex, Gemini CLI, a
    /// Claude Code stopped early), or the least it cost (`unknown`: a stream cut in a
    /// call, a model without a price).
    pub(crate) cost_kind: CostKind,
    pub(crate) tokens: Tokens,
    /// Its agent counted no tokens (Copilot): `tokens` is zero, not counted.
    pub(crate) tokens_uncounted: bool,
    pub(crate) events_emitted: usize,
    pub(crate) gates_passed: u32,
    pub(crate) gates_failed: u32,
    /// User messages its agent showed: the first is its prompt, each later one a steering
    /// message the agent read.
    pub(crate) user_messages: u32,
    pub(crate) entries: Vec<Entry>,
    /// The record bytes read into its transcript (see [`Kept`]).
    pub(crate) record_bytes: usize,
    /// The lines of its transcript the view let go to keep its end (see [`Kept`]): the
    /// note that says so is then its first entry.
    pub(crate) left_out_lines: usize,
}

/// A wait for a provider's limit, from its `rate_limit_wait` line.
#[derive(Debug)]
pub(crate) struct Waiting {
    /// The backend of the limited attempt.
    pub(crate) backend: String,
    /// When it ends, in Unix milliseconds: the limited attempt's end and the wait. The
    /// record says when the attempt started and how long it took, so `ralph watch` counts
    /// down to the same end as `ralph run --tui`.
    pub(crate) until_ms: u64,
}

/// The whole run as seen so far.
#[derive(Debug, Default)]
pub(crate) struct RunModel {
    pub(crate) run_id: String,
    pub(crate) run_dir: String,
    pub(crate) backend: String,
    pub(crate) max_iterations: u32,
    pub(crate) max_runtime_secs: u64,
    pub(crate) max_cost_usd: Option<f64>,
    pub(crate) totals: Totals,
    pub(crate) iterations: Vec<Iteration>,
    /// What is going on now, for the status line.
    pub(crate) activity: String,
    /// Whether `activity` says the agent is writing or thinking: true only while it
    /// streams, so the status line says when it went quiet.
    pub(crate) streaming: bool,
    /// When the last line of the record was read, in Unix milliseconds (set by whoever
    /// reads them, who knows the time).
    pub(crate) heard_ms: u64,
    /// The time ralph was stopped since `heard_ms`, in milliseconds: not the agent's
    /// silence, which the status line counts. Set as [`RunModel::paused_ms`] is.
    pub(crate) paused_since_heard_ms: u64,
    /// The wait for a provider's limit going on, if one is (the status line counts it
    /// down).
    pub(crate) waiting: Option<Waiting>,
    /// When the run's clock (as `max_runtime` counts it) read zero, in Unix milliseconds:
    /// the latest iteration's start less the run's time then. The header's clock runs
    /// from it between iterations too (gates, hooks, rate-limit waits).
    pub(crate) clock_origin_ms: Option<u64>,
    /// The time ralph was stopped (Ctrl-Z until `fg`) since the latest iteration
    /// started, in milliseconds: the loop's clock leaves it out, so the header's must
    /// too. Set before each frame by `ralph run --tui`, which is stopped with the loop;
    /// `ralph watch` runs in another process and cannot know it (0).
    pub(crate) paused_ms: u64,
    /// The loop's last word, once it ended.
    pub(crate) finished: Option<String>,
    /// Why it ended (`interrupted`, `completed`, ...).
    pub(crate) stop_reason: Option<String>,
    /// Lines that were not run events (a damaged record).
    pub(crate) unreadable_lines: u64,
    /// `finished` says the loop stopped without ending its run (see
    /// [`RunModel::abandoned`]), until the record goes on.
    abandoned: bool,
    /// When the record of a loop that stopped without ending its run was last written, in
    /// Unix milliseconds, if known: the last time the loop is known to have run.
    record_end_ms: Option<u64>,
    /// How much of the transcripts is kept.
    pub(crate) kept: Kept,
}

impl RunModel {
    /// Reads one JSON line of the record (or of `--output json`).
    pub(crate) fn apply_json(&mut self, line: &[u8]) {
        match serde_json::from_slice::<RunLine>(line) {
            Ok(event) => {
                self.apply(event);
                self.keep(line.len());
            }
            Err(_) => self.unreadable_lines += 1,
        }
    }

    /// The iteration running now (or the last one).
    pub(crate) fn live(&self) -> Option<&Iteration> {
        self.iterations.last()
    }

    /// The run's time at `now_ms` (Unix milliseconds), as `max_runtime` counts it: what
    /// the loop said when it ended, else counted on from the latest iteration's start,
    /// whether an iteration runs or the loop waits between two, less the time ralph was
    /// stopped since then ([`RunModel::paused_ms`]).
    pub(crate) fn elapsed_at(&self, now_ms: u64) -> u64 {
        let said = self.totals.elapsed_ms;
        let Some(now_ms) = self.clock_at(now_ms) else {
            return said;
        };
        match (self.clock_origin_ms, self.live()) {
            (Some(origin), _) => (now_ms.saturating_sub(origin))
                .saturating_sub(self.paused_ms)
                .max(said),
            // A record from before iterations said the run's time: only a running
            // iteration's is known.
            (None, Some(it)) if it.outcome.is_none() => said.saturating_add(
                (now_ms.saturating_sub(it.started_at_ms)).saturating_sub(self.paused_ms),
            ),
            (None, _) => said,
        }
    }

    /// How long `it`, still running, has run at `now_ms`, less the time ralph was stopped
    /// since the latest iteration started (which `it` started no later than): the time
    /// the loop will report for it.
    pub(crate) fn running_for(&self, it: &Iteration, now_ms: u64) -> u64 {
        (now_ms.saturating_sub(it.started_at_ms)).saturating_sub(self.paused_ms)
    }

    /// The time the run's clock is read at, drawn at `now_ms`: then while the loop runs,
    /// where the record ends once it stopped without ending its run (when that is known),
    /// none once it ended (it said its time).
    fn clock_at(&self, now_ms: u64) -> Option<u64> {
        match self.finished {
            None => Some(now_ms),
            Some(_) if self.abandoned => self.record_end_ms,
            Some(_) => None,
        }
    }

    /// How long `it`, an iteration that has not ended, ran by `now_ms` as far as is
    /// known: until now while the loop runs, until the record ends if the loop stopped
    /// without ending it.
    pub(crate) fn unended_for(&self, it: &Iteration, now_ms: u64) -> Option<u64> {
        self.clock_at(now_ms).map(|at| self.running_for(it, at))
    }

    /// Whether the newest iteration has not ended: its cost and tokens are not in the
    /// totals, which are then the least the run used (while it runs, and when its loop
    /// stopped without ending it).
    pub(crate) fn unended(&self) -> bool {
        self.live().is_some_and(|i| i.outcome.is_none())
    }

    /// Whether an iteration is running.
    pub(crate) fn running(&self) -> bool {
        self.finished.is_none() && self.live().is_some_and(|i| i.outcome.is_none())
    }

    fn iteration_mut(&mut self, number: u32) -> Option<&mut Iteration> {
        self.iterations
            .iter_mut()
            .rev()
            .find(|i| i.number == number)
    }

    /// The loop stopped without ending its run (ralph was killed): nothing more comes
    /// unless `ralph run --continue` takes it up, and the clock stops where the record
    /// ends (`record_end_ms`, when the record was last written, if known; else at what
    /// the record last said). A later line of the record undoes this.
    pub(crate) fn abandoned(&mut self, record_end_ms: Option<u64>) {
        if self.finished.is_some() {
            return;
        }
        self.record_end_ms = record_end_ms;
        let words = "the loop is not running: it stopped without ending its run (`ralph run \
                     --continue` takes it up)";
        self.activity = words.to_owned();
        self.finished = Some(words.to_owned());
        self.waiting = None;
        self.abandoned = true;
    }

    pub(crate) fn apply(&mut self, event: RunLine) {
        if std::mem::take(&mut self.abandoned) {
            self.finished = None;
            self.record_end_ms = None;
        }
        // Whatever the loop does after a wait (the next attempt, a hook, its end) ends it.
        if !matches!(event, RunLine::RateLimitWait { .. }) {
            self.waiting = None;
        }
        if !matches!(event, RunLine::Agent { .. }) {
            self.streaming = false;
        }
        match event {
            RunLine::LoopStarted {
                run_id,
                run_dir,
                backend,
                limits,
                totals,
            } => {
                self.run_id = run_id;
                self.run_dir = run_dir;
                self.backend = backend;
                self.max_iterations = limits.max_iterations;
                self.max_runtime_secs = limits.max_runtime_secs;
                self.max_cost_usd = limits.max_cost_usd;
                self.totals = totals;
                self.finished = None;
                self.activity = "starting".to_owned();
            }
            RunLine::IterationStarted {
                iteration,
                attempt,
                max_iterations,
                hat,
                backend,
                started_at_ms,
                elapsed_ms,
            } => {
                self.max_iterations = max_iterations;
                self.clock_origin_ms = elapsed_ms.map(|ms| started_at_ms.saturating_sub(ms));
                self.activity = format!("iteration {iteration}: {hat} working ({backend})");
                self.iterations.push(Iteration {
                    number: iteration,
                    attempt,
                    hat,
                    backend,
                    started_at_ms,
                    ..Iteration::default()
                });
            }
            RunLine::Agent { iteration, event } => {
                if let Some(it) = self.iteration_mut(iteration) {
                    let doing = agent(it, event);
                    if let Some(doing) = doing {
                        self.streaming = doing == WRITING || doing == THINKING;
                        self.activity = format!("iteration {iteration}: {doing}");
                    }
                }
            }
            RunLine::EventsEmitted {
                iteration,
                events,
                from_tags,
                outside,
                withheld,
            } => {
                if let Some(it) = self.iteration_mut(iteration) {
                    it.events_emitted += events.len();
                    let first_tag = first_from_tag(events.len(), from_tags);
                    // A withheld event is one of `events`: it is marked there, not listed
                    // again (a withheld topic the agent did not emit is listed on its own).
                    let mut unlisted = withheld.clone();
                    unlisted.retain(|t| !events.iter().any(|e| e.topic == *t));
                    let mut shown: Vec<(String, String)> = events
                        .into_iter()
                        .enumerate()
                        .map(|(at, e)| {
                            let mut payload = tool_preview::one_line(&payload_text(&e.payload));
                            if at >= first_tag {
                                payload = format!("{FROM_TAG} {payload}");
                            }
                            if withheld.contains(&e.topic) {
                                payload = format!("{WITHHELD} {payload}");
                            }
                            (e.topic, payload.trim_end().to_owned())
                        })
                        .collect();
                    shown.extend(unlisted.into_iter().map(|t| (t, WITHHELD.to_owned())));
                    // Published meanwhile by someone else: not the hat's hand-over.
                    shown.extend(outside.into_iter().map(|e| {
                        let payload = tool_preview::one_line(&payload_text(&e.payload));
                        (
                            e.topic,
                            format!("(from outside) {payload}").trim_end().to_owned(),
                        )
                    }));
                    it.entries.push(Entry::Events(shown));
                }
            }
            RunLine::GateStarted {
                iteration,
                gate,
                event,
                command,
            } => {
                self.activity = format!("gate {gate} running: {command}");
                if let Some(it) = iteration.and_then(|n| self.iteration_mut(n)) {
                    let guards = event.map(|e| format!(" (guards {e})")).unwrap_or_default();
                    it.entries.push(Entry::Gate(GateCheck {
                        name: gate,
                        passed: None,
                        detail: format!("{command}{guards}"),
                        output: None,
                    }));
                }
            }
            RunLine::GateFinished {
                iteration,
                gate,
                passed,
                reason,
                duration_ms,
                exit_code,
                output,
            } => {
                if let Some(it) = iteration.and_then(|n| self.iteration_mut(n)) {
                    gate_finished(it, &gate, passed, &reason, duration_ms, exit_code, output);
                }
            }
            RunLine::IterationFinished {
                iteration,
                model,
                outcome,
                duration_ms,
                cost_usd,
                cost_kind,
                tokens,
                stderr_tail,
                tokens_known,
                totals,
            } => {
                self.totals = totals;
                self.activity = format!("iteration {iteration} {}", outcome.words());
                if let Some(it) = self.iteration_mut(iteration) {
                    ended(it, &outcome, stderr_tail.as_deref());
                    it.model = model.or(it.model.take());
                    it.outcome = Some(outcome);
                    it.duration_ms = Some(duration_ms);
                    it.cost_usd = cost_usd;
                    it.cost_kind = cost_kind;
                    it.tokens = tokens;
                    it.tokens_uncounted = !tokens_known;
                }
            }
            RunLine::Notice { iteration, notice } => {
                let target = match iteration {
                    Some(n) => self.iteration_mut(n),
                    None => self.iterations.last_mut(),
                };
                if let Some(it) = target {
                    it.entries
                        .push(Entry::Note(format!("note: {}", notice_text(notice))));
                }
            }
            RunLine::SteerReceived { message, went } => {
                // Shown where it was sent: in the iteration running (or last run) then.
                if let Some(it) = self.iterations.last_mut() {
                    let shown = tool_preview::one_line(&message);
                    it.entries
                        .push(Entry::Note(format!("steer “{shown}” → {went}")));
                }
            }
            // Said under the limited attempt, the last iteration shown.
            RunLine::RateLimitWait {
                iteration,
                hat,
                wait_secs,
                resets_at,
            } => {
                let text = limit_lines::wait(iteration, hat.as_deref(), wait_secs, resets_at);
                if let Some(it) = self.iterations.last_mut() {
                    it.entries.push(Entry::Note(text));
                    let ended_ms = it.started_at_ms + it.duration_ms.unwrap_or(0);
                    self.waiting = Some(Waiting {
                        backend: it.backend.clone(),
                        until_ms: ended_ms.saturating_add(wait_secs.saturating_mul(1000)),
                    });
                }
            }
            RunLine::Failover {
                iteration,
                from,
                from_fallback,
                to,
                to_fallback,
            } => {
                let text = limit_lines::failover(iteration, &from, from_fallback, &to, to_fallback);
                if let Some(it) = self.iterations.last_mut() {
                    it.entries.push(Entry::Note(text));
                }
            }
            RunLine::HookFinished {
                phase,
                hook,
                passed,
                message,
            } => {
                if !passed && let Some(it) = self.iterations.last_mut() {
                    let why = message.unwrap_or_default();
                    it.entries
                        .push(Entry::Note(format!("hook {hook} ({phase}) failed: {why}")));
                }
            }
            RunLine::LoopFinished {
                reason,
                message,
                totals,
            } => {
                self.totals = totals;
                self.activity = format!("loop finished: {message}");
                self.finished = Some(message);
                self.stop_reason = Some(reason);
            }
            RunLine::Error { message } => {
                self.activity = format!("error: {message}");
                self.finished = Some(message);
                self.stop_reason = Some("error".to_owned());
            }
            RunLine::Other => {}
        }
    }
}

/// Says at the transcript's end why an iteration that did not succeed ended, and the
/// end of its agent's stderr, as the line view's footer does (`✗ iteration 3 failed:
/// killed by signal 11`, `stderr: …`): the title has room only for `failed`.
pub(crate) fn ended(it: &mut Iteration, outcome: &Outcome, stderr_tail: Option<&str>) {
    let ending = outcome.ending();
    if ending != Ending::Succeeded {
        let words = outcome.words();
        let mark = ending.mark();
        it.entries.push(Entry::Note(format!(
            "{mark} iteration {} {words}",
            it.number
        )));
    }
    if let Some(tail) = stderr_tail {
        let lines: Vec<&str> = tail.trim_end().lines().collect();
        for line in &lines[lines.len().saturating_sub(STDERR_LINES)..] {
            let line = tool_preview::one_line(line);
            it.entries.push(Entry::Note(format!("stderr: {line}")));
        }
    }
}

fn gate_finished(
    it: &mut Iteration,
    gate: &str,
    passed: bool,
    reason: &str,
    duration_ms: u64,
    exit_code: Option<i32>,
    output: Option<String>,
) {
    // A failed gate that printed nothing has an empty `output`: no box to show.
    let output = output.filter(|o| !o.is_empty());
    if passed {
        it.gates_passed += 1;
    } else {
        it.gates_failed += 1;
    }
    // Worded as the line view words it; a reason a later ralph added, by its name.
    let said = match serde_json::from_value::<GateEnd>(reason.into()) {
        Ok(end) => gate_lines::verdict(end, exit_code),
        Err(_) => reason.to_owned(),
    };
    let took = crate::view::term::figures::duration_ms(duration_ms);
    let found = it.entries.iter_mut().rev().find_map(|e| match e {
        Entry::Gate(g) if g.passed.is_none() && g.name == gate => Some(g),
        _ => None,
    });
    let line = format!("{said} · {took}");
    match found {
        Some(g) => {
            g.passed = Some(passed);
            g.detail = format!("{}: {line}", g.detail);
            g.output = output;
        }
        None => it.entries.push(Entry::Gate(GateCheck {
            name: gate.to_owned(),
            passed: Some(passed),
            detail: line,
            output,
        })),
    }
}

/// A notice in words, as the line view says it (its `Display`); a kind a later ralph
/// added, by its name.
fn notice_text(fields: serde_json::Map<String, serde_json::Value>) -> String {
    let kind = fields
        .get("notice")
        .and_then(serde_json::Value::as_str)
        .unwrap_or("?")
        .to_owned();
    match serde_json::from_value::<Notice>(fields.into()) {
        Ok(notice) => notice.to_string(),
        Err(_) => kind,
    }
}

fn payload_text(payload: &serde_json::Value) -> String {
    match payload {
        serde_json::Value::String(s) => s.clone(),
        serde_json::Value::Null => String::new(),
        other => other.to_string(),
    }
}
