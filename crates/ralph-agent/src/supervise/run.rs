//! The supervision loop of one agent run: spawn, stream stdout to the sink as it arrives,
//! drain stderr, feed stdin, enforce deadlines and stop requests, stop the whole tree, and
//! report a typed [`ProcessOutcome`].
//!
//! Order of a run: spawn; loop until the agent has exited and its output is drained;
//! stop and reap whatever it left behind; read what those leftovers had written; return.
//! Every path, including a dropped future or a panic, ends with no process of the run
//! left (see [`KillOnDrop`] and the `tree` module for what that guarantee covers).

use std::future::Future;
use std::pin::Pin;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::ChildStderr;

use super::deadlines::{DeadlineClock, Expiry};
use super::guard::KillOnDrop;
use super::outcome::{ChildStatus, ProcessOutcome, SpawnFailure, Termination};
use super::spawn::{StdoutReader, spawn};
use super::stderr_tail::StderrTail;
use super::stop::{StopLevel, StopRequests};
use super::teardown::{REAP_TIMEOUT, clean_up, signal_tree};
use super::tree::{AgentTree, become_subreaper};
use super::{Flow, OutputSink, RunDeadlines, SpawnSpec, StdinSource};

/// Size of one stdout read: large, so a flooding agent costs few wake-ups.
pub const STDOUT_READ_BYTES: usize = 256 * 1024;
/// Size of one stderr read.
const STDERR_READ_BYTES: usize = 16 * 1024;
/// After the agent exited, how long ralph keeps reading output that its leftover
/// processes hold open before it stops them.
pub const POST_EXIT_DRAIN: Duration = Duration::from_millis(500);
/// After the leftovers were stopped, the bound on reading what they had written (only a
/// process ralph could not find can keep the pipes open that long).
pub const FINAL_DRAIN_TIMEOUT: Duration = Duration::from_secs(2);

static RUN_COUNTER: AtomicU64 = AtomicU64::new(0);

/// Writes the prompt, closes stdin, and tells whether every byte went through.
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
    if stop.current() > StopLevel::None {
        return ProcessOutcome::without_child(Termination::Interrupted, started);
    }
    become_subreaper();
    let token = format!(
        "{}-{}",
        std::process::id(),
        RUN_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let spawned = match spawn(&spec, &token) {
        Ok(s) => s,
        Err(e) => {
            let error = SpawnFailure::new(&spec.program, &e);
            return ProcessOutcome::without_child(Termination::FailedToStart { error }, started);
        }
    };
    let prompt = match spec.stdin {
        StdinSource::Bytes(bytes) => Some(bytes),
        StdinSource::Null => None,
    };
    let stdin: Option<StdinWrite> = match (spawned.stdin, prompt) {
        (Some(mut pipe), Some(bytes)) => Some(Box::pin(async move {
            // Written concurrently with reading stdout, so a child that prints before it
            // reads cannot deadlock against a large prompt. EPIPE (the child exited
            // without reading) is not an error of the run.
            let written = pipe.write_all(&bytes).await.is_ok();
            drop(pipe);
            written
        })),
        _ => None,
    };
    let pid = spawned.pid;
    let mut run = Supervision {
        deadlines,
        clock: DeadlineClock::new(deadlines, started),
        guard: KillOnDrop::new(AgentTree::new(pid, pid, &token), pid),
        child: spawned.child,
        stdout: spawned.stdout,
        stderr: spawned.stderr,
        stdin_complete: stdin.is_none(),
        stdin,
        buf: Vec::with_capacity(STDOUT_READ_BYTES),
        ebuf: Vec::with_capacity(STDERR_READ_BYTES),
        stdout_bytes: 0,
        stderr_tail: StderrTail::default(),
        reason: None,
        term_sent: None,
        kill_at: None,
        killed_at: None,
        exit: None,
        gave_up: false,
    };
    run.supervise(sink, stop).await;
    run.tear_down(sink).await;
    run.outcome(started)
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
        }
    }
}

struct Supervision {
    deadlines: RunDeadlines,
    clock: DeadlineClock,
    guard: KillOnDrop,
    child: tokio::process::Child,
    stdout: StdoutReader,
    stderr: Option<ChildStderr>,
    /// The pending prompt write; `None` once done (or for `/dev/null`).
    stdin: Option<StdinWrite>,
    stdin_complete: bool,
    buf: Vec<u8>,
    ebuf: Vec<u8>,
    stdout_bytes: u64,
    stderr_tail: StderrTail,
    /// Why ralph stopped the child; the first reason wins.
    reason: Option<Termination>,
    term_sent: Option<Instant>,
    kill_at: Option<Instant>,
    killed_at: Option<Instant>,
    /// The child's status (`None` if `wait` failed) and when it was reaped.
    exit: Option<(Option<ChildStatus>, Instant)>,
    /// SIGKILL did not end the child within [`REAP_TIMEOUT`].
    gave_up: bool,
}

impl Supervision {
    fn pid(&self) -> i32 {
        self.guard.tree.pgid()
    }

    /// Until the child exited and its output is drained (or the drain timed out).
    async fn supervise(&mut self, sink: &mut impl OutputSink, mut stop: StopRequests) {
        let mut stdout_open = true;
        let mut stderr_open = self.stderr.is_some();
        loop {
            if self.gave_up || (self.exit.is_some() && !stdout_open && !stderr_open) {
                return;
            }
            let timer = self.next_timer();
            let far = Instant::now() + Duration::from_secs(86_400);
            let running = self.exit.is_none();
            tokio::select! {
                read = self.stdout.read(&mut self.buf), if stdout_open => match read {
                    Ok(n) if n > 0 => self.on_stdout(sink),
                    _ => stdout_open = false,
                },
                read = read_opt(&mut self.stderr, &mut self.ebuf), if stderr_open => match read {
                    Ok(n) if n > 0 => {
                        self.stderr_tail.push(&self.ebuf);
                        sink.on_stderr(&self.ebuf);
                    }
                    _ => stderr_open = false,
                },
                written = write_opt(&mut self.stdin), if self.stdin.is_some() => {
                    self.stdin = None;
                    self.stdin_complete = written;
                }
                status = self.child.wait(), if running => {
                    let status = status.ok().and_then(|s| child_status(&s));
                    self.exit = Some((status, Instant::now()));
                    self.guard.agent_running = None;
                }
                level = stop.changed(), if running && self.killed_at.is_none() => match level {
                    StopLevel::None => {}
                    StopLevel::Graceful => self.begin_stop(Termination::Interrupted, false),
                    StopLevel::Immediate => self.begin_stop(Termination::Interrupted, true),
                },
                () = tokio::time::sleep_until(timer.unwrap_or(far).into()), if timer.is_some() => {
                    self.on_timer();
                }
            }
        }
    }

    fn on_stdout(&mut self, sink: &mut impl OutputSink) {
        let now = Instant::now();
        self.stdout_bytes += self.buf.len() as u64;
        self.clock.on_output(now);
        let flow = sink.on_stdout(&self.buf);
        if self.reason.is_some() || self.exit.is_some() {
            return;
        }
        match flow {
            Flow::Continue => {}
            Flow::Finished => self.clock.on_finished(now),
            Flow::Stop => self.begin_stop(Termination::StoppedByCaller, false),
        }
    }

    /// The next instant something must happen, by phase.
    fn next_timer(&self) -> Option<Instant> {
        if let Some((_, exited_at)) = self.exit {
            return Some(exited_at + POST_EXIT_DRAIN);
        }
        if let Some(killed) = self.killed_at {
            return Some(killed + REAP_TIMEOUT);
        }
        if let Some(kill_at) = self.kill_at {
            return Some(kill_at);
        }
        self.clock.next().map(|(at, _)| at)
    }

    fn on_timer(&mut self) {
        let now = Instant::now();
        if let Some((_, exited_at)) = self.exit {
            if now >= exited_at + POST_EXIT_DRAIN {
                // Leftovers hold the pipes open: stop waiting, tear_down stops them.
                self.gave_up = true;
            }
            return;
        }
        if let Some(killed) = self.killed_at {
            self.gave_up = now >= killed + REAP_TIMEOUT;
            return;
        }
        if let Some(kill_at) = self.kill_at {
            if now >= kill_at {
                self.kill_now();
            }
            return;
        }
        let Some((at, expiry)) = self.clock.next() else {
            return;
        };
        if now < at {
            return;
        }
        let reason = match expiry {
            Expiry::Startup => Termination::StartupTimeout,
            Expiry::Idle => Termination::IdleTimeout,
            Expiry::Wall => Termination::WallClockTimeout,
            Expiry::ExitGrace => Termination::StoppedAfterFinish,
        };
        self.begin_stop(reason, false);
    }

    /// Records why the child is being stopped and signals its tree: SIGTERM (SIGKILL after
    /// the kill grace), or SIGKILL at once when `immediate`.
    fn begin_stop(&mut self, reason: Termination, immediate: bool) {
        self.reason.get_or_insert(reason);
        if immediate {
            self.kill_now();
        } else if self.term_sent.is_none() {
            let now = Instant::now();
            signal_tree(
                &mut self.guard.tree,
                Signal::SIGTERM,
                self.guard.agent_running,
            );
            self.term_sent = Some(now);
            self.kill_at = Some(now + self.deadlines.kill_grace);
        }
    }

    fn kill_now(&mut self) {
        if self.killed_at.is_none() {
            signal_tree(
                &mut self.guard.tree,
                Signal::SIGKILL,
                self.guard.agent_running,
            );
            self.killed_at = Some(Instant::now());
            self.kill_at = None;
        }
    }

    /// Stops and reaps what the agent left, then reads what was still in the pipes.
    async fn tear_down(&mut self, sink: &mut impl OutputSink) {
        if self.exit.is_none() {
            // The child survived SIGKILL for REAP_TIMEOUT (uninterruptible sleep); tokio's
            // kill_on_drop reaps it when it finally dies.
            return;
        }
        clean_up(
            &mut self.guard.tree,
            self.term_sent,
            self.deadlines.kill_grace,
        )
        .await;
        let _ = tokio::time::timeout(FINAL_DRAIN_TIMEOUT, self.drain(sink)).await;
        self.guard.disarm();
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

    fn outcome(&self, started: Instant) -> ProcessOutcome {
        let status = self.exit.and_then(|(s, _)| s);
        let termination = match (&self.reason, status) {
            (Some(reason), _) => reason.clone(),
            (None, Some(ChildStatus::Code(code))) => Termination::Exited { code },
            (None, Some(ChildStatus::Signal(signal))) => Termination::Signaled { signal },
            (None, None) => Termination::StatusLost,
        };
        ProcessOutcome {
            termination,
            child_status: status,
            pid: u32::try_from(self.pid()).ok(),
            wall: started.elapsed(),
            time_to_first_byte: self.clock.first_byte().map(|t| t - started),
            stdout_bytes: self.stdout_bytes,
            stderr_bytes: self.stderr_tail.total(),
            stderr_tail: self.stderr_tail.to_text(),
            stdin_complete: self.stdin_complete,
            leftovers_signalled: self.guard.tree.signalled_count(),
        }
    }
}

/// Replaces `buf` with what stderr has (when there is a stderr); end of file otherwise.
async fn read_opt(stderr: &mut Option<ChildStderr>, buf: &mut Vec<u8>) -> std::io::Result<usize> {
    buf.clear();
    match stderr {
        Some(s) => s.read_buf(buf).await,
        None => Ok(0),
    }
}

/// Polls the pending prompt write (never called without one).
async fn write_opt(stdin: &mut Option<StdinWrite>) -> bool {
    match stdin {
        Some(write) => write.await,
        None => std::future::pending().await,
    }
}

pub(crate) fn child_status(status: &std::process::ExitStatus) -> Option<ChildStatus> {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => Some(ChildStatus::Code(code)),
        (None, Some(signal)) => Some(ChildStatus::Signal(signal)),
        // Only stopped/continued statuses have neither; `wait` does not return those.
        (None, None) => None,
    }
}
