//! The seam between the run loop and the agent process: the loop waits for the agent
//! through [`Child`], reads its output through [`Output`] and tells time through
//! [`Clock`], so it can be driven by the real process and the system clock (here) or by a
//! scripted test double on made-up time (`run_tests.rs`), the way watchexec's supervisor
//! is tested with its test child.

use std::future::Future;
use std::io;
use std::time::Instant;

use nix::sys::signal::Signal;
use tokio::io::AsyncReadExt;
use tokio::net::unix::pipe;

use super::guard::KillOnDrop;
use super::outcome::ChildStatus;
use super::spawn::{Process, StdoutReader};
use super::teardown::signal_tree;

/// The agent as the run loop sees it: something to reap and a tree to signal.
pub(crate) trait Child {
    /// Waits until the agent is reaped; `None` when its status was lost. Cancel-safe: the
    /// loop drops it whenever another event comes first.
    fn wait(&mut self) -> impl Future<Output = Option<ChildStatus>> + Send;

    /// Sends `signal` to the agent's whole tree.
    fn signal_tree(&mut self, signal: Signal);
}

/// One of the agent's output streams, read chunk by chunk.
pub(crate) trait Output {
    /// Replaces `buf`'s contents with what is available, up to its capacity; `Ok(0)` at
    /// end of file. Cancel-safe.
    fn read(&mut self, buf: &mut Vec<u8>) -> impl Future<Output = io::Result<usize>> + Send;
}

/// Where the run loop reads the time and sleeps until a deadline.
pub(crate) trait Clock {
    fn now(&self) -> Instant;

    /// Completes at `at` (at once if it has passed). Cancel-safe.
    fn sleep_until(&self, at: Instant) -> impl Future<Output = ()> + Send;
}

/// The system's monotonic clock and tokio's timers.
pub(crate) struct SystemClock;

impl Clock for SystemClock {
    fn now(&self) -> Instant {
        Instant::now()
    }

    fn sleep_until(&self, at: Instant) -> impl Future<Output = ()> + Send {
        tokio::time::sleep_until(at.into())
    }
}

/// The real agent process and the guard that owns its tree.
pub(crate) struct AgentProcess {
    pub(crate) process: Process,
    pub(crate) guard: KillOnDrop,
}

impl Child for AgentProcess {
    async fn wait(&mut self) -> Option<ChildStatus> {
        let status = match &mut self.process {
            Process::Forked(child) => child.wait().await.ok().and_then(|s| child_status(&s)),
            #[cfg(target_os = "linux")]
            Process::Cloned(child) => child.wait().await,
        };
        // Reaped: its pid may be recycled from now on, so it is no longer signalled, nor
        // taken for ralph's own child.
        if let Some(pid) = self.guard.agent_running.take() {
            super::own_children::reaped(pid);
        }
        status
    }

    fn signal_tree(&mut self, signal: Signal) {
        signal_tree(&mut self.guard.tree, signal, self.guard.agent_running);
    }
}

impl Output for StdoutReader {
    fn read(&mut self, buf: &mut Vec<u8>) -> impl Future<Output = io::Result<usize>> + Send {
        StdoutReader::read(self, buf)
    }
}

impl Output for pipe::Receiver {
    async fn read(&mut self, buf: &mut Vec<u8>) -> io::Result<usize> {
        buf.clear();
        self.read_buf(buf).await
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
