//! Running gates: the I/O half of `gates:` (the machine's `GatePlan` decides which).
//!
//! Each gate runs through the one command runner (`ralph_agent::command`): in the
//! workspace, in a session of its own (no terminal: a command in it that asks on
//! `/dev/tty` fails at once, and the gate's output says so, where it would otherwise wait
//! unseen for its `timeout_seconds`), stopped with its whole group by Ctrl-C. Its output streams to a log file under `.ralph/` and only its
//! tail is kept. The observer hears `gate_started` and `gate_finished`, and gets ticks
//! while the gate runs, so the live view can show it (and, in a loop, `ralph steer`'s
//! messages as they come). In a loop, a gate is bounded by what is left of the run's
//! `max_runtime` too: stopped as at its timeout when that runs out, it ends
//! `runtime_limit`, and no gate starts after.

use std::ffi::OsString;
use std::fs::File;
use std::io::BufWriter;
use std::path::{Path, PathBuf};

use ralph_agent::command::{CommandRequest, CommandResult, run_command};
use ralph_agent::terminal_asked::asked_terminal_note;
use ralph_agent::{Running, StopController, StopLevel, Termination};
use ralph_core::config::GateConfig;
use ralph_core::machine::{
    GATE_OUTPUT_MAX_BYTES, GATE_OUTPUT_MAX_LINES, GateEnd, GateResult, Iteration, IterationReport,
};
use ralph_core::run_event::RunEvent;
use ralph_types::env as var;

use super::capped_log::CappedLog;
use super::run_clock::{RunClock, RuntimeLeft};
use super::steer::SteerNews;
use super::{Run, display_path, ensure_run_dir, with_ticks};
use crate::view::observer::Observer;

/// Where one gate runs and who hears about it.
pub(crate) struct GateRun<'a> {
    pub(crate) workspace: &'a Path,
    /// The iteration it checks (`None` for `ralph gates`).
    pub(crate) iteration: Option<u32>,
    /// Added to ralph's environment.
    pub(crate) env: &'a [(OsString, OsString)],
    pub(crate) stop: &'a StopController,
    /// The loop's `ralph steer` watcher, whose messages are shown while the gate runs
    /// (`None` outside a loop: `ralph gates`, `ralph runs land --check`).
    pub(crate) steering: Option<&'a SteerNews>,
    /// The run's runtime left, in a loop (`None` outside one).
    pub(crate) runtime: Option<RuntimeLeft<'a>>,
}

impl GateRun<'_> {
    /// Runs `gate` (checking `event`, if any), writing its output to `log`; reports it
    /// to `observer` and returns its result. A log that cannot be created leaves the
    /// gate to run without one: the gate decides, not the disk.
    pub(crate) async fn run(
        &self,
        gate: &GateConfig,
        event: Option<&str>,
        log: std::io::Result<(PathBuf, File)>,
        observer: &mut dyn Observer,
    ) -> GateResult {
        let command = gate.run.to_string();
        observer.observe(&RunEvent::GateStarted {
            iteration: self.iteration,
            gate: &gate.name,
            event,
            command: &command,
        });
        let (log_path, log_file, log_error) = match log {
            Ok((path, file)) => (Some(path), Some(file), None),
            Err(e) => (None, None, Some(e.to_string())),
        };
        let mut log_file = log_file.map(|f| CappedLog::new(BufWriter::new(f)));
        let (timeout, cut_to_runtime) = self
            .runtime
            .map_or((gate.timeout, false), |left| left.bound(gate.timeout));
        let request = CommandRequest {
            invocation: gate.run.clone(),
            cwd: self.workspace.to_path_buf(),
            env: self.env.to_vec(),
            stdin: None,
            timeout,
            keep_stdout: 0,
            own_session: true,
        };
        let writer = log_file.as_mut().map(|f| f as &mut dyn std::io::Write);
        let _running = self.stop.running(Running::Gate);
        let work = run_command(request, writer, self.stop.requests());
        let ran = match self.steering {
            Some(steering) => steering.watched(work, observer).await,
            None if observer.wants_ticks() => with_ticks(work, |now| observer.tick(now)).await,
            None => work.await,
        };
        let finished = log_file.map(CappedLog::finish).transpose().err();
        let mut result = gate_result(&gate.name, event.unwrap_or_default(), &ran, cut_to_runtime);
        result.log = log_path.map(|p| display_path(&p, self.workspace));
        let log_error = (log_error.or(ran.log_error)).or(finished.map(|e| e.to_string()));
        if let Some(error) = log_error {
            crate::diagnostic::diagnostic(format_args!(
                "warning: the log of gate `{}` could not be written: {error}",
                gate.name
            ));
        }
        observer.observe(&RunEvent::GateFinished {
            iteration: self.iteration,
            passed: result.passed(),
            result: &result,
        });
        result
    }

    /// Whether Ctrl-C (or SIGTERM) asked the run to stop: no further gate starts.
    pub(crate) fn stopping(&self) -> bool {
        self.stop.current() > StopLevel::None
    }

    /// Whether the run's `max_runtime` is spent: no further gate starts.
    pub(crate) fn out_of_time(&self) -> bool {
        self.runtime.is_some_and(|left| left.now().is_zero())
    }
}

/// What a finished command means as a gate; `cut_to_runtime`: its deadline was what
/// was left of the run's runtime, not its own timeout.
fn gate_result(name: &str, event: &str, ran: &CommandResult, cut_to_runtime: bool) -> GateResult {
    let end = match &ran.termination {
        Termination::Exited { code: 0 } => GateEnd::Passed,
        Termination::WallClockTimeout if cut_to_runtime => GateEnd::RuntimeLimit,
        Termination::WallClockTimeout => GateEnd::Timeout,
        Termination::FailedToStart { .. } => GateEnd::Spawn,
        Termination::Interrupted => GateEnd::Interrupted,
        // No other deadline is set for a gate and no sink stops one: any other end is
        // the command's own failure.
        Termination::Exited { .. }
        | Termination::Signaled { .. }
        | Termination::StatusLost
        | Termination::StartupTimeout
        | Termination::IdleTimeout
        | Termination::StoppedAfterFinish
        | Termination::StoppedByCaller => GateEnd::Exit,
    };
    let output = match (&ran.termination, end) {
        (_, GateEnd::Passed) => String::new(),
        // Nothing ran: what went wrong is ralph's to say.
        (Termination::FailedToStart { error }, _) => error.to_string(),
        _ if ran.asked_for_terminal() => format!(
            "{}\n{}",
            ran.tail_text(GATE_OUTPUT_MAX_LINES, GATE_OUTPUT_MAX_BYTES),
            asked_terminal_note(&format!("the gate `{name}`"))
        ),
        _ => ran.tail_text(GATE_OUTPUT_MAX_LINES, GATE_OUTPUT_MAX_BYTES),
    };
    GateResult {
        gate: name.to_owned(),
        event: event.to_owned(),
        end,
        exit_code: ran.exit_code(),
        duration_ms: u64::try_from(ran.duration.as_millis()).unwrap_or(u64::MAX),
        output,
        output_lines: ran.output_lines,
        log: None,
    }
}

/// Runs the gates the iteration's result needs, in the order the machine's plan asks
/// for them, until every guarded event is decided, a stop is requested or the run's
/// runtime is spent (the events whose gates did not run are then withheld).
pub(super) async fn check(
    run: &Run<'_>,
    iteration: &Iteration,
    report: &IterationReport,
    env: &[(OsString, OsString)],
    session: &RunClock,
    stop: &StopController,
    observer: &mut dyn Observer,
) -> Vec<GateResult> {
    let plan = run.machine.gate_plan(iteration, report);
    let mut results: Vec<GateResult> = Vec::new();
    if plan.is_empty() {
        return results;
    }
    run.transcripts.wait();
    let mut env = env.to_vec();
    env.push((var::ITERATION.into(), iteration.number.to_string().into()));
    env.push((var::HAT.into(), iteration.hat.clone().into()));
    let gates = GateRun {
        workspace: &run.workspace,
        iteration: Some(iteration.number),
        env: &env,
        stop,
        steering: Some(run.steering.news()),
        runtime: Some(RuntimeLeft {
            clock: session,
            machine: &run.machine,
        }),
    };
    while let Some((name, event)) = plan.next_gate(&results) {
        let Some(gate) = run.config.gates.iter().find(|g| g.name == name) else {
            break;
        };
        if gates.stopping() || gates.out_of_time() {
            break;
        }
        let _ = ensure_run_dir(&run.run_dir);
        let log = run.run_dir.gate_log(iteration.number, name);
        let event = event.to_owned();
        results.push(gates.run(gate, Some(&event), log, observer).await);
    }
    results
}
