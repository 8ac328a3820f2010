//! The run's stdout, written by a thread of its own, so that a reader that stops reading
//! (`ralph run | less` left on a page, Ctrl-S in a terminal, a pipe into a stuck program)
//! cannot stop ralph from stopping.
//!
//! Before, the views wrote to stdout on the loop's thread: once the pipe was full, the
//! loop sat in `write` and neither Ctrl-C nor SIGTERM reached it (the signal handler is a
//! task on that same thread). Now the views hand their bytes to [`StdoutRelay`], which
//! holds up to [`QUEUE_BYTES`] for a reader that pauses and writes them from its thread.
//! When the queue is full the view waits, as it waited in `write` before (nothing is ever
//! dropped while the run goes on), but the wait also watches for a stop signal (counted by
//! `run/signals.rs`, on a thread of its own, with [`stop_signal`]):
//! - after the first, the queue takes whatever comes, so the loop stops its agent, writes
//!   the summary and ends as usual (what comes after a stop is small), up to
//!   [`AFTER_STOP_BYTES`]: an agent that floods its output while it is being stopped
//!   cannot grow ralph's memory without end. Past that the rest is dropped (all of it, so
//!   that no line is spliced from pieces) and stderr says how much;
//! - at the end ([`finish`]) ralph waits for the reader to take the rest, but after a stop
//!   only while the reader makes progress ([`EXIT_GRACE`]), and not at all after a second
//!   signal: the rest is then left unwritten, and stderr says so (the run's records under
//!   `.ralph/` have everything).
//!
//! A message on stderr shares the terminal with this output ([`beside_stdout`]): it comes
//! after what was written before it, and makes room as the line written last needs (a
//! status line erased, an open line ended). That line is the one the relay has written,
//! not the one the view has queued: the view's thread moves on while the relay writes, and
//! a message from another thread (Ctrl-C's) that looked at the view's state could end a
//! line not yet on the screen, or skip erasing a status line that still is.

use std::collections::VecDeque;
use std::io::{self, IsTerminal, Write};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crate::diagnostic::diagnostic;
use crate::view::term::status::{self, LineEnd};

/// The most output held for a reader that pauses before the views wait for it.
pub(crate) const QUEUE_BYTES: usize = 16 << 20;
/// After a stop signal, how much the queue holds at most for a reader that does not read.
pub(crate) const AFTER_STOP_BYTES: usize = 4 * QUEUE_BYTES;
/// How often a view waiting for room looks for a stop signal.
const WAIT_POLL: Duration = Duration::from_millis(50);
/// After a stop, how long ralph waits at its end for a reader that takes nothing.
pub(crate) const EXIT_GRACE: Duration = Duration::from_secs(2);
/// How long a message for stderr waits for the output before it to reach a terminal
/// ([`beside_stdout`]): a terminal takes it at once; one stopped with Ctrl-S is not waited
/// for.
const SETTLE_WAIT: Duration = Duration::from_millis(200);

/// Stop signals received (SIGINT, SIGQUIT, SIGTERM, SIGHUP: [`stop_signal`]).
static SIGNALS: AtomicUsize = AtomicUsize::new(0);
static STDOUT: OnceLock<StdoutRelay> = OnceLock::new();

/// Writes to the process's stdout through the relay (started on first use).
pub(crate) struct RelayedStdout;

impl Write for RelayedStdout {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        // The view set where its write leaves the line just before it wrote, on this thread.
        stdout_relay().push(buf, status::line_end(), &|| SIGNALS.load(Ordering::Relaxed))
    }

    /// The relay writes as soon as it can: there is nothing to wait for here.
    fn flush(&mut self) -> io::Result<()> {
        stdout_relay().failed()
    }
}

fn stdout_relay() -> &'static StdoutRelay {
    STDOUT.get_or_init(|| StdoutRelay::start(io::stdout()))
}

/// A stop signal came (Ctrl-C, Ctrl-\\, SIGTERM, SIGHUP): a view waiting for room goes on, and
/// the end waits less (see the module's documentation).
pub(crate) fn stop_signal() {
    SIGNALS.fetch_add(1, Ordering::Relaxed);
    if let Some(relay) = STDOUT.get() {
        relay.shared.changed.notify_all();
    }
}

/// Writes a message on stderr with `write`, which is told where the output on the screen
/// left its line (to make room, [`status::make_room`]). When stdout and stderr are the
/// same terminal, waits (briefly) until what the views wrote before it is on the screen,
/// so the message comes after it, as when they wrote it themselves; and the relay writes
/// nothing while `write` runs, so that line is still the last one.
pub(crate) fn beside_stdout(write: impl FnOnce(LineEnd)) {
    match STDOUT.get() {
        Some(relay) if io::stdout().is_terminal() && io::stderr().is_terminal() => {
            relay.beside(SETTLE_WAIT, write);
        }
        // The screen is not shared: nothing to wait for, no room to make.
        _ => write(LineEnd::Start),
    }
}

/// Waits until what the relay holds is written, as [`StdoutRelay::finish`] says; a no-op
/// when nothing went through it. Returns the write that failed for another reason than
/// a reader that closed the pipe (a full disk, an I/O error): the output is incomplete,
/// so ralph must not exit 0. A closed pipe is the reader's choice (`| head`), not a
/// failure.
pub(crate) fn finish() -> Option<io::Error> {
    let relay = STDOUT.get()?;
    relay.finish(&|| SIGNALS.load(Ordering::Relaxed), EXIT_GRACE);
    relay
        .failed()
        .err()
        .filter(|e| e.kind() != io::ErrorKind::BrokenPipe)
}

/// A queue of output and the thread that writes it.
pub(crate) struct StdoutRelay {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    changed: Condvar,
}

#[derive(Default)]
struct State {
    /// What waits to be written, each with where it leaves the line.
    queue: VecDeque<(Vec<u8>, LineEnd)>,
    /// Bytes queued or being written.
    held: usize,
    /// Bytes written so far: the reader's progress.
    written: u64,
    /// Where what was written so far leaves the line.
    screen: LineEnd,
    /// Messages being written on stderr beside the output ([`StdoutRelay::beside`]):
    /// nothing more is written meanwhile.
    pauses: usize,
    /// The write that failed (the reader closed the pipe, the disk is full): nothing
    /// more is written.
    failed: Option<Failure>,
    /// Given up at the end: what comes is dropped.
    abandoned: bool,
    /// Bytes dropped after a stop, past [`AFTER_STOP_BYTES`]; once one is, so is all
    /// that comes after.
    dropped: u64,
}

/// A failed write, kept as what the system said: every later write fails with it, and
/// the message names the real cause (a full disk is not a reader that went away).
#[derive(Clone, Debug)]
struct Failure {
    kind: io::ErrorKind,
    said: String,
}

impl Failure {
    fn of(error: &io::Error) -> Failure {
        Failure {
            kind: error.kind(),
            said: error.to_string(),
        }
    }

    fn error(&self) -> io::Error {
        io::Error::new(self.kind, self.said.clone())
    }
}

impl Shared {
    fn state(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Waits on `state` until it changes, or `most` passed.
    fn wait<'a>(&self, state: MutexGuard<'a, State>, most: Duration) -> MutexGuard<'a, State> {
        (self.changed.wait_timeout(state, most))
            .unwrap_or_else(PoisonError::into_inner)
            .0
    }
}

impl StdoutRelay {
    /// A relay writing to `out` from a thread of its own.
    pub(crate) fn start<W: Write + Send + 'static>(out: W) -> StdoutRelay {
        let shared = Arc::new(Shared {
            state: Mutex::new(State::default()),
            changed: Condvar::new(),
        });
        let writer = Arc::clone(&shared);
        let spawned = std::thread::Builder::new()
            .name("ralph-stdout".into())
            .spawn(move || write_out(&writer, out));
        if let Err(e) = spawned {
            shared.state().failed = Some(Failure::of(&e));
        }
        StdoutRelay { shared }
    }

    /// Queues `buf`, which leaves the line as `end` says, waiting while the queue is full
    /// unless `signals` counts a stop.
    pub(crate) fn push(
        &self,
        buf: &[u8],
        end: LineEnd,
        signals: &dyn Fn() -> usize,
    ) -> io::Result<usize> {
        let mut state = self.shared.state();
        loop {
            if let Some(failure) = &state.failed {
                return Err(failure.error());
            }
            if state.abandoned {
                return Ok(buf.len());
            }
            if state.dropped > 0 {
                state.dropped += buf.len() as u64;
                return Ok(buf.len());
            }
            let fits = |most: usize| state.held == 0 || state.held + buf.len() <= most;
            if fits(QUEUE_BYTES) {
                break;
            }
            if signals() > 0 {
                if !fits(AFTER_STOP_BYTES) {
                    state.dropped = buf.len() as u64;
                    return Ok(buf.len());
                }
                break;
            }
            state = self.shared.wait(state, WAIT_POLL);
        }
        state.queue.push_back((buf.to_vec(), end));
        state.held += buf.len();
        self.shared.changed.notify_all();
        Ok(buf.len())
    }

    /// Waits until everything queued is written, or it cannot be, or `most` passed;
    /// returns with the state locked.
    fn wait_written(&self, most: Duration) -> MutexGuard<'_, State> {
        let until = Instant::now() + most;
        let mut state = self.shared.state();
        while state.held > 0 && state.failed.is_none() && !state.abandoned {
            let Some(left) = until.checked_duration_since(Instant::now()) else {
                break;
            };
            state = self.shared.wait(state, left.min(WAIT_POLL));
        }
        state
    }

    /// Runs `write` (a message on stderr) once what was queued is written (waiting at
    /// most `most`), telling it where that leaves the line, with the relay holding back
    /// what comes meanwhile; the message then ends on a line of its own.
    fn beside(&self, most: Duration, write: impl FnOnce(LineEnd)) {
        let end = {
            // Under the same lock as the wait: no chunk starts in between.
            let mut state = self.wait_written(most);
            state.pauses += 1;
            std::mem::take(&mut state.screen)
        };
        // Not under the lock: a slow stderr must not hold up the views' writes.
        write(end);
        let mut state = self.shared.state();
        state.pauses -= 1;
        self.shared.changed.notify_all();
    }

    /// The error of the write that failed, if one did.
    fn failed(&self) -> io::Result<()> {
        match &self.shared.state().failed {
            Some(failure) => Err(failure.error()),
            None => Ok(()),
        }
    }

    /// Waits until everything queued is written (or can no longer be). Without a stop
    /// signal it waits as long as that takes, as a program writing to a pipe does; after
    /// one, only while the reader takes something at least every `grace`; after two, not
    /// at all. What is left is then dropped, and stderr says how much.
    pub(crate) fn finish(&self, signals: &dyn Fn() -> usize, grace: Duration) {
        let dropped = self.shared.state().dropped;
        // Said without the lock: a message on stderr waits for this relay.
        if dropped > 0 {
            diagnostic(format_args!(
                "stdout was not being read after the stop: {dropped} bytes of output were \
                 dropped (the run's records under .ralph/ have everything)"
            ));
        }
        let mut state = self.shared.state();
        let mut progress = (state.written, Instant::now());
        while state.held > 0 && state.failed.is_none() {
            if state.written != progress.0 {
                progress = (state.written, Instant::now());
            }
            let stalled = progress.1.elapsed() >= grace;
            if signals() >= 2 || (signals() == 1 && stalled) {
                let held = state.held;
                state.abandoned = true;
                state.queue.clear();
                drop(state);
                diagnostic(format_args!(
                    "stdout is not being read: {held} bytes of output were left unwritten \
                     (the run's records under .ralph/ have everything)"
                ));
                return;
            }
            state = self.shared.wait(state, WAIT_POLL);
        }
    }
}

/// The relay's thread: writes what is queued, in order, until a write fails.
fn write_out<W: Write>(shared: &Shared, mut out: W) {
    loop {
        let chunk = {
            let mut state = shared.state();
            loop {
                if state.abandoned {
                    return;
                }
                if state.pauses == 0
                    && let Some(chunk) = state.queue.pop_front()
                {
                    break chunk;
                }
                state = (shared.changed)
                    .wait(state)
                    .unwrap_or_else(PoisonError::into_inner);
            }
        };
        let (chunk, end) = chunk;
        let written = out.write_all(&chunk).and_then(|()| out.flush());
        let mut state = shared.state();
        state.screen = end;
        state.held = state.held.saturating_sub(chunk.len());
        state.written += chunk.len() as u64;
        if let Err(e) = written {
            state.failed = Some(Failure::of(&e));
            state.queue.clear();
            state.held = 0;
        }
        shared.changed.notify_all();
        if state.failed.is_some() {
            return;
        }
    }
}

#[cfg(test)]
#[path = "stdout_relay_tests.rs"]
mod tests;
