//! The session summary: what the loop needs to know about one agent run.

use serde::Serialize;

use crate::event::AgentEvent;
use crate::event::CostKind;
use crate::event::Stop;
use crate::event::Tokens;
use crate::event::Usage;
use crate::pricing::Pricing;
use crate::rate_limit::{RateLimited, names_limit, reset_in_message};
use crate::unpriced::Unpriced;
use ralph_types::StreamFormat;

/// Folds a run's events into its outcome. Feed it every event with
/// [`SessionSummary::observe`]; every public field is up to date after each call, so the
/// loop can check a cost budget while the agent is still running.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct SessionSummary {
    /// The text of the last assistant message that did not fail: what completion
    /// detection reads. Text of failed or retried attempts never lands here.
    pub final_text: Option<String>,
    /// Whether the model's output-token limit cut `final_text` short (its message's stop
    /// was [`Stop::Length`]): an answer that may be missing its end.
    #[serde(skip)]
    pub final_cut_at_length: bool,
    /// `None` when no cost is known at all. When some turns are priced and others are
    /// not, this is the priced part and `cost_kind` is `unknown`; so it is when the
    /// agent priced its calls and its stream was cut in one (see
    /// [`SessionSummary::stream_ended`]). Until the agent
    /// reports its session's total, calls it gave no cost count at ralph's estimate from
    /// their tokens, when their model has a price (see [`SessionSummary::with_pricing`]),
    /// and `cost_kind` is then `estimated`.
    pub cost_usd: Option<f64>,
    pub cost_kind: CostKind,
    pub tokens: Tokens,
    /// Whether `tokens` is the whole count. False when the agent reported no token count
    /// (a usage with tokens, or with a cost: a failed call's zero): Copilot reports none,
    /// a plain-text agent none at all, their `tokens` are zero because nobody counted
    /// them, and say so. False too when its stream was cut before its terminal event
    /// (see [`SessionSummary::stream_ended`]): `tokens` is then the least it used.
    pub tokens_known: bool,
    /// Successful model turns.
    pub turns: u32,
    pub tool_calls: u32,
    pub tool_errors: u32,
    /// Run-level errors (failed model calls, exhausted retries), each once.
    pub errors: Vec<String>,
    /// Whether the run ended well, judged from the stream alone (pi exits 0 even when
    /// every attempt failed, so the exit code cannot tell).
    pub succeeded: bool,
    /// Whether the agent emitted its terminal event.
    pub terminal_event: bool,
    /// The model that did the work, when the agent said.
    pub model: Option<String>,
    pub session_id: Option<String>,
    pub unknown_events: u64,
    pub non_json_lines: u64,
    pub oversize_lines: u64,
    /// The run failed on a provider's rate or usage limit (`None` when it succeeded in
    /// the end, or failed otherwise).
    pub rate_limited: Option<RateLimited>,
    /// The agent showed model output (text, thinking, a tool call, a message): the
    /// model answered and was billed, whether or not the stream reported usage (Claude
    /// Code reports it only at the end; a custom agent never does).
    #[serde(skip)]
    pub answered: bool,
    /// The model said something: text, thinking or a tool call (see
    /// [`SessionSummary::answered_nothing`]).
    #[serde(skip)]
    pub said: bool,
    #[serde(skip)]
    state: State,
    /// Prices the calls reported without a cost (see [`SessionSummary::with_pricing`]).
    #[serde(skip)]
    unpriced: Unpriced,
}

#[derive(Clone, Debug, Default, PartialEq)]
struct State {
    /// What the sessions before this one used (see [`SessionSummary::begin_session`]).
    earlier: Earlier,
    turn_tokens: Tokens,
    turn_cost: Option<f64>,
    turn_cost_kind: Option<CostKind>,
    saw_turn_usage: bool,
    /// Session totals from the agent's own summary; they replace the turn sums.
    totals: Option<(Tokens, Option<f64>, CostKind)>,
    ok_turns: u32,
    run_turns: u32,
    last_stop: Option<Stop>,
    /// The last run verdict (`is_error`), until a later message reopens the run.
    run_result: Option<bool>,
    retry_pending: bool,
    retry_failed: bool,
    /// The last limit the stream named, until a call got through after it: a run that
    /// recovered from a limit and then failed otherwise failed, it was not limited.
    limit: Option<RateLimited>,
    /// This session's model showed output (see [`SessionSummary::answered`]).
    answered: bool,
    /// Some usage of this session reported tokens (see [`SessionSummary::tokens_known`]).
    tokens_reported: bool,
    /// The model said something since the last model call ended.
    call_said: bool,
    /// See [`SessionSummary::empty_calls_in_a_row`].
    empty_calls: u32,
    /// The session's stream was cut before its terminal event (see
    /// [`SessionSummary::stream_ended`]).
    cut: bool,
}

/// The sums of the sessions that ended before the current one: each agent process
/// reports its own totals, so those of one session never replace another's.
#[derive(Clone, Debug, Default, PartialEq)]
struct Earlier {
    /// `None` before the first session ends.
    usage: Option<(Tokens, Option<f64>, CostKind)>,
    turns: u32,
    tokens_reported: bool,
    /// Some earlier session's stream was cut.
    cut: bool,
}

impl State {
    /// The current session's tokens, cost and cost kind: the agent's own totals when it
    /// gave them, else the sum of its turns.
    fn session_usage(&self) -> (Tokens, Option<f64>, CostKind) {
        let (tokens, cost, kind) = match self.totals {
            Some(totals) => totals,
            None => (
                self.turn_tokens,
                self.turn_cost,
                self.turn_cost_kind.unwrap_or(CostKind::Unknown),
            ),
        };
        // A cut stream's reported cost is its finished calls': the call in flight was
        // billed and priced nowhere, so the cost is the least it spent (`unknown`, with
        // the known part). ralph's estimate (a Claude Code's) stays one: it prices the
        // call in flight too, from what its response began with.
        match kind {
            CostKind::Reported if self.cut => (tokens, cost, CostKind::Unknown),
            _ => (tokens, cost, kind),
        }
    }

    /// Whether this session used anything: it reported usage, or its model answered
    /// (billed, reported or not). One that did neither spent nothing and adds nothing.
    fn spent(&self) -> bool {
        self.saw_turn_usage || self.totals.is_some() || self.answered
    }

    fn session_turns(&self) -> u32 {
        if self.saw_turn_usage {
            self.ok_turns
        } else {
            self.run_turns
        }
    }
}

/// The sum of two sessions' usage: a cost known in neither stays unknown.
fn add_usage(
    (tokens, cost, kind): (Tokens, Option<f64>, CostKind),
    (more_tokens, more_cost, more_kind): (Tokens, Option<f64>, CostKind),
) -> (Tokens, Option<f64>, CostKind) {
    let mut sum = tokens;
    sum.add(&more_tokens);
    let cost = match (cost, more_cost) {
        (None, None) => None,
        (a, b) => Some(a.unwrap_or(0.0) + b.unwrap_or(0.0)),
    };
    (sum, cost, kind.combine(more_kind))
}

impl SessionSummary {
    /// A summary that estimates, with `pricing`, what the calls its agent reports without
    /// a cost spent: the session's cost until the agent's own total comes, and what
    /// [`SessionSummary::cost_for_budget`] adds after it.
    pub fn with_pricing(mut self, pricing: Pricing) -> Self {
        self.unpriced = Unpriced::new(pricing);
        self
    }

    /// What the run has spent so far, to hold against a cost budget: `cost_usd`, plus
    /// ralph's estimate (list prices, see [`SessionSummary::with_pricing`]) of the calls
    /// the agent reported without a cost after it last priced its session (a steered
    /// Claude Code's next turn), which `cost_usd`, the agent's own total, does not
    /// include. `None` when nothing is known or estimated.
    pub fn cost_for_budget(&self) -> Option<f64> {
        let estimated = self.unpriced.uncovered_usd(self.state.totals.is_none());
        match self.cost_usd {
            Some(cost) => Some(cost + estimated),
            None if estimated > 0.0 => Some(estimated),
            None => None,
        }
    }

    /// Another agent session begins (a ralph capture's next attempt or iteration): its
    /// usage and turns add to those so far, and its verdict replaces theirs. Within one
    /// session an agent's totals are cumulative and replace each other (a second Claude
    /// `result` repeats the session's cost), so only ralph, which starts each process,
    /// can say where one ends.
    pub fn begin_session(&mut self) {
        let s = &mut self.state;
        // Without the agent's total the session's cost is its calls', estimates included.
        let shown = s.totals.is_none();
        if s.spent() || s.run_turns > 0 {
            let session = s.session_usage();
            s.earlier.usage = Some(match s.earlier.usage {
                Some(earlier) => add_usage(earlier, session),
                None => session,
            });
            s.earlier.turns = s.earlier.turns.saturating_add(s.session_turns());
            s.earlier.tokens_reported |= s.tokens_reported;
            s.earlier.cut |= s.cut;
        }
        self.state = State {
            earlier: std::mem::take(&mut self.state.earlier),
            ..State::default()
        };
        self.unpriced.next_session(shown);
        self.refresh();
    }

    /// Updates the summary with one event.
    pub fn observe(&mut self, event: &AgentEvent<'_>) {
        match event {
            AgentEvent::SessionStarted {
                session_id, model, ..
            } => {
                if let Some(id) = session_id {
                    self.session_id = Some(id.to_string());
                }
                if let Some(model) = model {
                    self.model = Some(model.to_string());
                }
            }
            AgentEvent::TextDelta { text } | AgentEvent::ThinkingDelta { text } => {
                self.answer();
                self.said |= !text.is_empty();
                self.state.call_said |= !text.is_empty();
            }
            AgentEvent::ToolCallStarted { .. } => {
                self.answer();
                self.said = true;
                self.state.call_said = true;
                self.tool_calls += 1;
            }
            AgentEvent::ToolCallFinished { is_error, .. } => {
                if *is_error {
                    self.tool_errors += 1;
                }
            }
            AgentEvent::MessageFinished { text, stop, error } => {
                // A failed call (a 429, an overloaded provider) answered nothing.
                if !stop.is_failure() {
                    self.answer();
                }
                let s = &mut self.state;
                s.last_stop = Some(*stop);
                s.run_result = None;
                if stop.is_failure() {
                    if let Some(error) = error {
                        push_error(&mut self.errors, error);
                        note_limit(&mut self.state.limit, error, None);
                    }
                } else {
                    self.said |= !text.is_empty();
                    let s = &mut self.state;
                    // Copilot reports a call's tool requests after its usage: the stop
                    // says the model asked for one.
                    s.call_said |= !text.is_empty() || *stop == Stop::ToolUse;
                    s.retry_pending = false;
                    s.retry_failed = false;
                    // A call got through after the limit: a later failure is not it.
                    s.limit = None;
                    self.final_text = Some(text.to_string());
                    self.final_cut_at_length = *stop == Stop::Length;
                }
            }
            AgentEvent::TurnFinished { usage, is_error } => {
                let s = &mut self.state;
                s.saw_turn_usage = true;
                s.tokens_reported |= reports_tokens(usage);
                // A failed call is no answer: it neither makes nor breaks a run of empty ones.
                if !is_error {
                    let empty = !s.call_said
                        && usage.tokens.total() == 0
                        && usage.cost_usd.is_none_or(|cost| cost == 0.0);
                    s.empty_calls = if empty { s.empty_calls + 1 } else { 0 };
                }
                s.call_said = false;
                if !is_error {
                    s.ok_turns += 1;
                }
                s.turn_tokens.add(&usage.tokens);
                // A call without a cost counts at ralph's estimate where its model has a
                // price: without the agent's total (Claude Code stopped before its
                // `result`) that is the best figure there is, and it says it is one.
                let (cost, kind) = match self.unpriced.price_call(usage, self.model.as_deref()) {
                    Some(estimate) => (Some(estimate), CostKind::Estimated),
                    None => (usage.cost_usd, usage.cost_kind),
                };
                let s = &mut self.state;
                if let Some(cost) = cost {
                    s.turn_cost = Some(s.turn_cost.unwrap_or(0.0) + cost);
                }
                s.turn_cost_kind = Some(match s.turn_cost_kind {
                    Some(earlier) => earlier.combine(kind),
                    None => kind,
                });
                self.note_model(usage);
            }
            AgentEvent::RetryStarted { .. } => self.state.retry_pending = true,
            AgentEvent::RetryFinished { success, error, .. } => {
                self.state.retry_pending = false;
                if *success {
                    // The retry got through the limit (see `MessageFinished`).
                    self.state.limit = None;
                } else {
                    self.state.retry_failed = true;
                    if let Some(error) = error {
                        push_error(&mut self.errors, error);
                        note_limit(&mut self.state.limit, error, None);
                    }
                }
            }
            AgentEvent::RunFinished {
                is_error,
                error,
                turns,
                totals,
                ..
            } => {
                self.terminal_event = true;
                self.state.run_result = Some(*is_error);
                if *is_error && let Some(error) = error {
                    push_error(&mut self.errors, error);
                    note_limit(&mut self.state.limit, error, None);
                }
                // Claude counts the failed turn of an error run; only successful turns
                // count here.
                let turns = turns.unwrap_or(0);
                // The agent's number: added without wrapping whatever it says.
                self.state.run_turns = self.state.run_turns.saturating_add(if *is_error {
                    turns.saturating_sub(1)
                } else {
                    turns
                });
                if let Some(totals) = totals {
                    self.state.tokens_reported |= reports_tokens(totals);
                    self.state.totals = Some((totals.tokens, totals.cost_usd, totals.cost_kind));
                    if totals.cost_usd.is_some() {
                        self.unpriced.totals_reported();
                    }
                    self.note_model(totals);
                }
            }
            AgentEvent::RateLimit {
                status: Some(status),
                resets_at,
            } if status.as_ref() == REJECTED => {
                let message = format!("rate limit {status}");
                note_limit(&mut self.state.limit, &message, *resets_at);
            }
            AgentEvent::Compaction { .. }
            | AgentEvent::RateLimit { .. }
            | AgentEvent::UserMessage { .. } => {}
            AgentEvent::NonJson { .. } => self.non_json_lines += 1,
            AgentEvent::Unknown { .. } => self.unknown_events += 1,
            AgentEvent::OversizeLine { .. } => self.oversize_lines += 1,
        }
        self.refresh();
    }

    /// The session's stream, in `format`, ended: all its events were observed. When its
    /// agent ends a whole stream with a terminal event ([`StreamFormat::ends_with_terminal_event`])
    /// and this one ended without it after its model answered or a call of it was
    /// counted (Ctrl-C, an inactivity timeout, a crash), the stream was cut: the call in
    /// flight then was billed and is in no count, nor is what only the agent's totals
    /// count (Claude Code's response cut before its `message_delta`, counted by its
    /// `message_start` alone, its sub-agents' calls). Its tokens are then no longer
    /// called whole ([`SessionSummary::tokens_known`]).
    ///
    /// Where the parser knows when a model call is in flight (OpenCode, whose stream
    /// ends with its process, and pi, which writes nothing more when it is killed), it
    /// ends a call still open when the stream ends as [`Stop::Aborted`], and only such
    /// a stream was cut: one stopped between calls (running a tool) spent what its
    /// priced calls say. A cut stream's reported cost is then the least it spent
    /// ([`CostKind::Unknown`], with the known part).
    pub fn stream_ended(&mut self, format: StreamFormat) {
        let s = &mut self.state;
        // `run_result` is this session's verdict: the terminal event came.
        s.cut = s.run_result.is_none()
            && if marks_calls_in_flight(format) {
                s.last_stop == Some(Stop::Aborted)
            } else {
                format.ends_with_terminal_event() && s.spent()
            };
        self.refresh();
    }

    /// Whether the run succeeded, by its stream, while its model said nothing (no text,
    /// thinking or tool call) and no tokens were counted: a real model's answer costs
    /// at least one output token, so this is an agent taking a reply that was no
    /// model's (an HTML page, an empty body) for an empty answer.
    pub fn answered_nothing(&self) -> bool {
        self.succeeded && !self.said && self.tokens.total() == 0
    }

    /// How many model calls in a row, up to the latest, ended well while their model said
    /// nothing (no text, thinking or tool call) and used no tokens. One such call can be a
    /// model's (rare) empty reply; a run of them is an agent taking replies that are no
    /// model's for empty answers and asking again: OpenCode does so about four times a
    /// second against an HTML page, until something stops it. Failed calls do not count
    /// and do not end a run; a call that said something, or used tokens, ends it.
    pub fn empty_calls_in_a_row(&self) -> u32 {
        self.state.empty_calls
    }

    fn answer(&mut self) {
        self.answered = true;
        self.state.answered = true;
    }

    fn note_model(&mut self, usage: &Usage<'_>) {
        if let Some(model) = &usage.model {
            self.model = Some(model.to_string());
        }
    }

    /// Recomputes the derived public fields from the state.
    fn refresh(&mut self) {
        let s = &self.state;
        let session = s.session_usage();
        (self.tokens, self.cost_usd, self.cost_kind) = match s.earlier.usage {
            // A session that has reported nothing yet adds nothing, not an unknown cost.
            Some(earlier) if s.spent() => add_usage(earlier, session),
            Some(earlier) => earlier,
            None => session,
        };
        self.turns = s.earlier.turns.saturating_add(s.session_turns());
        self.tokens_known =
            (s.earlier.tokens_reported || s.tokens_reported) && !s.earlier.cut && !s.cut;
        self.succeeded = !s.retry_failed
            && match s.run_result {
                Some(is_error) => !is_error,
                // No verdict from the agent (a cut stream, or an agent that has no
                // terminal event): the last message must have ended its answer.
                None => {
                    !s.retry_pending && matches!(s.last_stop, Some(Stop::Completed | Stop::Length))
                }
            };
        self.rate_limited = if self.succeeded {
            None
        } else {
            s.limit.clone()
        };
    }
}

/// Whether the parser of `format` ends a model call still in flight when its stream
/// ends as [`Stop::Aborted`]: its stream was cut exactly when it did. Matched whole, so
/// that a new agent's parser is decided on, not left out by default.
fn marks_calls_in_flight(format: StreamFormat) -> bool {
    match format {
        StreamFormat::Pi | StreamFormat::Opencode => true,
        StreamFormat::Claude
        | StreamFormat::Codex
        | StreamFormat::Gemini
        | StreamFormat::Copilot
        | StreamFormat::Text => false,
    }
}

/// Whether `usage` says anything about tokens: counts, or a cost (an agent that prices
/// a call it reports as zero tokens counted them). Zero tokens at no known cost is what
/// an agent that counts nothing sends.
fn reports_tokens(usage: &Usage<'_>) -> bool {
    usage.tokens.total() > 0 || usage.cost_usd.is_some()
}

/// The status of a refused request's limit: Claude Code's `rate_limit_event` says it, and
/// the OpenCode parser reports a 429 with it.
pub(crate) const REJECTED: &str = "rejected";

/// Keeps `message` as the run's limit when it names one (with the reset time it or the
/// event gives; a later limit with no reset time keeps an earlier one's).
fn note_limit(limit: &mut Option<RateLimited>, message: &str, resets_at: Option<u64>) {
    if !names_limit(message) {
        return;
    }
    let resets_at = resets_at
        .or_else(|| reset_in_message(message))
        .or_else(|| limit.as_ref().and_then(|l| l.resets_at));
    *limit = Some(RateLimited {
        resets_at,
        message: message.to_owned(),
    });
}

fn push_error(errors: &mut Vec<String>, error: &str) {
    if !errors.iter().any(|e| e == error) {
        errors.push(error.to_owned());
    }
}

#[cfg(test)]
#[path = "summary_tests.rs"]
mod tests;
