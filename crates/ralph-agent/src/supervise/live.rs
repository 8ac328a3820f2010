//! A stdin kept open while the agent runs, for agents that take commands on it (pi's RPC
//! mode, Claude Code's stream-json input): frames are queued by any thread and written in
//! order by the supervisor, concurrently with reading the agent's output.
//!
//! Byte-level like the rest of the supervisor: a frame is opaque bytes, and the one frame
//! the supervisor writes by itself (the backend's abort command, before it falls back to
//! signals) is given when the input is made. The input moves one way only:
//! open (frames accepted) → sealed (the abort was queued: nothing more is accepted, the pipe
//! stays open so the agent can finish aborting) → closed (what was queued is written, then
//! the pipe is closed and the agent sees end of file). The supervisor closes it when the
//! agent reports its terminal event, before any signal, and at the end of the run; the
//! holder of the handle may close it earlier.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::io::{AsyncWrite, AsyncWriteExt};
use tokio::sync::Notify;

/// The sending side of a live stdin: cheap to clone, shareable between threads. Handed to
/// the supervisor in [`StdinSource::Live`](super::StdinSource::Live), which writes what it
/// queues. Two handles are equal when they are the same input.
#[derive(Clone)]
pub struct LiveStdin {
    shared: Arc<Shared>,
}

struct Shared {
    state: Mutex<State>,
    /// Wakes the writer: a frame was queued or the input closed. One waiter at most, and
    /// `notify_one` keeps a permit when nobody waits, so no wake-up is lost.
    wake: Notify,
    /// The backend's abort command, written when ralph must stop the agent.
    abort: Option<Vec<u8>>,
}

#[derive(Default)]
struct State {
    frames: VecDeque<Vec<u8>>,
    sealed: bool,
    closed: bool,
    /// The writer was handed to a run: a second run of the same input is refused.
    taken: bool,
}

impl LiveStdin {
    /// An open input; `abort` is the frame that asks the agent to stop its current work
    /// (`None` when the backend has none: ralph then goes straight to signals).
    pub fn new(abort: Option<Vec<u8>>) -> LiveStdin {
        LiveStdin {
            shared: Arc::new(Shared {
                state: Mutex::new(State::default()),
                wake: Notify::new(),
                abort,
            }),
        }
    }

    fn state(&self) -> MutexGuard<'_, State> {
        super::lock(&self.shared.state)
    }

    /// Queues `frame` to be written after the frames queued before it. False (and nothing
    /// is queued) once the input was sealed or closed.
    pub fn send(&self, frame: Vec<u8>) -> bool {
        let mut state = self.state();
        if state.sealed || state.closed {
            return false;
        }
        state.frames.push_back(frame);
        drop(state);
        self.shared.wake.notify_one();
        true
    }

    /// Closes the input: what was queued is still written, then the agent sees end of file.
    /// Idempotent.
    pub fn close(&self) {
        let mut state = self.state();
        state.sealed = true;
        state.closed = true;
        drop(state);
        self.shared.wake.notify_one();
    }

    /// True while frames are accepted.
    pub fn is_open(&self) -> bool {
        let state = self.state();
        !state.sealed && !state.closed
    }

    /// Whether the backend has an abort frame.
    pub fn can_abort(&self) -> bool {
        self.shared.abort.is_some()
    }

    /// Queues the abort frame and seals the input (nothing more is accepted; the pipe stays
    /// open until [`Self::close`]). False when there is no abort frame or the input was
    /// already sealed or closed.
    pub(crate) fn abort(&self) -> bool {
        let Some(frame) = &self.shared.abort else {
            return false;
        };
        let mut state = self.state();
        if state.sealed || state.closed {
            return false;
        }
        state.sealed = true;
        state.frames.push_back(frame.clone());
        drop(state);
        self.shared.wake.notify_one();
        true
    }

    /// Marks the input as run; false when it already was (one input feeds one agent).
    pub(crate) fn take(&self) -> bool {
        !std::mem::replace(&mut self.state().taken, true)
    }

    /// The next frame to write, waiting for one; `None` once the input is closed and
    /// everything queued was handed out.
    async fn next(&self) -> Option<Vec<u8>> {
        loop {
            {
                let mut state = self.state();
                if let Some(frame) = state.frames.pop_front() {
                    return Some(frame);
                }
                if state.closed {
                    return None;
                }
            }
            self.shared.wake.notified().await;
        }
    }
}

impl PartialEq for LiveStdin {
    fn eq(&self, other: &LiveStdin) -> bool {
        Arc::ptr_eq(&self.shared, &other.shared)
    }
}

impl Eq for LiveStdin {}

impl std::fmt::Debug for LiveStdin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let state = self.state();
        f.debug_struct("LiveStdin")
            .field("queued", &state.frames.len())
            .field("sealed", &state.sealed)
            .field("closed", &state.closed)
            .field("can_abort", &self.can_abort())
            .finish()
    }
}

/// Writes `input`'s frames to `pipe` in order until the input is closed (then closes the
/// pipe) or a write fails (the agent closed its end: the input is closed too, so senders
/// learn it). True when everything queued was written.
pub(crate) async fn write_live(mut pipe: impl AsyncWrite + Unpin, input: LiveStdin) -> bool {
    while let Some(frame) = input.next().await {
        if pipe.write_all(&frame).await.is_err() || pipe.flush().await.is_err() {
            input.close();
            return false;
        }
    }
    // Dropping the pipe is what the agent sees as end of file; a shutdown first is a no-op
    // for a pipe and reports nothing useful.
    drop(pipe);
    true
}

#[cfg(test)]
#[path = "live_tests.rs"]
mod tests;
