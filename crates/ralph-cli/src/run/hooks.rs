//! Runs the configured hooks at the loop's boundaries (`ralph_core::hooks` decides, this
//! runs): each through the shared command runner (a session of its own with no terminal,
//! `timeout_seconds` as its total deadline, Ctrl-C stops it), its JSON payload on stdin, its output
//! streamed to `.ralph/runs/<id>/hooks/<n>-<phase>-<name>.log` and never held whole.
//!
//! Where each phase fires (see docs/hooks.md): `pre.loop.start` and `post.loop.start`
//! once the run is announced, before the first iteration; `pre.iteration.start` and
//! `post.iteration.start` once the iteration's hat and events are chosen, before its
//! agent starts; `pre.loop.complete`/`post.loop.complete` when the loop completed,
//! `pre.loop.error`/`post.loop.error` when it stopped for any other reason, except
//! Ctrl-C, after which no hook runs, so the run ends at once.
//!
//! Until the loop ends, what is left of the run's `max_runtime` bounds a hook as it
//! bounds an agent: past it the hook is stopped (TERM, then KILL), a retry's pause or a
//! suspension ends, and the loop stops at the limit instead of starting an iteration.
//! The loop's end hooks run whatever the time.

use std::ffi::OsString;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use ralph_agent::command::{CommandRequest, run_command};
use ralph_agent::terminal_asked::asked_terminal_note;
use ralph_agent::{Running, StopController, StopLevel};
use ralph_core::event::Event;
use ralph_core::hooks::mutate::{self, Metadata};
use ralph_core::hooks::payload::{self, PayloadInput};
use ralph_core::hooks::policy::{AfterFailure, HookAction, HookFailure, after_failure, failure_of};
use ralph_core::hooks::resume::ResumeSignal;
use ralph_core::hooks::{HookPhase, HookSpec, HooksConfig};
use ralph_core::machine::{Iteration, Machine, StopReason};
use ralph_core::run_event::{RunEvent, Totals};
use ralph_core::store::{RunDir, unix_ms};
use ralph_types::env as var;

use super::capped_log::CappedLog;
use super::hook_hold::{self, Held};
use super::hook_log;
use super::run_clock::{RunClock, RuntimeLeft};
use super::steer::SteerNews;
use crate::diagnostic::diagnostic;
use crate::view::observer::Observer;

/// Lines of a failed hook's output shown and reported.
const TAIL_LINES: usize = 10;
/// Bytes of a failed hook's output shown and reported.
const TAIL_BYTES: usize = 2000;
/// The setting a hook that timed out is named with: where its time limit is changed.
const HOOK_TIMEOUT_SETTING: &str = "timeout_seconds";

/// What a boundary's hooks decided.
#[derive(Debug, PartialEq)]
pub(crate) enum Verdict {
    /// Every hook passed or only warned: go on.
    GoOn,
    /// A hook blocked the loop.
    Blocked { hook: String, why: String },
    /// Ctrl-C: the run ends.
    Interrupted,
    /// The run's runtime ran out while a hook ran or held the loop: the run ends at its
    /// limit.
    OutOfTime,
}

/// What a boundary knows, for the payload.
struct Boundary<'b> {
    phase: HookPhase,
    iteration: Option<u32>,
    hat: Option<&'b str>,
    backend: Option<&'b str>,
    events: &'b [Event],
    stop: Option<&'b StopReason>,
    /// The loop's clock, when the run's runtime bounds the hooks (not at its end).
    clock: Option<&'b RunClock>,
}

impl<'b> Boundary<'b> {
    /// A boundary of the loop itself (its start or end): no hat, no events.
    fn of_loop(
        phase: HookPhase,
        iteration: Option<u32>,
        stop: Option<&'b StopReason>,
        clock: Option<&'b RunClock>,
    ) -> Self {
        Boundary {
            phase,
            iteration,
            hat: None,
            backend: None,
            events: &[],
            stop,
            clock,
        }
    }
}

/// The hooks of one run and what they accumulated.
pub(crate) struct Hooks<'a> {
    config: &'a HooksConfig,
    workspace: PathBuf,
    run_dir: RunDir,
    max_iterations: u32,
    env: Vec<(OsString, OsString)>,
    signal: ResumeSignal,
    metadata: Metadata,
    /// Numbers the log files of this session.
    runs: u32,
    /// `ralph steer`'s messages, shown while a hook runs.
    news: SteerNews,
}

impl<'a> Hooks<'a> {
    pub(crate) fn new(
        config: &'a HooksConfig,
        workspace: &Path,
        run_dir: &RunDir,
        max_iterations: u32,
        run_env: &[(OsString, OsString)],
        news: SteerNews,
    ) -> Hooks<'a> {
        let ralph_dir = run_dir
            .path()
            .parent()
            .and_then(Path::parent)
            .unwrap_or(workspace);
        Hooks {
            config,
            workspace: workspace.to_path_buf(),
            run_dir: run_dir.clone(),
            max_iterations,
            env: hook_env(run_env),
            signal: ResumeSignal::new(ralph_dir),
            metadata: Metadata::new(),
            runs: 0,
            news,
        }
    }

    /// The prompt section showing what `mutate` hooks added (empty without any).
    pub(crate) fn prompt_notes(&self) -> String {
        mutate::prompt_section(&self.metadata)
    }

    /// `pre.loop.start` then `post.loop.start`. A block ends the run through the
    /// machine (the loop then stops before its first iteration).
    pub(crate) async fn loop_start(
        &mut self,
        machine: &mut Machine,
        session: &RunClock,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) {
        for phase in [HookPhase::PreLoopStart, HookPhase::PostLoopStart] {
            let boundary = Boundary::of_loop(phase, last_iteration(machine), None, Some(session));
            match self.fire(&boundary, machine, observer, stop).await {
                Verdict::GoOn => {}
                Verdict::Blocked { hook, why } => {
                    machine.block_for_hook(&hook, phase.name(), &why, session.elapsed());
                    return;
                }
                // The loop then stops before its first iteration: for Ctrl-C, or at the
                // runtime limit.
                Verdict::Interrupted | Verdict::OutOfTime => return,
            }
        }
    }

    /// Whether any hook runs at an iteration's start (it may read the last transcript,
    /// which must then be whole).
    pub(crate) fn at_iteration_start(&self) -> bool {
        [HookPhase::PreIterationStart, HookPhase::PostIterationStart]
            .into_iter()
            .any(|phase| self.config.at(phase).next().is_some())
    }

    /// `pre.iteration.start` then `post.iteration.start`, before the agent starts.
    /// Returns the iteration to run, or `None` when a hook blocked it or Ctrl-C came:
    /// then its events go back to the queue, for `--continue`.
    pub(crate) async fn iteration_start(
        &mut self,
        machine: &mut Machine,
        iteration: Iteration,
        backend: &str,
        session: &RunClock,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) -> Option<Iteration> {
        for phase in [HookPhase::PreIterationStart, HookPhase::PostIterationStart] {
            let boundary = Boundary {
                phase,
                iteration: Some(iteration.number),
                hat: Some(&iteration.hat),
                backend: Some(backend),
                events: &iteration.events,
                stop: None,
                clock: Some(session),
            };
            match self.fire(&boundary, machine, observer, stop).await {
                Verdict::GoOn => {}
                Verdict::Blocked { hook, why } => {
                    machine.give_back(iteration);
                    machine.block_for_hook(&hook, phase.name(), &why, session.elapsed());
                    return None;
                }
                Verdict::Interrupted | Verdict::OutOfTime => {
                    machine.give_back(iteration);
                    return None;
                }
            }
        }
        Some(iteration)
    }

    /// The loop's end: `pre.loop.complete` or `pre.loop.error` for `reason`, then the
    /// `post.` phase of the reason the loop ends with (a blocking `pre.loop.complete`
    /// hook turns the completion into a failure, and `post.loop.error` follows).
    /// Returns the final reason. Nothing runs after Ctrl-C.
    pub(crate) async fn loop_end(
        &mut self,
        reason: StopReason,
        machine: &mut Machine,
        session: &RunClock,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) -> StopReason {
        let mut reason = reason;
        for post in [false, true] {
            let phase = end_phase(&reason, post);
            // A `pre.` hook may still refuse the end (an approval of the completion): a
            // run stopped before it said yes did not complete, whatever the agent said.
            // Once `post.` hooks run, the end stands.
            let unconfirmed = !post && self.config.at(phase).next().is_some();
            // Before any end hook ran, a stop beats a limit, as it does between
            // iterations; once a `post.` hook ran, the end stands.
            let interrupted = |machine: &mut Machine| {
                if unconfirmed {
                    machine.interrupt_unconfirmed(session.elapsed())
                } else if !post {
                    machine.interrupt_over_limit(session.elapsed())
                } else {
                    machine.interrupt(session.elapsed())
                }
            };
            if reason == StopReason::Interrupted || stop.current() > StopLevel::None {
                return interrupted(machine);
            }
            let boundary = Boundary::of_loop(phase, last_iteration(machine), Some(&reason), None);
            match self.fire(&boundary, machine, observer, stop).await {
                // Not bounded by the runtime: the run has stopped, its end hooks run.
                Verdict::GoOn | Verdict::OutOfTime => {}
                Verdict::Blocked { hook, why } => {
                    reason = machine.block_for_hook(&hook, phase.name(), &why, session.elapsed());
                }
                Verdict::Interrupted => return interrupted(machine),
            }
        }
        reason
    }

    /// Runs the hooks of one boundary in declaration order.
    async fn fire(
        &mut self,
        boundary: &Boundary<'_>,
        machine: &Machine,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) -> Verdict {
        let config = self.config;
        for hook in config.at(boundary.phase) {
            let verdict = self.run_hook(hook, boundary, machine, observer, stop).await;
            if verdict != Verdict::GoOn {
                return verdict;
            }
        }
        Verdict::GoOn
    }

    /// One hook, with its retries and suspensions, until it passes, warns, blocks or
    /// Ctrl-C comes.
    async fn run_hook(
        &mut self,
        hook: &HookSpec,
        boundary: &Boundary<'_>,
        machine: &Machine,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) -> Verdict {
        let phase = boundary.phase.name();
        let command = hook.command.to_string();
        let runtime = boundary.clock.map(|clock| RuntimeLeft { clock, machine });
        let mut failures = 0;
        for attempt in 1.. {
            if runtime.is_some_and(|left| left.now().is_zero()) {
                return Verdict::OutOfTime;
            }
            observer.observe(&RunEvent::HookStarted {
                phase,
                hook: &hook.name,
                iteration: boundary.iteration,
                attempt,
                command: &command,
            });
            let totals = Totals::of(machine.state());
            let ran = (self.run_once(hook, boundary, totals, runtime, observer, stop)).await;
            let decision = match ran.failure {
                None => None,
                Some(HookFailure::Interrupted) => Some(Decision::Stop),
                Some(HookFailure::RuntimeLimit) => Some(Decision::OutOfTime),
                Some(_) if stop.current() > StopLevel::None => Some(Decision::Stop),
                Some(_) => {
                    failures += 1;
                    Some(Decision::After(after_failure(hook, failures)))
                }
            };
            let action = match decision {
                None => HookAction::Continue,
                Some(Decision::Stop | Decision::OutOfTime) => HookAction::Stop,
                Some(Decision::After(after)) => after.action(),
            };
            let tail = ran.failure.map(|_| ran.tail.as_str());
            observer.observe(&RunEvent::HookFinished {
                phase,
                hook: &hook.name,
                iteration: boundary.iteration,
                attempt,
                passed: ran.failure.is_none(),
                failure: ran.failure,
                exit_code: ran.exit_code,
                message: ran.message.as_deref(),
                duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
                action,
                output_tail: tail.filter(|t| !t.is_empty()),
                log_path: &ran.log_path,
            });
            let why = ran.message.unwrap_or_default();
            match decision {
                None | Some(Decision::After(AfterFailure::Warn)) => return Verdict::GoOn,
                Some(Decision::Stop) => return Verdict::Interrupted,
                Some(Decision::OutOfTime) => return Verdict::OutOfTime,
                Some(Decision::After(AfterFailure::Block)) => {
                    return Verdict::Blocked {
                        hook: hook.name.clone(),
                        why,
                    };
                }
                Some(Decision::After(AfterFailure::Retry { delay })) => {
                    match hook_hold::pause(delay, stop, runtime).await {
                        Held::Done => {}
                        Held::Interrupted => return Verdict::Interrupted,
                        Held::OutOfTime => return Verdict::OutOfTime,
                    }
                }
                Some(Decision::After(AfterFailure::WaitForResume { retry })) => {
                    let what = (hook.name.as_str(), phase, why.as_str());
                    let held = hook_hold::wait_for_resume(
                        &self.signal,
                        &self.workspace,
                        what,
                        stop,
                        runtime,
                    );
                    match held.await {
                        Ok(Held::Done) if retry => {}
                        Ok(Held::Done) => return Verdict::GoOn,
                        Ok(Held::Interrupted) => return Verdict::Interrupted,
                        Ok(Held::OutOfTime) => return Verdict::OutOfTime,
                        Err(e) => {
                            return Verdict::Blocked {
                                hook: hook.name.clone(),
                                why: format!("{why}; cannot wait for `ralph hooks resume`: {e}"),
                            };
                        }
                    }
                }
            }
        }
        Verdict::GoOn
    }

    /// Starts the hook once (its payload carrying the run's `totals`), bounded by the
    /// `runtime` left if any, and judges how it ended.
    async fn run_once(
        &mut self,
        hook: &HookSpec,
        boundary: &Boundary<'_>,
        totals: Totals,
        runtime: Option<RuntimeLeft<'_>>,
        observer: &mut dyn Observer,
        stop: &StopController,
    ) -> Ran {
        let workspace = self.workspace.display().to_string();
        let input = PayloadInput {
            phase: boundary.phase,
            run_id: self.run_dir.id(),
            workspace: &workspace,
            pid: std::process::id(),
            timestamp_ms: unix_ms(SystemTime::now()),
            iteration: boundary.iteration.unwrap_or(0),
            max_iterations: self.max_iterations,
            hat: boundary.hat,
            backend: boundary.backend,
            events: boundary.events,
            totals,
            stop: boundary.stop,
            metadata: &self.metadata,
        };
        let mut stdin = payload::build(&input).to_string().into_bytes();
        stdin.push(b'\n');
        let mut env = self.env.clone();
        if let Some(hat) = boundary.hat {
            // Only an iteration's own boundary has one: at the loop's end the last
            // iteration is over, and an agent's `RALPH_ITERATION` names the one running.
            let number = boundary.iteration.unwrap_or_default();
            env.push((var::ITERATION.into(), number.to_string().into()));
            env.push((var::HAT.into(), hat.into()));
        }
        env.extend(hook.env.iter().map(|(k, v)| (k.into(), v.into())));
        let (timeout, cut_to_runtime) =
            runtime.map_or((hook.timeout, false), |left| left.bound(hook.timeout));
        let request = CommandRequest {
            invocation: hook.command.clone(),
            cwd: hook
                .cwd
                .as_ref()
                .map_or_else(|| self.workspace.clone(), |c| self.workspace.join(c)),
            env,
            stdin: Some(stdin),
            timeout,
            keep_stdout: if hook.mutate {
                usize::try_from(hook.max_output_bytes).unwrap_or(usize::MAX)
            } else {
                0
            },
            // No terminal: a hook that asks on `/dev/tty` fails at once (and says so)
            // instead of freezing the loop, stopped by the kernel, until its deadline.
            own_session: true,
        };
        let (log_path, log) =
            match hook_log::open(&self.run_dir, &mut self.runs, boundary.phase, &hook.name) {
                Ok(opened) => opened,
                Err((path, e)) => {
                    diagnostic(format_args!(
                        "warning: hook `{}`'s output is not logged: cannot create {}: {e}",
                        hook.name,
                        path.display()
                    ));
                    (path, None)
                }
            };
        let mut log = log.map(|file| CappedLog::new(BufWriter::new(file)));
        let running = stop.running(Running::Hook);
        let work = run_command(
            request,
            log.as_mut().map(|w| w as &mut dyn Write),
            stop.requests(),
        );
        let result = self.news.watched(work, observer).await;
        drop(running);
        let finished = log.map(CappedLog::finish).transpose().err();
        if let Some(e) = (result.log_error.clone()).or(finished.map(|e| e.to_string())) {
            diagnostic(format_args!(
                "warning: hook `{}`'s log {} is incomplete: {e}",
                hook.name,
                log_path.display()
            ));
        }
        let mut failure = failure_of(&result.termination);
        let out_of_time = cut_to_runtime && failure == Some(HookFailure::Timeout);
        if out_of_time {
            failure = Some(HookFailure::RuntimeLimit);
        }
        let mut message = failure.map(|_| {
            if out_of_time {
                return format!(
                    "stopped when the run's runtime limit (max_runtime_seconds) ran out, \
                     after {:.1}s",
                    result.duration.as_secs_f64()
                );
            }
            let end = (result.termination).command_end(hook.timeout, Some(HOOK_TIMEOUT_SETTING));
            if result.asked_for_terminal() {
                let note = asked_terminal_note(&format!("the hook `{}`", hook.name));
                format!("{end}: {note}")
            } else {
                end
            }
        });
        if failure.is_none() && hook.mutate {
            let applied = mutate::apply_answer(
                &mut self.metadata,
                &result.stdout,
                result.stdout_truncated,
                hook.max_output_bytes,
            );
            if let Err(e) = applied {
                failure = Some(HookFailure::Answer);
                message = Some(e.to_string());
            }
        }
        Ran {
            failure,
            exit_code: result.exit_code(),
            message,
            duration: result.duration,
            tail: result.tail_text(TAIL_LINES, TAIL_BYTES),
            log_path: log_path
                .strip_prefix(&self.workspace)
                .unwrap_or(&log_path)
                .display()
                .to_string(),
        }
    }
}

/// What a hook gets of the run's agent environment: everything but the inbox. A hook
/// tells the loop what it found through its exit and `mutate`'s answer; an event it
/// emitted would be read with the next agent's and pass as that agent's own.
fn hook_env(run_env: &[(OsString, OsString)]) -> Vec<(OsString, OsString)> {
    run_env
        .iter()
        .filter(|(name, _)| name != var::EVENTS_FILE)
        .cloned()
        .collect()
}

/// What to do after one run of a hook.
#[derive(Clone, Copy)]
enum Decision {
    /// Ctrl-C.
    Stop,
    /// The run's runtime ran out.
    OutOfTime,
    After(AfterFailure),
}

/// How one run of a hook went.
struct Ran {
    failure: Option<HookFailure>,
    exit_code: Option<i32>,
    message: Option<String>,
    duration: Duration,
    tail: String,
    log_path: String,
}

/// The last iteration run, if any.
fn last_iteration(machine: &Machine) -> Option<u32> {
    let n = machine.state().iterations;
    (n > 0).then_some(n)
}

/// The end phase for `reason`.
fn end_phase(reason: &StopReason, post: bool) -> HookPhase {
    match (matches!(reason, StopReason::Completed { .. }), post) {
        (true, false) => HookPhase::PreLoopComplete,
        (true, true) => HookPhase::PostLoopComplete,
        (false, false) => HookPhase::PreLoopError,
        (false, true) => HookPhase::PostLoopError,
    }
}
