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

use std::ffi::OsString;
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use ralph_agent::command::{CommandRequest, run_command};
use ralph_agent::terminal_asked::asked_terminal_note;
use ralph_agent::{Running, StopController, StopLevel};
use ralph_core::event::Event;
use ralph_core::fsafe::{self, Access, Links};
use ralph_core::hooks::mutate::{self, Metadata};
use ralph_core::hooks::payload::{self, PayloadInput};
use ralph_core::hooks::policy::{
    AfterFailure, HookAction, HookFailure, RESUME_POLL_INTERVAL, after_failure, failure_of,
};
use ralph_core::hooks::resume::ResumeSignal;
use ralph_core::hooks::{HookPhase, HookSpec, HooksConfig};
use ralph_core::machine::{Iteration, Machine, StopReason};
use ralph_core::run_event::{RunEvent, Totals};
use ralph_core::store::{RunDir, unix_ms};
use ralph_types::env as var;

use super::capped_log::CappedLog;
use super::run_clock::RunClock;
use super::steer::SteerNews;
use crate::diagnostic::diagnostic;
use crate::view::observer::Observer;

/// The run directory's folder for hook logs.
pub(crate) const HOOKS_DIR: &str = "hooks";
/// Lines of a failed hook's output shown and reported.
const TAIL_LINES: usize = 10;
/// Bytes of a failed hook's output shown and reported.
const TAIL_BYTES: usize = 2000;
/// The longest hook name kept in a log file's name.
const LOG_NAME_CHARS: usize = 40;
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
}

/// What a boundary knows, for the payload.
struct Boundary<'b> {
    phase: HookPhase,
    iteration: Option<u32>,
    hat: Option<&'b str>,
    backend: Option<&'b str>,
    events: &'b [Event],
    stop: Option<&'b StopReason>,
}

impl<'b> Boundary<'b> {
    /// A boundary of the loop itself (its start or end): no hat, no events.
    fn of_loop(phase: HookPhase, iteration: Option<u32>, stop: Option<&'b StopReason>) -> Self {
        Boundary {
            phase,
            iteration,
            hat: None,
            backend: None,
            events: &[],
            stop,
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
            let boundary = Boundary::of_loop(phase, last_iteration(machine), None);
            match self.fire(&boundary, machine, observer, stop).await {
                Verdict::GoOn => {}
                Verdict::Blocked { hook, why } => {
                    machine.block_for_hook(&hook, phase.name(), &why, session.elapsed());
                    return;
                }
                Verdict::Interrupted => return,
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
            };
            match self.fire(&boundary, machine, observer, stop).await {
                Verdict::GoOn => {}
                Verdict::Blocked { hook, why } => {
                    machine.give_back(iteration);
                    machine.block_for_hook(&hook, phase.name(), &why, session.elapsed());
                    return None;
                }
                Verdict::Interrupted => {
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
            let boundary = Boundary::of_loop(phase, last_iteration(machine), Some(&reason));
            match self.fire(&boundary, machine, observer, stop).await {
                Verdict::GoOn => {}
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
        let mut failures = 0;
        for attempt in 1.. {
            observer.observe(&RunEvent::HookStarted {
                phase,
                hook: &hook.name,
                iteration: boundary.iteration,
                attempt,
                command: &command,
            });
            let totals = Totals::of(machine.state());
            let ran = self.run_once(hook, boundary, totals, observer, stop).await;
            let decision = match ran.failure {
                None => None,
                Some(HookFailure::Interrupted) => Some(Decision::Stop),
                Some(_) if stop.current() > StopLevel::None => Some(Decision::Stop),
                Some(_) => {
                    failures += 1;
                    Some(Decision::After(after_failure(hook, failures)))
                }
            };
            let action = match decision {
                None => HookAction::Continue,
                Some(Decision::Stop) => HookAction::Stop,
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
                Some(Decision::After(AfterFailure::Block)) => {
                    return Verdict::Blocked {
                        hook: hook.name.clone(),
                        why,
                    };
                }
                Some(Decision::After(AfterFailure::Retry { delay })) => {
                    if !pause(delay, stop).await {
                        return Verdict::Interrupted;
                    }
                }
                Some(Decision::After(AfterFailure::WaitForResume { retry })) => {
                    match self.wait_for_resume(hook, phase, &why, stop).await {
                        Ok(true) if retry => {}
                        Ok(true) => return Verdict::GoOn,
                        Ok(false) => return Verdict::Interrupted,
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

    /// Starts the hook once (its payload carrying the run's `totals`) and judges how it
    /// ended.
    async fn run_once(
        &mut self,
        hook: &HookSpec,
        boundary: &Boundary<'_>,
        totals: Totals,
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
        let request = CommandRequest {
            invocation: hook.command.clone(),
            cwd: hook
                .cwd
                .as_ref()
                .map_or_else(|| self.workspace.clone(), |c| self.workspace.join(c)),
            env,
            stdin: Some(stdin),
            timeout: hook.timeout,
            keep_stdout: if hook.mutate {
                usize::try_from(hook.max_output_bytes).unwrap_or(usize::MAX)
            } else {
                0
            },
            // No terminal: a hook that asks on `/dev/tty` fails at once (and says so)
            // instead of freezing the loop, stopped by the kernel, until its deadline.
            own_session: true,
        };
        let (log_path, log) = match self.open_log(boundary.phase, &hook.name) {
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
        let mut message = failure.map(|_| {
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

    /// `.ralph/runs/<id>/hooks/<n>-<phase>-<name>.log`, created new (never through a
    /// link). A name taken by an earlier session of the run gets the next number.
    fn open_log(
        &mut self,
        phase: HookPhase,
        name: &str,
    ) -> Result<(PathBuf, Option<std::fs::File>), (PathBuf, io::Error)> {
        let dir = self.run_dir.path().join(HOOKS_DIR);
        fsafe::create_dir(&dir).map_err(|e| (dir.clone(), e))?;
        let name: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                    c
                } else {
                    '_'
                }
            })
            .take(LOG_NAME_CHARS)
            .collect();
        loop {
            self.runs += 1;
            let path = dir.join(format!("{}-{}-{name}.log", self.runs, phase.name()));
            let opened = fsafe::open(
                &path,
                Access::new().write(true).create_new(true),
                Links::Refuse,
            );
            match opened {
                Ok(file) => return Ok((path, Some(file))),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err((path, e)),
            }
        }
    }

    /// Holds the loop until `ralph hooks resume` (true) or Ctrl-C (false).
    async fn wait_for_resume(
        &self,
        hook: &HookSpec,
        phase: &str,
        why: &str,
        stop: &StopController,
    ) -> io::Result<bool> {
        self.signal.suspend(&format!("{phase} {}", hook.name))?;
        diagnostic(format_args!(
            "hook `{}` ({phase}) failed ({why}) and suspends the loop: run `ralph hooks \
             resume` in {} to go on",
            hook.name,
            self.workspace.display()
        ));
        let resumed = loop {
            if stop.current() > StopLevel::None {
                break false;
            }
            if self.signal.take()? {
                break true;
            }
            tokio::time::sleep(RESUME_POLL_INTERVAL).await;
        };
        self.signal.clear()?;
        Ok(resumed)
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

/// Sleeps `delay` unless Ctrl-C comes first (false).
async fn pause(delay: Duration, stop: &StopController) -> bool {
    let until = Instant::now() + delay;
    while Instant::now() < until {
        if stop.current() > StopLevel::None {
            return false;
        }
        tokio::time::sleep(RESUME_POLL_INTERVAL.min(until - Instant::now())).await;
    }
    stop.current() == StopLevel::None
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
