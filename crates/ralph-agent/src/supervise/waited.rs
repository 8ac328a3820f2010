//! Waiting for an agent started by `vfork.rs`: its pidfd becomes readable when it exits,
//! then it is reaped by pid. Dropped before that, it is killed (as tokio's
//! `kill_on_drop`), and reaped on a thread of its own so no zombie is left.

use std::io;
use std::os::fd::OwnedFd;

use nix::sys::wait::{WaitPidFlag, WaitStatus, waitpid};
use nix::unistd::Pid;
use tokio::io::Interest;
use tokio::io::unix::AsyncFd;

use super::outcome::ChildStatus;

/// A started child and how it ended, once reaped.
pub(crate) struct Waited {
    pid: Pid,
    pidfd: AsyncFd<OwnedFd>,
    /// Set once reaped; its pid may then be another process's.
    status: Option<Option<ChildStatus>>,
}

impl Waited {
    pub(crate) fn new(pid: libc::pid_t, pidfd: OwnedFd) -> io::Result<Waited> {
        // SAFETY: an `OwnedFd` is a valid open descriptor, and the `AsyncFd` owns it until
        // it is dropped: nothing else closes or replaces it.
        let pidfd = unsafe { AsyncFd::register_with_interest(pidfd, Interest::READABLE)? };
        Ok(Waited {
            pid: Pid::from_raw(pid),
            pidfd,
            status: None,
        })
    }

    /// Waits until the child has exited and reaps it; `None` when its status was lost
    /// (someone else reaped it). Cancel-safe: nothing is consumed before the reap.
    pub(crate) async fn wait(&mut self) -> Option<ChildStatus> {
        loop {
            if let Some(status) = self.status {
                return status;
            }
            if let Some(status) = self.try_reap() {
                self.status = Some(status);
                continue;
            }
            match self.pidfd.readable().await {
                Ok(mut ready) => ready.clear_ready(),
                Err(_) => {
                    // The reactor is gone (the runtime is shutting down): nothing to wait
                    // with any more.
                    self.status = Some(None);
                }
            }
        }
    }

    /// Reaps the child if it has exited: `Some(status)` then.
    fn try_reap(&self) -> Option<Option<ChildStatus>> {
        match waitpid(self.pid, Some(WaitPidFlag::WNOHANG)) {
            Ok(WaitStatus::Exited(_, code)) => Some(Some(ChildStatus::Code(code))),
            Ok(WaitStatus::Signaled(_, signal, _)) => {
                Some(Some(ChildStatus::Signal(signal as i32)))
            }
            Ok(_) => None,
            // ECHILD: already reaped elsewhere; its status is lost.
            Err(_) => Some(None),
        }
    }
}

impl Drop for Waited {
    fn drop(&mut self) {
        if self.status.is_some() || self.try_reap().is_some() {
            return;
        }
        let _ = nix::sys::signal::kill(self.pid, nix::sys::signal::Signal::SIGKILL);
        let pid = self.pid.as_raw();
        // A killed process exits at once; its reap must not hold up the caller.
        let _ = std::thread::Builder::new()
            .name("ralph-reap".into())
            .spawn(move || super::vfork::reap(pid));
    }
}
