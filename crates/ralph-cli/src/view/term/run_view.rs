//! How a whole run looks: a line about the run, a header per iteration, the agent's
//! activity (through [`AgentView`], the one agent renderer), what it emitted, notices, a
//! footer per iteration with its outcome and usage against the run's limits, and why the
//! loop stopped.
//!
//! Pure text with ANSI styles: the caller decides whether styles reach the screen, and
//! whether a status line (spinner) is drawn; [`RunView::activity`] says what to put on
//! it. Each event is rendered once, in order, and nothing written is redrawn, so the
//! cost stays linear in the output.

use anstyle::Style;
use ralph_core::event::Event;
use ralph_core::machine::{IterationOutcome, Notice, format_usd_limit};
use ralph_core::run_event::{Limits, RunEvent};
use ralph_core::token_count::TokenCount;
use ralph_core::visible::visible;
use ralph_stream::AgentEvent;

use super::agent::AgentView;
use super::closing::{ContextUse, HatTable};
use super::emitted_lines;
use super::ending::{Ending, STDERR_LINES};
use super::figures::{attempt_part, clock, count, duration_ms, iteration_cost};
use super::gate_lines;
use super::limit_lines;
use super::palette;
use super::tool_preview::{one_line, preview, shortened};
use crate::view::columns::columns;

/// How much a run shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Detail {
    /// Only why the loop stopped.
    Quiet,
    Normal,
    /// Thinking, tool output and the agent's non-JSON lines too.
    Verbose,
}

/// What the agent of the current iteration is doing, for a status line.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Activity {
    /// Started; nothing heard from it yet.
    Starting,
    /// Reasoning (shown dimmed with `-v`, hidden otherwise).
    Thinking,
    /// Running tools: the latest started, and how many others are still running.
    Running { tool: String, others: usize },
    /// Waiting for the model's next words.
    Waiting,
    /// The agent is done; ralph runs a gate.
    Gate { name: String },
}

impl Activity {
    pub(crate) fn describe(&self, backend: &str) -> String {
        match self {
            Activity::Starting => format!("starting {backend}"),
            Activity::Thinking => "thinking".to_owned(),
            Activity::Running { tool, others: 0 } => format!("running {tool}"),
            Activity::Running { tool, others } => format!("running {tool} (+{others} more)"),
            Activity::Waiting => "waiting for the model".to_owned(),
            Activity::Gate { name } => format!("gate {name}"),
        }
    }
}

/// The iteration being shown.
#[derive(Debug)]
struct Current {
    number: u32,
    hat_name: String,
    backend: String,
    model_shown: bool,
    /// Tool calls started and not finished yet: id and one-line label.
    running: Vec<(String, String)>,
    activity: Activity,
}

/// The limits, as shown in footers.
#[derive(Debug)]
struct ShownLimits {
    max_iterations: u32,
    max_runtime_secs: u64,
    max_cost_usd: Option<f64>,
}

impl ShownLimits {
    fn of(limits: &Limits<'_>) -> ShownLimits {
        ShownLimits {
            max_iterations: limits.max_iterations,
            max_runtime_secs: limits.max_runtime_secs,
            max_cost_usd: limits.max_cost_usd,
        }
    }
}

/// Renders a run's events.
#[derive(Debug)]
pub(crate) struct RunView {
    detail: Detail,
    agent: AgentView,
    limits: Option<ShownLimits>,
    /// The run's time as last reported (when the current iteration started).
    elapsed_ms: u64,
    current: Option<Current>,
    /// The terminal's width, when the view is shown on one: long header lines are broken
    /// between their ` · ` parts instead of by the terminal, mid-word.
    width: Option<usize>,
    /// The current iteration's context use, for its footer.
    context: ContextUse,
    /// The run's hats, with the iterations shown per hat for the closing table (only
    /// a run with hats gets one).
    has_hats: bool,
    hat_table: HatTable,
    steering: super::steer_view::SteerCount,
    /// The workspace as seen from where ralph was started, when that is elsewhere
    /// (`--worktree`): the paths the run gives relative to it are shown from there.
    pub(crate) workspace_shown: Option<std::path::PathBuf>,
}

impl RunView {
    pub(crate) fn new(detail: Detail) -> RunView {
        RunView {
            detail,
            agent: AgentView::new(detail == Detail::Verbose),
            limits: None,
            elapsed_ms: 0,
            current: None,
            width: None,
            context: ContextUse::default(),
            has_hats: false,
            hat_table: HatTable::default(),
            steering: Default::default(),
            workspace_shown: None,
        }
    }

    /// Sets the terminal's width (`None` when not on a terminal: lines are not broken).
    pub(crate) fn set_width(&mut self, width: Option<usize>) {
        self.width = width;
    }

    /// `text` broken into lines of at most the terminal's width, between ` · ` parts.
    fn fit(&self, text: &str) -> String {
        match self.width {
            Some(width) => fit_parts(text, width),
            None => text.to_owned(),
        }
    }

    /// The current iteration's number, hat and backend, while one runs.
    pub(crate) fn iteration(&self) -> Option<(u32, &str, &str)> {
        self.current
            .as_ref()
            .map(|c| (c.number, c.hat_name.as_str(), c.backend.as_str()))
    }

    /// What the current iteration's agent is doing, while one runs.
    pub(crate) fn activity(&self) -> Option<&Activity> {
        self.current.as_ref().map(|c| &c.activity)
    }

    /// Renders one event, appending what it shows (with ANSI styles) to `out`.
    pub(crate) fn render(&mut self, event: &RunEvent<'_>, out: &mut String) {
        if let RunEvent::Agent { event, .. } = event {
            self.track(event);
            self.context.track(event);
        }
        if self.detail == Detail::Quiet {
            if let RunEvent::LoopFinished { .. } = event {
                self.finished(event, out);
            }
            return;
        }
        // The longer arms are methods, each handed the event its arm matched.
        match event {
            RunEvent::LoopStarted { .. } => self.loop_started(event, out),
            RunEvent::IterationStarted { .. } => self.iteration_started(event, out),
            RunEvent::Agent { event, .. } => self.agent_event(event, out),
            RunEvent::EventsEmitted { .. } => self.events_emitted(event, out),
            RunEvent::GateStarted {
                gate,
                command,
                event,
                ..
            } => {
                self.agent.finish(out);
                if let Some(current) = self.current.as_mut() {
                    current.activity = Activity::Gate {
                        name: (*gate).to_owned(),
                    };
                }
                let (style, text) = gate_lines::started(gate, command, *event);
                line(out, style, &text);
            }
            RunEvent::RateLimitWait {
                iteration,
                hat,
                wait_secs,
                resets_at,
                ..
            } => {
                self.agent.finish(out);
                let text = limit_lines::wait(*iteration, Some(hat), *wait_secs, *resets_at);
                line(out, palette::NOTICE, &text);
            }
            RunEvent::Failover {
                iteration,
                from,
                from_fallback,
                to,
                to_fallback,
                ..
            } => {
                let text =
                    limit_lines::failover(*iteration, from, *from_fallback, to, *to_fallback);
                line(out, palette::NOTICE, &text);
            }
            RunEvent::GateFinished { result, .. } => {
                for (style, text) in gate_lines::finished(result) {
                    line(out, style, &text);
                }
            }
            // Already said on stderr when it happened, before the run began.
            RunEvent::Notice {
                notice: Notice::LeftoversStopped { .. },
                ..
            } => {}
            RunEvent::Notice { notice, .. } => {
                self.agent.finish(out);
                line(out, palette::NOTICE, &format!("note: {notice}"));
            }
            RunEvent::IterationFinished { .. } => self.iteration_finished(event, out),
            RunEvent::LoopFinished { .. } => {
                self.agent.finish(out);
                out.push('\n');
                self.finished(event, out);
            }
            // Said on stderr, where errors go in text mode.
            RunEvent::Error { .. } => {}
            RunEvent::HookStarted { .. } | RunEvent::HookFinished { .. } => {
                self.agent.finish(out);
                super::hook_view::render(event, self.detail, out);
            }
            RunEvent::SteerReceived { .. } | RunEvent::SteerDelivered { .. } => {
                self.agent.finish(out);
                self.steering.render(event, self.detail, out);
            }
        }
    }

    /// The line about the run.
    fn loop_started(&mut self, event: &RunEvent<'_>, out: &mut String) {
        let RunEvent::LoopStarted {
            run_id,
            resumed,
            backend,
            hats,
            limits,
            totals,
            ..
        } = event
        else {
            return;
        };
        self.limits = Some(ShownLimits::of(limits));
        self.has_hats = !hats.is_empty();
        self.elapsed_ms = totals.elapsed_ms;
        let run = if *resumed {
            format!(
                "continuing run {run_id} after {}",
                count(u64::from(totals.iterations), "iteration", "iterations")
            )
        } else {
            format!("run {run_id}")
        };
        let hats = if hats.is_empty() {
            String::new()
        } else {
            format!(" · hats {}", hats.join(", "))
        };
        let budget = limits
            .max_cost_usd
            .map(|c| format!(", {}", format_usd_limit(c)))
            .unwrap_or_default();
        let intro = format!(
            "ralph {run} · {backend}{hats} · limits: {}, {}{budget}",
            count(u64::from(limits.max_iterations), "iteration", "iterations"),
            duration_ms(limits.max_runtime_secs * 1000),
        );
        line(out, palette::DIM, &self.fit(&intro));
    }

    /// An iteration's header; the view starts over for its agent.
    fn iteration_started(&mut self, event: &RunEvent<'_>, out: &mut String) {
        let RunEvent::IterationStarted {
            iteration,
            attempt,
            max_iterations,
            hat_name,
            backend,
            elapsed_ms,
            ..
        } = event
        else {
            return;
        };
        // The run's own clock: the totals of the iteration before leave out the waits,
        // gates and hooks since.
        self.elapsed_ms = *elapsed_ms;
        self.agent = AgentView::new(self.detail == Detail::Verbose);
        self.context = ContextUse::default();
        self.current = Some(Current {
            number: *iteration,
            hat_name: (*hat_name).to_owned(),
            backend: (*backend).to_owned(),
            model_shown: false,
            running: Vec::new(),
            activity: Activity::Starting,
        });
        out.push('\n');
        let attempt = attempt_part(*attempt);
        let parts = format!(
            "iteration {iteration}/{max_iterations}{attempt} · {hat_name} · {backend} · run \
             time {}",
            clock(self.elapsed_ms)
        );
        let framed = format!("── {parts} ──");
        // On a narrow terminal the frame goes first, then the parts break.
        let header = match self.width {
            Some(width) if columns(&framed) > width => self.fit(&parts),
            _ => framed,
        };
        line(out, palette::HEADER, &header);
    }

    /// One of the agent's events, with its model the first time the iteration names it.
    fn agent_event(&mut self, event: &AgentEvent<'_>, out: &mut String) {
        if let AgentEvent::SessionStarted {
            model: Some(model),
            provider,
            ..
        } = event
            && let Some(current) = self.current.as_mut()
            && !current.model_shown
        {
            current.model_shown = true;
            self.agent.finish(out);
            let provider = provider
                .as_deref()
                .map(|p| format!(" ({p})"))
                .unwrap_or_default();
            line(out, palette::DIM, &format!("model {model}{provider}"));
        }
        self.agent.render(event, out);
    }

    /// What the iteration emitted, and inbox lines that were no event.
    fn events_emitted(&mut self, event: &RunEvent<'_>, out: &mut String) {
        let RunEvent::EventsEmitted {
            events,
            from_tags,
            outside,
            invalid_lines,
            verified,
            withheld,
            ..
        } = event
        else {
            return;
        };
        self.agent.finish(out);
        for text in emitted_lines::emitted(events, *from_tags, verified, withheld, shown_event) {
            line(out, palette::EVENT, &text);
        }
        // Not the agent's: said apart, so nobody reads it as the hat's hand-over.
        for event in *outside {
            line(
                out,
                palette::EVENT,
                &format!("⇢ from outside the agent: {}", shown_event(event)),
            );
        }
        if *invalid_lines > 0 {
            line(
                out,
                palette::NOTICE,
                &if *invalid_lines == 1 {
                    "⚠ 1 inbox line was not an event".to_owned()
                } else {
                    format!("⚠ {invalid_lines} inbox lines were not events")
                },
            );
        }
    }

    /// An iteration's footer: its outcome and usage, its stderr when it failed, and the run
    /// against its limits.
    fn iteration_finished(&mut self, event: &RunEvent<'_>, out: &mut String) {
        let RunEvent::IterationFinished {
            iteration,
            outcome,
            duration_ms: ms,
            cost_usd,
            cost_kind,
            tokens,
            tokens_known,
            turns,
            stderr_tail,
            totals,
            model,
            hat,
            ..
        } = event
        else {
            return;
        };
        self.agent.finish(out);
        self.current = None;
        // The run counts the attempt when its count reached it: a limited
        // attempt that runs again stays out, as in the totals.
        let counted = totals.iterations >= *iteration;
        self.hat_table.add(
            hat,
            counted,
            *cost_usd,
            *cost_kind,
            TokenCount::of(tokens.total(), *tokens_known),
        );
        self.elapsed_ms = totals.elapsed_ms;
        let (style, mark) = outcome_mark(outcome);
        let mut footer = format!("{mark} iteration {iteration} {}", footer_words(outcome));
        for part in [
            duration_ms(*ms),
            count(u64::from(*turns), "turn", "turns"),
            TokenCount::of(tokens.total(), *tokens_known).words(),
            iteration_cost(*cost_usd, *cost_kind),
        ] {
            footer.push_str(" · ");
            footer.push_str(&part);
        }
        if let Some(model) = model {
            footer.push_str(&format!(" · {model}"));
        }
        if let Some(context) = self.context.shown(*model) {
            footer.push_str(&format!(" · {context}"));
        }
        line(out, style, &self.fit(&footer));
        if let Some(tail) = stderr_tail {
            let lines: Vec<&str> = tail.trim_end().lines().collect();
            let from = lines.len().saturating_sub(STDERR_LINES);
            for l in &lines[from..] {
                line(out, palette::DIM, &format!("  stderr: {}", one_line(l)));
            }
        }
        line(
            out,
            palette::DIM,
            &format!("  run: {}", self.against_limits(totals)),
        );
    }

    /// Follows the agent's activity for the status line.
    fn track(&mut self, event: &AgentEvent<'_>) {
        let Some(current) = self.current.as_mut() else {
            return;
        };
        match event {
            AgentEvent::ToolCallStarted { id, name, args, .. } => {
                let args = preview(args);
                let label = if args.is_empty() {
                    name.to_string()
                } else {
                    format!("{name}  {args}")
                };
                current.running.push((id.to_string(), label));
            }
            AgentEvent::ToolCallFinished { id, .. } => {
                current.running.retain(|(open, _)| open != id.as_ref());
            }
            AgentEvent::ThinkingDelta { .. } => {
                current.activity = Activity::Thinking;
                return;
            }
            // The activity follows tools and thinking only; any other kind of event
            // (including kinds added later) leaves it to what the tools say.
            _ => {}
        }
        current.activity = match current.running.last() {
            Some((_, label)) => Activity::Running {
                tool: label.clone(),
                others: current.running.len() - 1,
            },
            None => Activity::Waiting,
        };
    }
}

/// The style and mark of an iteration's footer.
/// The most characters of an outcome's words a footer shows: a failure's reason is the
/// agent's error, which can be a proxy's error page; the run's history keeps it whole.
const FOOTER_OUTCOME_CHARS: usize = 400;

/// An outcome's words on one line (an error page's line breaks and carriage returns made
/// spaces), cut to [`FOOTER_OUTCOME_CHARS`].
fn footer_words(outcome: &IterationOutcome) -> String {
    let words = outcome.to_string();
    let joined: Vec<&str> = words.split_whitespace().collect();
    shortened(&joined.join(" "), FOOTER_OUTCOME_CHARS)
}

fn outcome_mark(outcome: &IterationOutcome) -> (Style, &'static str) {
    let ending = Ending::of(outcome);
    let style = match ending {
        Ending::Succeeded => palette::SUCCESS,
        Ending::Failed => palette::ERROR,
        Ending::Stopped => palette::NOTICE,
    };
    (style, ending.mark())
}

/// `plan.ready: write hello.txt`, payload on one bounded line.
fn shown_event(event: &Event) -> String {
    match event.payload_text() {
        Some(payload) => one_line(&format!("{}: {payload}", event.topic)),
        None => event.topic.clone(),
    }
}

/// `text` broken between its ` · ` parts into lines of at most `width` terminal columns, each
/// line after the first indented by two spaces; a part longer than a line stays whole.
fn fit_parts(text: &str, width: usize) -> String {
    const SEPARATOR: &str = " · ";
    const INDENT: &str = "  ";
    if columns(text) <= width {
        return text.to_owned();
    }
    let mut lines: Vec<String> = Vec::new();
    let mut current = String::new();
    for part in text.split(SEPARATOR) {
        if current.is_empty() {
            current.push_str(part);
        } else if columns(&current) + columns(SEPARATOR) + columns(part) <= width {
            current.push_str(SEPARATOR);
            current.push_str(part);
        } else {
            lines.push(std::mem::take(&mut current));
            current.push_str(INDENT);
            current.push_str(part);
        }
    }
    lines.push(current);
    lines.join("\n")
}

/// One styled line. Lines quote topics, payloads, hat names and agents' messages, so the
/// text is shown [`visible`]; only ralph's own styles reach the terminal as escapes.
pub(crate) fn line(out: &mut String, style: Style, text: &str) {
    out.push_str(&format!(
        "{}{}{}\n",
        style.render(),
        visible(text),
        style.render_reset()
    ));
}

#[path = "run_view_end.rs"]
mod end;

pub(crate) use end::Pointers;

#[cfg(test)]
#[path = "run_view_tests.rs"]
mod tests;
