//! The supervision loop of one agent run: spawn, stream stdout to the sink as it arrives,
//! drain stderr, feed stdin (the prompt, or a live input's frames as they are queued),
//! enforce deadlines and stop requests (with the agent's abort command first where it has
//! one), stop the whole tree, and report a typed [`ProcessOutcome`].
//!
//! Order of a run: spawn; loop until the agent has exited and its output is drained;
//! stop and reap whatever it left behind; read what those leftovers had written; return.
//! Every path, including a dropped future or a panic, ends with no process of the run
//! left (see [`KillOnDrop`] and the `tree` module for what that guarantee covers).
//!
//! What to do and when is decided by the pure machine of the `phase` module; the loop here
//! only waits for the next event (through the `child` module's seam, so tests can drive it
//! with a scripted child on a fake clock) and carries out what the machine answers.

use std::future::Future;
use std::pin::Pin;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use ralph_types::ProcessIdentity;
use ralph_types::env::agent_run_owner;
use tokio::io::AsyncWriteExt;
use tokio::net::unix::pipe;
use tokio::sync::watch;

use super::child::{AgentProcess, Child, Clock, Output, SystemClock};
use super::guard::KillOnDrop;
use super::live::write_live;
use super::outcome::{ProcessOutcome, SpawnFailure, Termination};
use super::pause::PauseState;
use super::phase::{Action, Event, Machine};
use super::spawn::{StdoutReader, spawn};
use super::stderr_tail::StderrTail;
use super::stop::{StopLevel, StopRequests};
use super::teardown::clean_up;
use super::tree::{AgentTree, become_subreaper, identity_of};
use super::{LiveStdin, OutputSink, RunDeadlines, SpawnSpec, StdinSource};

/// Size of one stdout read: large, so a flooding agent costs few wake-ups.
pub const STDOUT_READ_BYTES: usize = 256 * 1024;
/// Size of one stderr read.
const STDERR_READ_BYTES: usize = 16 * 1024;
/// After the leftovers were stopped, the bound on reading what they had written (only a
/// process ralph could not find can keep the pipes open that long).
pub const FINAL_DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// The owner part of this process's marker tokens (`ralph_types::env::agent_run_owner`);
/// a start time of 0 where `/proc` cannot tell it.
fn token_owner() -> &'static str {
    static OWNER: OnceLock<String> = OnceLock::new();
    OWNER.get_or_init(|| {
        let pid = nix::unistd::getpid().as_raw();
        agent_run_owner(identity_of(pid).unwrap_or(ProcessIdentity {
            pid,
            start_ticks: 0,
        }))
    })
}

/// Writes the prompt (or a live input's frames until it closes), closes stdin, and tells
/// whether every byte went through.
type StdinWrite = Pin<Box<dyn Future<Output = bool> + Send>>;

/// Runs one child under supervision and returns how it ended. Never panics on child
/// behaviour, never hangs past the deadlines plus the graces, and never returns while a
/// process of the run it could find is still running.
pub async fn run(
    spec: SpawnSpec,
    deadlines: RunDeadlines,
    sink: &mut impl OutputSink,
    stop: StopRequests,
) -> ProcessOutcome {
    let started = Instant::now();
    let live = match &spec.stdin {
        StdinSource::Live(live) => Some(live.clone()),
        StdinSource::Null | StdinSource::Bytes(_) => None,
    };
    // Whatever happens below, the input is closed when the run is over: a sender learns
    // the agent can take nothing more.
    let _closer = live.clone().map(CloseOnDrop);
    if let Some(live) = &live
        && !live.take()
    {
        let error = SpawnFailure::new(
            &spec.program,
            &std::io::Error::other("this live stdin already fed another run"),
        );
        return ProcessOutcome::without_child(Termination::FailedToStart { error }, started);
    }
    if stop.current() > StopLevel::None {
        return ProcessOutcome::without_child(Termination::Interrupted, started);
    }
    become_subreaper();
    let token = format!(
        "{}-{}",
        token_owner(),
        RUN_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let spawned = match spawn(&spec, &token) {
        Ok(s) => s,
        Err(e) => {
            let error = match spec.cwd.as_deref() {
                Some(dir) => SpawnFailure::in_dir(&spec.program, dir, &e),
                None => SpawnFailure::new(&spec.program, &e),
            };
            return ProcessOutcome::without_child(Termination::FailedToStart { error }, started);
        }
    };
    if let Some(agent) = identity_of(spawned.pid) {
        sink.on_spawn(agent);
    }
    // Written concurrently with reading stdout, so a child that prints before it reads
    // cannot deadlock against a large prompt. EPIPE (the child exited without reading) is
    // not an error of the run.
    let stdin: Option<StdinWrite> = match (spawned.stdin, spec.stdin) {
        (Some(mut pipe), StdinSource::Bytes(bytes)) => Some(Box::pin(async move {
            let written = pipe.write_all(&bytes).await.is_ok();
            drop(pipe);
            written
        })),
        (Some(pipe), StdinSource::Live(live)) => Some(Box::pin(write_live(pipe, live))),
        _ => None,
    };
    let pid = spawned.pid;
    let program = spec.program.clone();
    let tree = AgentTree::new(pid, pid, &token);
    // Until the run is over (its teardown included): a Ctrl-Z stops the whole tree.
    let _enrolled = stop.pauses().enroll(tree.clone());
    let agent = AgentProcess {
        process: spawned.child,
        guard: KillOnDrop::new(tree, pid),
    };
    let mut machine = Machine::new(deadlines, started, spawned.stderr.is_some());
    if let Some(live) = &live {
        machine = machine.with_live_stdin(live.can_abort());
    }
    let mut run = Supervision::new(
        machine,
        agent,
        spawned.stdout,
        spawned.stderr,
        stdin,
        SystemClock,
    );
    run.live = live;
    let pauses = std::sync::Arc::clone(stop.pauses());
    tokio::select! {
        () = run.supervise(sink, stop.clone()) => {}
        // Never completes: what the agent's tree orphans and then exits is reaped as the
        // run goes on, not only at its end.
        () = super::orphans::reap_while_running() => {}
    }
    let survivors = run.tear_down(sink, stop).await;
    super::survivors::report(&program, &survivors);
    let outcome = run.outcome(started);
    ProcessOutcome {
        agent_run: Some(token),
        // The time the run was stopped (Ctrl-Z) is not its time, as it is not the loop's:
        // an iteration, a gate or a hook never shows longer than the run around it.
        wall: outcome.wall.saturating_sub(pauses.paused_since(started)),
        ..outcome
    }
}

/// Closes a live input when dropped: at the end of [`run`], on every path.
struct CloseOnDrop(LiveStdin);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        self.0.close();
    }
}

impl ProcessOutcome {
    fn without_child(termination: Termination, started: Instant) -> ProcessOutcome {
        ProcessOutcome {
            termination,
            child_status: None,
            pid: None,
            wall: started.elapsed(),
            time_to_first_byte: None,
            stdout_bytes: 0,
            stderr_bytes: 0,
            stderr_tail: String::new(),
            stdin_complete: false,
            leftovers_signalled: 0,
            signalled: false,
            agent_run: None,
        }
    }
}

/// One run in progress: the agent (`C`), its stdout (`O`) and stderr (`E`, none on a PTY),
/// the clock (`K`), and what was read so far.
struct Supervision<C, O, E, K> {
    /// Every decision: the phase, the deadlines and why the agent is being stopped.
    machine: Machine,
    child: C,
    stdout: O,
    stderr: Option<E>,
    /// The pending prompt write (or the live input's writer); `None` once done (or for
    /// `/dev/null`).
    stdin: Option<StdinWrite>,
    /// The live input, when stdin is one: where the abort command and the close go.
    live: Option<LiveStdin>,
    stdin_complete: bool,
    buf: Vec<u8>,
    ebuf: Vec<u8>,
    stdout_bytes: u64,
    stderr_tail: StderrTail,
    clock: K,
}

impl<C: Child, O: Output, E: Output, K: Clock> Supervision<C, O, E, K> {
    fn new(
        machine: Machine,
        child: C,
        stdout: O,
        stderr: Option<E>,
        stdin: Option<StdinWrite>,
        clock: K,
    ) -> Supervision<C, O, E, K> {
        Supervision {
            machine,
            child,
            stdout,
            stderr,
            stdin_complete: stdin.is_none(),
            stdin,
            live: None,
            buf: Vec::with_capacity(STDOUT_READ_BYTES),
            ebuf: Vec::with_capacity(STDERR_READ_BYTES),
            stdout_bytes: 0,
            stderr_tail: StderrTail::default(),
            clock,
        }
    }

    /// Until the child exited and its output is drained (or the drain timed out), or
    /// SIGKILL did not end it. The machine decides; this waits for the next event and
    /// carries out what it answers.
    async fn supervise(&mut self, sink: &mut impl OutputSink, mut stop: StopRequests) {
        let mut pauses = stop.pauses().watch();
        // Pauses that ended before this run began are none of its business.
        let mut seen = PauseState {
            paused: false,
            total: pauses.borrow().total,
        };
        loop {
            self.sync_pause(&mut pauses, &mut seen, self.clock.now());
            let timer = self.machine.deadline();
            let far = self.clock.now() + Duration::from_secs(86_400);
            let (event, at) = tokio::select! {
                read = self.stdout.read(&mut self.buf), if self.machine.stdout_open() => match read {
                    Ok(n) if n > 0 => {
                        self.stdout_bytes += n as u64;
                        let flow = sink.on_stdout(&self.buf);
                        // Taken once the sink is done: the time ralph spends on the chunk
                        // (parsing it, or writing it to a stdout whose reader pauses, as
                        // `ralph run | less` does) is not the agent's silence. The agent's
                        // next lines waited in the pipe meanwhile.
                        (Event::Stdout(flow), self.clock.now())
                    }
                    _ => (Event::StdoutClosed, self.clock.now()),
                },
                read = read_opt(&mut self.stderr, &mut self.ebuf), if self.machine.stderr_open() => match read {
                    Ok(n) if n > 0 => {
                        self.stderr_tail.push(&self.ebuf);
                        sink.on_stderr(&self.ebuf);
                        continue;
                    }
                    _ => (Event::StderrClosed, self.clock.now()),
                },
                written = write_opt(&mut self.stdin), if self.stdin.is_some() => {
                    self.stdin = None;
                    self.stdin_complete = written;
                    if !written {
                        self.machine.stdin_closed();
                    }
                    continue;
                }
                status = self.child.wait(), if self.machine.child_running() => {
                    (Event::ChildExited(status), self.clock.now())
                }
                level = stop.changed(), if self.machine.accepts_stop() => {
                    (Event::Stop(level), self.clock.now())
                }
                () = self.clock.sleep_until(timer.unwrap_or(far)), if timer.is_some() => {
                    (Event::Timer, self.clock.now())
                }
                // Looked at below; waking is enough for the deadline to be read again.
                _ = pauses.changed() => continue,
            };
            // Before the event: once ralph goes on after being stopped, a deadline that
            // passed meanwhile and the resume are ready together, and the deadline must
            // be read as moved.
            self.sync_pause(&mut pauses, &mut seen, at);
            let mut action = self.machine.on(event, at);
            if action == Action::Abort && !self.live.as_ref().is_some_and(LiveStdin::abort) {
                action = self.machine.abort_refused(at);
            }
            match action {
                Action::Wait | Action::Abort => {}
                Action::CloseStdin => self.close_stdin(),
                Action::Terminate => {
                    self.drop_stdin();
                    self.child.signal_tree(Signal::SIGTERM);
                }
                Action::Kill => {
                    self.drop_stdin();
                    self.child.signal_tree(Signal::SIGKILL);
                }
                Action::StopWaiting | Action::GiveUp => return,
            }
        }
    }

    /// Tells the machine of the pauses (Ctrl-Z) since `seen`: the time paused that ended
    /// meanwhile, then whether one goes on.
    fn sync_pause(
        &mut self,
        pauses: &mut watch::Receiver<PauseState>,
        seen: &mut PauseState,
        at: Instant,
    ) {
        let now = *pauses.borrow_and_update();
        if now == *seen {
            return;
        }
        if now.total > seen.total || (seen.paused && !now.paused) {
            let paused = now.total.saturating_sub(seen.total);
            self.machine.on(Event::Resumed(paused), at);
        }
        if now.paused {
            self.machine.on(Event::Paused, at);
        }
        *seen = now;
    }

    /// Closes the live input after what was queued (the writer then ends by itself).
    fn close_stdin(&mut self) {
        if let Some(live) = &self.live {
            live.close();
        }
    }

    /// Before a signal: the agent's stdin ends now, whatever was still to be written (an
    /// agent being stopped reads no more commands, and one that reacts to end of file
    /// gets the chance before the signal).
    fn drop_stdin(&mut self) {
        self.close_stdin();
        self.stdin = None;
    }

    async fn drain(&mut self, sink: &mut impl OutputSink) {
        loop {
            match self.stdout.read(&mut self.buf).await {
                Ok(n) if n > 0 => {
                    self.stdout_bytes += n as u64;
                    sink.on_stdout(&self.buf);
                }
                _ => break,
            }
        }
        while let Ok(n) = read_opt(&mut self.stderr, &mut self.ebuf).await {
            if n == 0 {
                break;
            }
            self.stderr_tail.push(&self.ebuf);
            sink.on_stderr(&self.ebuf);
        }
    }
}

impl Supervision<AgentProcess, StdoutReader, pipe::Receiver, SystemClock> {
    fn pid(&self) -> i32 {
        self.child.guard.tree.pgid()
    }

    /// Stops and reaps what the agent left (at once if `stop` asks for an immediate stop),
    /// then reads what was still in the pipes. Returns what outlived SIGKILL.
    async fn tear_down(&mut self, sink: &mut impl OutputSink, stop: StopRequests) -> Vec<i32> {
        let Some(exit) = self.machine.exit() else {
            // The child survived SIGKILL for REAP_TIMEOUT (uninterruptible sleep); tokio's
            // kill_on_drop reaps it when it finally dies.
            return Vec::new();
        };
        let survivors = clean_up(
            &mut self.child.guard.tree,
            exit.term_sent,
            self.machine.kill_grace(),
            Some(stop),
        )
        .await;
        let _ = tokio::time::timeout(FINAL_DRAIN_TIMEOUT, self.drain(sink)).await;
        self.child.guard.disarm();
        survivors
    }

    fn outcome(&self, started: Instant) -> ProcessOutcome {
        ProcessOutcome {
            termination: self.machine.termination(),
            child_status: self.machine.exit().and_then(|e| e.status),
            pid: u32::try_from(self.pid()).ok(),
            wall: started.elapsed(),
            time_to_first_byte: self.machine.time_to_first_byte(),
            stdout_bytes: self.stdout_bytes,
            stderr_bytes: self.stderr_tail.total(),
            stderr_tail: self.stderr_tail.to_text(),
            stdin_complete: self.stdin_complete,
            leftovers_signalled: self.child.guard.tree.signalled_count(),
            signalled: self.machine.signalled(),
            agent_run: None,
        }
    }
}

/// Replaces `buf` with what stderr has (when there is a stderr); end of file otherwise.
async fn read_opt(stderr: &mut Option<impl Output>, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    match stderr {
        Some(s) => s.read(buf).await,
        None => {
            buf.clear();
            Ok(0)
        }
    }
}

/// Polls the pending prompt write (never called without one).
async fn write_opt(stdin: &mut Option<StdinWrite>) -> bool {
    match stdin {
        Some(write) => write.await,
        None => std::future::pending().await,
    }
}

#[cfg(test)]
#[path = "run_tests.rs"]
mod tests;
