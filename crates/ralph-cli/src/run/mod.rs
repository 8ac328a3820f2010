//! The loop's shell: the I/O around the pure state machine.
//!
//! Per iteration: ask the machine for the next hat, build its prompt, start its agent
//! with ralph's environment (`ralph_types::env`: `RALPH_BIN`, `RALPH_EVENTS_FILE`, ...;
//! ralph first on `PATH`)
//! under the iteration's deadlines, hand every agent event to the observer and stop the
//! agent at the turn that crosses the cost budget, read what it emitted from the inbox,
//! tell the machine, append the history line and save the state. While the agent runs,
//! its run directory names it and this ralph (the `leftovers` module), for the next ralph
//! to clean up after a `kill -9`. When the machine says stop: write `summary.md` and the
//! final state (durably) and report why.

mod agent_env;
pub(crate) mod backends;
mod capped_log;
pub(crate) mod gates;
mod git_head;
pub(crate) mod github;
mod hook_hold;
mod hook_log;
pub(crate) mod hooks;
mod inbox_close;
mod iteration_end;
mod iteration_prompt;
pub(crate) mod launch;
pub(crate) mod leftovers;
mod memories;
mod memory;
mod rate_limits;
mod run_clock;
pub(crate) mod signals;
pub(crate) mod steer;
pub(crate) mod steer_target;
pub(crate) mod ticks;
pub(crate) mod transcript;

use std::cell::RefCell;
use std::ffi::OsString;
use std::path::{Path, PathBuf};

use ralph_agent::{Control, Running, StopController, StopLevel, run_agent_teed};
use ralph_core::config::ResolvedConfig;
use ralph_core::event_tag::{read_tags, read_tags_past_prompt};
use ralph_core::inbox::InboxReader;
use ralph_core::machine::{
    EndClass, Iteration, IterationReport, Machine, Next, Notice, RunFacts, Shown, StopReason,
    StoppedBy, Usage, classify, verdict,
};
use ralph_core::run_event::{Limits, RunEvent, Totals};
use ralph_core::store::{CommandLineLimits, Durability, RunDir, STATE_FORMAT, SavedRun};
use ralph_core::summary::{SummaryInput, render_summary};
use ralph_stream::{AgentEvent, StreamDecoder};
use ralph_types::StreamFormat;
use ralph_types::Termination;
use ralph_types::env as var;

use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit;
use crate::view::observer::Observer;
use agent_env::agent_env;
pub(crate) use agent_env::worktree_env;
use backends::Agents;
pub(crate) use iteration_end::Killed;
use iteration_prompt::iteration_prompt;
use launch::{agent_deadlines, command_line, pricing};
use leftovers::AgentRecorder;
use run_clock::RunClock;
pub(crate) use ticks::{frame_ticker, with_ticks};

/// Everything a run starts from.
pub(crate) struct Run<'a> {
    pub(crate) config: &'a ResolvedConfig,
    pub(crate) workspace: PathBuf,
    pub(crate) run_dir: RunDir,
    pub(crate) objective: String,
    pub(crate) machine: Machine,
    pub(crate) inbox_offset: u64,
    pub(crate) resumed: bool,
    pub(crate) agents: Agents,
    /// The limits given on the command line, saved with the run for `--continue`.
    pub(crate) command_line: CommandLineLimits,
    /// What `mutate` hooks added, shown at the end of every prompt (`run/hooks.rs`).
    pub(crate) hook_notes: String,
    /// Keeps the record a later ralph needs if this one is killed while an agent runs,
    /// held from the run's start until it is dropped with the run.
    pub(crate) recorder: AgentRecorder,
    /// What a killed ralph had left running and this one stopped before the run, said
    /// in the run's events after `loop_started`.
    pub(crate) leftovers: Option<Notice>,
    /// A ralph was killed while it ran this (continued) run: the iteration it was in
    /// ends first (`iteration_end::killed`).
    pub(crate) killed: Option<Killed>,
    /// On a continued run, who sent the first line already in the inbox past the saved
    /// offset: an attempt at the first iteration to run, lost when ralph stopped before
    /// saving it (a full disk between the history and the state). Its lines are taken as
    /// that iteration's agent's, as they were written (`iteration_end::adopt_earlier`).
    pub(crate) earlier_attempt: Option<String>,
    /// Where the run's end goes on GitHub Actions (the step summary, annotations).
    pub(crate) github: github::GitHub,
    /// Takes `ralph steer` messages while the run goes on (`run/steer.rs`).
    pub(crate) steering: steer::Steering,
    /// The transcripts' thread, which keeps the raw streams' cap (`run/transcript/`).
    pub(crate) transcripts: transcript::Transcripts,
}

/// Runs the loop until the machine says stop; returns why.
pub(crate) async fn drive(
    mut run: Run<'_>,
    observer: &mut dyn Observer,
    stop: &StopController,
) -> Result<StopReason, CliError> {
    let session = &RunClock::start(stop);
    let mut reader = InboxReader::new(run.run_dir.inbox(), run.inbox_offset);
    // Saved before anything runs, so that `--continue` finds the run (its task, its
    // first event) even when ralph is killed with no chance to save in the first
    // iteration, or in a `loop_start` hook.
    save(&run, &reader, Durability::Atomic)?;
    let env = agent_env(
        &run.run_dir,
        &run.workspace,
        &run.config.event_loop.completion_promise,
    )?;
    announce(&run, observer);
    if let Some(notice) = run.leftovers.take() {
        observer.observe(&RunEvent::Notice {
            iteration: None,
            notice: &notice,
        });
    }
    if let Some(killed) = run.killed.take() {
        iteration_end::killed(&mut run, killed, &mut reader, session, observer)?;
        save(&run, &reader, Durability::Atomic)?;
    }
    if run.resumed {
        run.earlier_attempt = iteration_end::earlier_attempt(&run.run_dir, reader.offset());
    }
    let max_iterations = run.config.event_loop.max_iterations;
    let mut hooks = hooks::Hooks::new(
        &run.config.hooks,
        &run.workspace,
        &run.run_dir,
        max_iterations,
        &env,
        run.steering.news().clone(),
    );
    hooks
        .loop_start(&mut run.machine, session, observer, stop)
        .await;

    let reason = loop {
        // A stop that came while the last iteration ended (its gates, the reaping of
        // what its agent left) beats a limit that iteration reached.
        if stop.current() > StopLevel::None {
            run.machine.interrupt_over_limit(session.elapsed());
        }
        let iteration = match run.machine.next(session.elapsed()) {
            Next::Stop(reason) => break reason,
            Next::Run(iteration) => iteration,
        };
        report_notices(&mut run.machine, None, observer);
        let Some(iteration) =
            rate_limits::wait_for_backend(&mut run, iteration, session, observer, stop).await
        else {
            continue;
        };
        let fallback = rate_limits::pick_backend(&run, &iteration, observer);
        let backend = run.agents.on(&iteration.hat, fallback).kind.name();
        if hooks.at_iteration_start() {
            run.transcripts.wait();
        }
        let Some(iteration) = hooks
            .iteration_start(
                &mut run.machine,
                iteration,
                backend,
                session,
                observer,
                stop,
            )
            .await
        else {
            continue;
        };
        // The hooks may have spent the runtime: no iteration starts past it (the loop
        // then stops at the limit, its events kept for `--continue`).
        if run.machine.runtime_left(session.elapsed()).is_zero() {
            run.machine.give_back(iteration);
            continue;
        }
        run.hook_notes = hooks.prompt_notes();
        iterate(
            &mut run,
            iteration,
            fallback,
            &mut reader,
            &env,
            session,
            observer,
            stop,
        )
        .await?;
        save(&run, &reader, Durability::Atomic)?;
    };
    inbox_close::close_inbox(&mut run, &mut reader, observer)?;
    run.steering.finish(&mut |event| observer.observe(event));
    run.transcripts.wait();
    let reason = hooks
        .loop_end(reason, &mut run.machine, session, observer, stop)
        .await;
    // A completed run cannot be continued: what steering left queued is lost.
    let kept = reason.class() != EndClass::Completed;
    run.steering.report_undelivered(kept, observer);

    save(&run, &reader, Durability::Durable)?;
    let hats: Vec<(&str, &str)> = run
        .config
        .hats
        .iter()
        .map(|h| (h.id.as_str(), h.name.as_str()))
        .collect();
    let summary = render_summary(&SummaryInput {
        run_id: run.run_dir.id(),
        objective: &run.objective,
        reason: &reason,
        state: run.machine.state(),
        max_iterations: run.config.event_loop.max_iterations,
        hats: &hats,
        steering: run.steering.tally(),
    });
    let summary_path = run.run_dir.summary();
    ensure_run_dir(&run.run_dir)?;
    run.run_dir
        .write_summary(&summary, Durability::Durable)
        .map_err(|e| CliError::io("write", &summary_path, e))?;
    let shown = display_path(&summary_path, &run.workspace);
    let git = git_head::git_head(&run.workspace)
        .await
        .unwrap_or_else(|refused| {
            diagnostic(format_args!(
                "warning: the run's git branch and commit are not recorded: git refuses the \
                 repository here:\n{refused}"
            ));
            None
        });
    let end = github::RunEnd {
        reason: reason.name(),
        message: &verdict(&reason, run.machine.state()),
        outcome: reason.class(),
        exit_code: exit::number(exit::CommandOutcome::of_loop(reason.class())),
        totals: Totals::of(run.machine.state()),
        spend: run.machine.state().spend,
        git: git.as_ref(),
        summary_path: &shown,
    };
    observer.observe(&RunEvent::LoopFinished {
        reason: &reason,
        message: end.message.to_owned(),
        outcome: end.outcome,
        exit_code: end.exit_code,
        totals: end.totals,
        summary_path: end.summary_path,
        git: end.git,
    });
    run.github.report(&end);
    Ok(reason)
}

/// One iteration, start to finish, on the hat's backend `fallback` (0 its primary).
#[expect(
    clippy::too_many_arguments,
    reason = "the loop's parts an iteration uses, each borrowed apart"
)]
async fn iterate(
    run: &mut Run<'_>,
    iteration: Iteration,
    fallback: u32,
    reader: &mut InboxReader,
    env: &[(OsString, OsString)],
    session: &RunClock,
    observer: &mut dyn Observer,
    stop: &StopController,
) -> Result<(), CliError> {
    let config = run.config;
    let hat = config.hats.iter().find(|h| h.id == iteration.hat);
    let agent = run.agents.on(&iteration.hat, fallback);
    let prompt = iteration_prompt(run, &iteration, hat, agent.kind, observer);
    let command = match command_line(&agent.config, agent.kind, Some(&agent.program), &prompt) {
        Ok(command) => command,
        // No agent can run with this prompt (too long for an argument, a NUL byte): the
        // iteration fails before it starts, and the loop stops at once, as for a program
        // the system will not run (the iteration handed back would build the same
        // prompt), ending as loops end (summary and end hooks).
        Err(source) => {
            return iteration_end::not_started(
                run, iteration, fallback, reader, session, observer, source,
            );
        }
    };
    let format = command.output_format;
    let run_env = env;
    let mut env = env.to_vec();
    env.push((var::ITERATION.into(), iteration.number.to_string().into()));
    env.push((var::HAT.into(), iteration.hat.clone().into()));
    // A steered agent's input (pi in RPC mode, Claude Code on stream-json): `ralph steer`
    // reaches it mid-turn from when it is spawned until it ends.
    let live = command.live.clone();
    let spec = command.into_spawn_spec(env, Some(run.workspace.clone()));
    let attempt = run.machine.attempt();
    let who = transcript::Who {
        workspace: &run.workspace,
        iteration: iteration.number,
        attempt,
        hat: &iteration.hat,
        backend: agent.kind.name(),
        output_format: format,
    };
    let mut transcript =
        run.transcripts
            .start(&run.run_dir, config.transcripts, &who, &prompt, &spec);
    let wall = run
        .machine
        .iteration_wall(agent.config.deadlines.iteration, session.elapsed());
    let deadlines = agent_deadlines(&agent.config.deadlines, wall.wall);
    let backend = agent.kind.name();
    let started_at_ms = iteration_end::announce_start(
        run,
        &iteration,
        fallback,
        wall.wall.as_secs(),
        session,
        observer,
    );

    let number = iteration.number;
    let machine = &run.machine;
    let mut stopped_by = StoppedBy::Nothing;
    let mut tags = Vec::new();
    let ticks = observer.wants_ticks();
    // The agent's events and the ticks both go to the observer; they take turns on this
    // one thread, and no borrow is held across an await.
    let shared = RefCell::new(&mut *observer);
    // Codex and Gemini report tokens only: their cost comes from the configured prices.
    let decoder =
        StreamDecoder::new(Some(format)).with_pricing(pricing(config, &agent.config, agent.kind));
    let (recorder, steering, run_dir) = (&run.recorder, &run.steering, &run.run_dir);
    iteration_end::forget_tags(run_dir);
    // Until the agent is reaped, a Ctrl-C stops it (and says so).
    let running = stop.running(Running::Agent);
    let agent_run = run_agent_teed(
        spec,
        decoder,
        deadlines,
        stop.requests(),
        |agent| recorder.at_spawn(agent),
        |bytes| transcript.write(bytes),
        |event, summary| {
            match event {
                AgentEvent::UserMessage { .. } => steering.shown_user_message(),
                // ralph-orchestrator's `<event>` tags: from the agent's own answers only.
                // A plain-text agent's output is all it printed, its prompt too if it
                // prints that back: the prompt's own tags are not taken for the agent's.
                AgentEvent::MessageFinished { text, stop, .. } if !stop.is_failure() => {
                    let read = match format {
                        StreamFormat::Text => read_tags_past_prompt(text, &prompt),
                        _ => read_tags(text),
                    };
                    iteration_end::keep_tags(run_dir, number, &read);
                    tags.extend(read);
                }
                _ => {}
            }
            shared.borrow_mut().observe(&RunEvent::Agent {
                iteration: number,
                event,
            });
            let run_ended = matches!(event, AgentEvent::RunFinished { .. });
            let turn_ended = run_ended || matches!(event, AgentEvent::TurnFinished { .. });
            // The one supervisor stops the agent (its group, TERM then KILL) at the call
            // the machine names: the budget's, or the last of a run of empty answers. An
            // agent whose run just ended by itself is not stopped for the budget (there is
            // nothing left to cut short, and saying so would not be true): the loop stops
            // on the limit before the next iteration.
            let stop = turn_ended.then(|| machine.stop_at_call(summary)).flatten();
            match stop.filter(|why| !(run_ended && *why == StoppedBy::CostLimit)) {
                Some(why) => {
                    stopped_by = why;
                    Control::Stop
                }
                None => Control::Continue,
            }
        },
    );
    let tick = ticks.then_some(|now| shared.borrow_mut().tick(now));
    if let Some(live) = live {
        run.steering.slot().set(std::sync::Arc::new(live));
    }
    let agent_run = (run.steering.news())
        .around(agent_run, tick, |event| shared.borrow_mut().observe(event))
        .await;
    run.steering.slot().clear();
    drop(running);
    recorder.after_reap();
    transcript.finish(&mut run.transcripts, &agent_run.outcome.stderr_tail);

    let mut inbox = iteration_end::read_inbox(reader, number, observer)?;
    let summary = &agent_run.summary;
    // Only the agent's own events show it worked: one a person emitted meanwhile does not.
    let agent_token = agent_run.outcome.agent_run.clone();
    if let Some(earlier) = run.earlier_attempt.take() {
        iteration_end::adopt_earlier(&mut inbox, &earlier, agent_token.as_deref());
    }
    let published = inbox
        .iter()
        .any(|line| line.is_event_from(agent_token.as_deref()));
    let shown = if published {
        Shown::Work
    } else if agent_run.outcome.stdout_bytes == 0 {
        Shown::Nothing
    } else if summary.answered_nothing() {
        Shown::EmptyAnswer
    } else {
        Shown::Work
    };
    // Gemini CLI's exit code is the HTTP status of its failed request (a 503 whose body
    // does not say so reads as a plain failure in its stream).
    let exit_limit = match agent_run.outcome.termination {
        Termination::Exited { code } if !summary.succeeded && summary.rate_limited.is_none() => {
            ralph_stream::limit_in_exit_code(
                format,
                code,
                summary.errors.last().map(String::as_str),
            )
        }
        _ => None,
    };
    let outcome = classify(RunFacts {
        termination: &agent_run.outcome.termination,
        stream_succeeded: summary.succeeded,
        errors: &summary.errors,
        stopped_by,
        wall_is_runtime: wall.cut_to_runtime,
        shown,
        rate_limited: summary.rate_limited.as_ref().or(exit_limit.as_ref()),
    });
    run.steering.after_agent(&outcome, observer);
    let failed = outcome.is_failure();
    let mut report = IterationReport {
        outcome,
        final_text: summary.final_text.clone(),
        final_cut_at_length: summary.final_cut_at_length,
        usage: Usage::from_summary(summary),
        inbox,
        tags,
        agent_run: agent_token,
        duration: agent_run.outcome.wall,
        backend: backend.to_owned(),
        fallback,
        started_at_ms,
        gates: Vec::new(),
        unfinished_tasks: memory::unfinished_tasks(config, &run.workspace, run.run_dir.id()),
        start_failure: agent_run.outcome.termination.start_failure().cloned(),
        unstartable: None,
    };
    report.gates = gates::check(run, &iteration, &report, run_env, session, stop, observer).await;
    // A gate may file a task (`ralph tools task add`, with the run's id in its
    // environment) and still pass: that task holds the completion back as the agent's own
    // would, so the list is read again once the gates have run. If it cannot be read
    // now, the first reading stands (and its warning, if any, was given once).
    if !report.gates.is_empty()
        && let Ok(tasks) = memory::read_unfinished_tasks(config, &run.workspace, run.run_dir.id())
    {
        report.unfinished_tasks = tasks;
    }
    run.steering
        .news()
        .report(&mut |event| observer.observe(event));
    let stderr_tail = agent_run.outcome.stderr_tail.trim();
    let stderr_tail = (failed && !stderr_tail.is_empty()).then_some(stderr_tail);
    iteration_end::conclude(run, iteration, report, session, observer, stderr_tail)
}

fn announce(run: &Run<'_>, observer: &mut dyn Observer) {
    let config = run.config;
    let el = &config.event_loop;
    let workspace = run.workspace.display().to_string();
    let run_dir = display_path(run.run_dir.path(), &run.workspace);
    observer.observe(&RunEvent::LoopStarted {
        run_id: run.run_dir.id(),
        resumed: run.resumed,
        workspace: &workspace,
        run_dir: &run_dir,
        backend: run.agents.default_agent().kind.name(),
        hats: config.hats.iter().map(|h| h.id.as_str()).collect(),
        limits: Limits {
            max_iterations: el.max_iterations,
            max_runtime_secs: el.max_runtime.as_secs(),
            max_cost_usd: el.max_cost_usd,
            max_consecutive_failures: el.max_consecutive_failures,
            completion_promise: &el.completion_promise,
            required_events: &el.required_events,
        },
        totals: Totals::of(run.machine.state()),
    });
}

fn report_notices(machine: &mut Machine, iteration: Option<u32>, observer: &mut dyn Observer) {
    for notice in machine.take_notices() {
        observer.observe(&RunEvent::Notice {
            iteration,
            notice: &notice,
        });
    }
}

/// Recreates the run's directory if something deleted it while the agent ran, saying so:
/// the run goes on and ends with its summary instead of dying on a missing directory.
fn ensure_run_dir(run_dir: &RunDir) -> Result<(), CliError> {
    let recreated = run_dir
        .ensure()
        .map_err(|e| CliError::io("recreate the run directory", run_dir.path(), e))?;
    if recreated {
        diagnostic(format_args!(
            "warning: the run directory {} was deleted while the agent ran (git clean?); \
             recreated it: the history and events before now are lost, the run goes on",
            run_dir.path().display()
        ));
    }
    Ok(())
}

fn save(run: &Run<'_>, reader: &InboxReader, durability: Durability) -> Result<(), CliError> {
    ensure_run_dir(&run.run_dir)?;
    let saved = SavedRun {
        format: STATE_FORMAT,
        run_id: run.run_dir.id().to_owned(),
        objective: run.objective.clone(),
        inbox_offset: reader.offset(),
        state: run.machine.state().clone(),
        command_line: run.command_line.clone(),
    };
    run.run_dir
        .save(&saved, durability)
        .map_err(|e| CliError::io("save the run state to", run.run_dir.state(), e))
}

/// The lock, even if a panicking holder poisoned it: the steering state behind it stays
/// whole, and the loop goes on taking messages after a panic elsewhere.
fn lock<T>(mutex: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `path` relative to the workspace when it lies inside it; `.` for the workspace
/// itself (`ralph runs` typed at the top of a worktree loop's checkout), which would
/// otherwise show as nothing at all.
pub(crate) fn display_path(path: &Path, workspace: &Path) -> String {
    match path.strip_prefix(workspace) {
        Ok(inside) if inside.as_os_str().is_empty() => ".".to_owned(),
        Ok(inside) => inside.display().to_string(),
        Err(_) => path.display().to_string(),
    }
}

#[cfg(test)]
#[path = "mod_tests.rs"]
mod tests;
