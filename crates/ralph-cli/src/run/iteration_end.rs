//! The end of an iteration: its report handed to the machine, recorded in the history
//! and told to the observers; the iteration that could not start at all; and the one a
//! killed ralph never ended.

use std::time::{Duration, SystemTime};

use ralph_agent::BuildError;
use ralph_core::event_tag::Tag;
use ralph_core::fsafe::MAX_INBOX_ITERATION_BYTES;
use ralph_core::inbox::{InboxLine, InboxReader};
use ralph_core::machine::{Iteration, IterationOutcome, IterationReport, Next, Notice, Usage};
use ralph_core::run_event::{RunEvent, Totals};
use ralph_core::store::{KilledIteration, RunDir, unix_ms};
use ralph_stream::CostKind;

use super::run_clock::RunClock;
use super::{Run, ensure_run_dir, memory, report_notices};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::view::observer::Observer;

/// An iteration whose command line could not be built (`source`: a prompt no agent can
/// take): failed, with nothing spent, its events handed back; the machine then stops
/// the loop, as the next try would build the same prompt.
pub(super) fn not_started(
    run: &mut Run<'_>,
    iteration: Iteration,
    fallback: u32,
    reader: &mut InboxReader,
    session: &RunClock,
    observer: &mut dyn Observer,
    source: BuildError,
) -> Result<(), CliError> {
    let started_at_ms = announce_start(run, &iteration, fallback, 0, session, observer);
    let inbox = read_inbox(reader, iteration.number, observer)?;
    let unstartable = source.to_string();
    let why = CliError::Build {
        hat: iteration.hat.clone(),
        source,
    };
    let outcome = IterationOutcome::Failed {
        reason: why.to_string(),
    };
    run.steering.not_started(observer);
    let mut report = unrun_report(run, &iteration, fallback, started_at_ms, outcome, inbox);
    report.unstartable = Some(unstartable);
    conclude(run, iteration, report, session, observer, None)
}

/// The sender of the first line past `offset` in `run_dir`'s inbox: on a continued run,
/// an earlier attempt at the iteration that runs first (see `Run::earlier_attempt`).
/// Read apart from the loop's reader, which reads those lines with the iteration's own.
pub(super) fn earlier_attempt(run_dir: &RunDir, offset: u64) -> Option<String> {
    let lines = InboxReader::new(run_dir.inbox(), offset).read().ok()?;
    previous_agent(&lines)
}

/// The agent a ralph that stopped before saving ran, from the lines it left past the
/// saved offset: its token died with it, but the agent ran first in its iteration (the
/// gates only after it ended), so the first sender the lines name is the agent's. Lines
/// without one are from outside, as in any iteration.
fn previous_agent(lines: &[InboxLine]) -> Option<String> {
    lines.iter().find_map(InboxLine::sender).map(str::to_owned)
}

/// Takes the lines `earlier` (a lost attempt's agent) sent as those of `agent`, the
/// agent that ran the iteration again: the same hat's work on the same iteration, not
/// events from outside.
pub(super) fn adopt_earlier(inbox: &mut [InboxLine], earlier: &str, agent: Option<&str>) {
    let Some(agent) = agent else { return };
    for line in inbox {
        if let InboxLine::Event { sender, .. } = line
            && sender.as_deref() == Some(earlier)
        {
            *sender = Some(agent.to_owned());
        }
    }
}

/// What the run's record says of the iteration a killed ralph was in, read before this
/// ralph writes to the record.
pub(crate) struct Killed {
    /// When it started and how long it ran as far as the record shows
    /// (`RunDir::killed_iteration`); `None` when the record does not show it (killed
    /// between iterations, no record).
    shown: Option<KilledIteration>,
}

impl Killed {
    /// Reads, for a continued run whose saved state counts `iterations`, what the record
    /// shows of the iteration after them.
    pub(crate) fn read(run_dir: &RunDir, iterations: u32) -> Killed {
        let number = iterations.saturating_add(1);
        let shown = run_dir.killed_iteration(number).unwrap_or_else(|e| {
            diagnostic(format_args!(
                "warning: cannot read `{}` ({e}): the iteration ralph was killed in is \
                 recorded as having run for no time, from now",
                run_dir.run_events().display()
            ));
            None
        });
        Killed { shown }
    }

    /// The run's time when ralph was killed, as far as the record shows: what the saved
    /// state leaves out is the killed iteration's.
    pub(crate) fn runtime_ms(&self) -> Option<u64> {
        self.shown.map(|k| k.runtime_ms)
    }
}

/// `--continue` after ralph was killed (SIGKILL, a crash) during an iteration: what that
/// iteration's agent emitted is in the inbox past the saved offset, and the events of the
/// `<event>` tags in its answers in `answer-tags.jsonl` (`keep_tags`, with the tags it
/// refused, whose notices are given then as they would have been). Left there, they
/// would be read as the next iteration's, or lost, and the hat that already handed over
/// would run again and hand over twice. So the iteration ends now, as interrupted (what
/// it emitted and tagged is published; a hat that did neither gets its events again),
/// with its cost unknown: it was billed, and nothing reported it, and the start and the
/// time it ran as far as the record shows (`killed`).
pub(super) fn killed(
    run: &mut Run<'_>,
    killed: Killed,
    reader: &mut InboxReader,
    session: &RunClock,
    observer: &mut dyn Observer,
) -> Result<(), CliError> {
    let inbox = read_inbox(reader, run.machine.state().iterations, observer)?;
    // The iteration the killed ralph was in: the one after the last it saved.
    let interrupted = run.machine.state().iterations.saturating_add(1);
    let tags = run.run_dir.answer_tags_of(interrupted).unwrap_or_else(|e| {
        diagnostic(format_args!(
            "warning: cannot read `{}` ({e}): the events its agent wrote as `<event>` tags \
             in its answers are lost",
            run.run_dir.answer_tags().display()
        ));
        Vec::new()
    });
    if inbox.is_empty() && tags.is_empty() {
        return Ok(());
    }
    let Next::Run(iteration) = run.machine.next(session.elapsed()) else {
        return Ok(());
    };
    diagnostic(format_args!(
        "warning: ralph was killed during iteration {} (hat `{}`): ended now as interrupted, \
         with what its agent had emitted and written as `<event>` tags in its answers",
        iteration.number, iteration.hat
    ));
    // Its record keeps the start the killed ralph gave it, not this one's.
    let announced = announce_start(run, &iteration, 0, 0, session, observer);
    let started_at_ms = killed.shown.map_or(announced, |k| k.started_at_ms);
    let outcome = IterationOutcome::Interrupted;
    let agent_run = previous_agent(&inbox);
    let mut report = unrun_report(run, &iteration, 0, started_at_ms, outcome, inbox);
    report.agent_run = agent_run;
    report.tags = tags;
    report.duration = killed.shown.map(|k| k.ran).unwrap_or_default();
    report.usage = Usage {
        cost_kind: CostKind::Unknown,
        answered: true,
        ..Usage::default()
    };
    conclude(run, iteration, report, session, observer, None)?;
    run.machine.go_on_after_kill();
    Ok(())
}

/// Keeps `tags`, read from an answer of `iteration`'s agent, on disk as they are read: a
/// ralph killed before the iteration ends would lose their events and the notices of
/// those refused, where what the agent emitted is in the inbox (see `killed`). A failure
/// costs only that.
pub(super) fn keep_tags(run_dir: &RunDir, iteration: u32, tags: &[Tag]) {
    if tags.is_empty() {
        return;
    }
    if let Err(e) = run_dir.keep_answer_tags(iteration, tags) {
        diagnostic(format_args!(
            "warning: cannot keep the `<event>` tags of iteration {iteration} in `{}` ({e}): \
             if ralph is killed before the iteration ends, `--continue` will not know them",
            run_dir.answer_tags().display()
        ));
    }
}

/// Forgets the tags kept by [`keep_tags`]: an attempt starts, or the iteration they were
/// read in has ended.
pub(super) fn forget_tags(run_dir: &RunDir) {
    if let Err(e) = run_dir.forget_answer_tags() {
        diagnostic(format_args!(
            "warning: cannot remove `{}` ({e}): after a kill, `--continue` could publish \
             those tags again",
            run_dir.answer_tags().display()
        ));
    }
}

/// `iteration_started` for `iteration` on the hat's backend `fallback`, with `wall_secs`
/// of wall clock (0 for one whose agent does not run now); returns when it started.
pub(super) fn announce_start(
    run: &Run<'_>,
    iteration: &Iteration,
    fallback: u32,
    wall_secs: u64,
    session: &RunClock,
    observer: &mut dyn Observer,
) -> u64 {
    let config = run.config;
    let started_at_ms = unix_ms(SystemTime::now());
    let hat_name = (config.hats.iter().find(|h| h.id == iteration.hat))
        .map_or(iteration.hat.as_str(), |h| h.name.as_str());
    let backend = run.agents.on(&iteration.hat, fallback).kind.name();
    observer.observe(&RunEvent::IterationStarted {
        iteration: iteration.number,
        attempt: run.machine.attempt(),
        max_iterations: config.event_loop.max_iterations,
        hat: &iteration.hat,
        hat_name,
        backend,
        events: &iteration.events,
        wall_secs,
        started_at_ms,
        elapsed_ms: run.machine.runtime_ms_at(session.elapsed()),
    });
    started_at_ms
}

/// The report of an iteration whose agent did not run now (started at `started_at_ms`):
/// nothing spent, no gates, its inbox what was emitted.
fn unrun_report(
    run: &Run<'_>,
    iteration: &Iteration,
    fallback: u32,
    started_at_ms: u64,
    outcome: IterationOutcome,
    inbox: Vec<InboxLine>,
) -> IterationReport {
    IterationReport {
        outcome,
        final_text: None,
        final_cut_at_length: false,
        usage: Usage::default(),
        inbox,
        tags: Vec::new(),
        agent_run: None,
        duration: Duration::ZERO,
        backend: run
            .agents
            .on(&iteration.hat, fallback)
            .kind
            .name()
            .to_owned(),
        fallback,
        started_at_ms,
        gates: Vec::new(),
        unfinished_tasks: memory::unfinished_tasks(run.config, &run.workspace, run.run_dir.id()),
        start_failure: None,
        unstartable: None,
    }
}

/// What the agent of iteration `number` published: the inbox's new lines, with a
/// warning when more are left for the next read and a notice when the inbox was
/// replaced or cut.
pub(super) fn read_inbox(
    reader: &mut InboxReader,
    number: u32,
    observer: &mut dyn Observer,
) -> Result<Vec<InboxLine>, CliError> {
    // All of it, not one slice: the agent's events past the first would be read with
    // the next iteration's, as from outside, and its promise or hand-off refused.
    let inbox = reader
        .read_through(MAX_INBOX_ITERATION_BYTES)
        .map_err(|e| CliError::io("read the event inbox", reader.path(), e))?;
    if reader.deferred() > 0 {
        diagnostic(format_args!(
            "warning: the event inbox `{}` has {} more bytes than one iteration reads ({} \
             bytes); the rest is read after the next iteration, as from outside its agent",
            reader.path().display(),
            reader.deferred(),
            MAX_INBOX_ITERATION_BYTES
        ));
    }
    if let Some(restart) = reader.take_restart() {
        observer.observe(&RunEvent::Notice {
            iteration: Some(number),
            notice: &Notice::InboxRestarted { restart },
        });
    }
    Ok(inbox)
}

/// Hands the iteration's `report` to the machine, records it and says how it ended.
pub(super) fn conclude(
    run: &mut Run<'_>,
    iteration: Iteration,
    report: IterationReport,
    session: &RunClock,
    observer: &mut dyn Observer,
    stderr_tail: Option<&str>,
) -> Result<(), CliError> {
    let number = iteration.number;
    let mut record = run.machine.finish(iteration, report, session.elapsed());
    record.steering = run
        .steering
        .end_iteration(run.machine.state().iterations.saturating_add(1));
    ensure_run_dir(&run.run_dir)?;
    run.run_dir
        .append_history(&record)
        .map_err(|e| CliError::io("append to", run.run_dir.history(), e))?;
    // Its tags are the history's now: an attempt of the same iteration after a limit
    // must not find them again after a kill.
    forget_tags(&run.run_dir);
    if !record.events.is_empty() || !record.outside.is_empty() || record.invalid_lines > 0 {
        observer.observe(&RunEvent::EventsEmitted {
            iteration: number,
            events: &record.events,
            from_tags: record.from_tags,
            outside: &record.outside,
            invalid_lines: record.invalid_lines,
            verified: &record.verified,
            withheld: &record.withheld,
        });
    }
    report_notices(&mut run.machine, Some(number), observer);
    observer.observe(&RunEvent::IterationFinished {
        iteration: number,
        hat: &record.hat,
        backend: &record.backend,
        model: record.model.as_deref(),
        outcome: &record.outcome,
        duration_ms: record.duration_ms,
        cost_usd: record.cost_usd,
        cost_kind: record.cost_kind,
        tokens: record.tokens,
        tokens_known: record.tokens_known,
        turns: record.turns,
        completion: record.completion,
        stderr_tail,
        totals: Totals::of(run.machine.state()),
    });
    Ok(())
}
