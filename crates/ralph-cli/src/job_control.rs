//! Ctrl-Z, `fg` and `bg`: when the terminal stops ralph, what ralph runs stops with it.
//!
//! Agents, gates and hooks run in sessions of their own (nothing ralph runs may open its
//! terminal), so the terminal's SIGTSTP reaches ralph alone. Left to itself, ralph would
//! stop and its agent go on calling the model, unseen and past every limit. So ralph takes
//! the signal: it pauses what it runs ([`StopController::pause`]: SIGSTOP to each process tree,
//! and no deadline fires), says so on stderr, gives the terminal back if the full-screen
//! view has it, and only then stops itself, with the signal's own default action (so the
//! shell says `Stopped` as for any job). Once continued (`fg`, `bg`: SIGCONT), it takes
//! the screen again and resumes them: their deadlines, and the loop's `max_runtime`, do
//! not count the time stopped.
//!
//! SIGTTIN and SIGTTOU (ralph read or wrote the terminal from the background, or changed
//! its mode) stop ralph the same way, quietly: a message would be one more write to a
//! terminal ralph may not touch. ralph then stops its whole process group with SIGTSTP:
//! the terminal sent its signal to all of the job, but a wrapper may ignore SIGTTOU. A
//! stale one (ralph is in the foreground again by the time it is taken) is dropped. A
//! signal the parent had set ignored stays ignored.
//!
//! The full-screen view reads the keyboard in raw mode, where Ctrl-Z is a key, not a
//! signal: it suspends through [`suspend_screen`], on the loop's thread, which owns the
//! screen. A SIGTSTP sent while it has the screen (`kill -TSTP`) is handed to it the same
//! way ([`screen_asked`]). It cannot run in the background: after `bg` it stops again
//! until `fg`. There no terminal sent a signal to ralph's job, so ralph stops the whole of
//! its process group, as vim and less do: started by a script, `make` or `npm run`, ralph
//! stopped alone would leave the wrapper waiting for it, and the shell, which sees the
//! wrapper only, would never give its prompt back. It stops it with SIGTSTP each time,
//! never SIGTTOU: a wrapper may ignore SIGTTOU (GNU `timeout --foreground` does), and would
//! then run on, the shell would see a running job, and `fg` would continue nothing.

use std::io::{IsTerminal, Write};
use std::os::fd::AsFd;
use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::{
    SaFlags, SigAction, SigHandler, SigSet, SigmaskHow, Signal, killpg, pthread_sigmask, raise,
    sigaction,
};
use nix::unistd::{getpgrp, tcgetpgrp};
use ralph_agent::{Running, StopController, StopLevel};

use crate::diagnostic::diagnostic;

/// The signals by which the terminal stops a job.
pub(crate) const JOB_STOPS: [Signal; 3] = [Signal::SIGTSTP, Signal::SIGTTIN, Signal::SIGTTOU];

/// How often the full-screen view, continued in the background, stops again.
const BACKGROUND_LOOK: Duration = Duration::from_millis(100);

/// A SIGTSTP taken while the full-screen view had the screen, for it to act on.
static SCREEN_ASKED: AtomicBool = AtomicBool::new(false);
/// Held while a stop signal's action is default (between setting it and putting the
/// handler back): the signal thread and the view's thread may both stop ralph.
static STOPPING: Mutex<()> = Mutex::new(());

/// Those of `signals` whose disposition ralph inherited as ignored: they stay so. Read
/// at start, before ralph sets a handler for any of them.
pub(crate) fn inherited_ignored(signals: &[Signal]) -> Vec<Signal> {
    signals
        .iter()
        .copied()
        .filter(|&signal| matches!(disposition(signal), Some(SigHandler::SigIgn)))
        .collect()
}

/// What `signal` does now (read by setting the default and putting it back at once, at
/// start, before any handler of ralph's).
fn disposition(signal: Signal) -> Option<SigHandler> {
    with_action(signal, SigHandler::SigDfl, || ()).map(|(previous, ())| previous)
}

/// Runs `during` with `handler` as `signal`'s action, then puts back the action that was
/// there; `None` (and `during` not run) when the action cannot be set. Returns the
/// handler that was there and what `during` returned.
fn with_action<T>(
    signal: Signal,
    handler: SigHandler,
    during: impl FnOnce() -> T,
) -> Option<(SigHandler, T)> {
    let action = SigAction::new(handler, SaFlags::empty(), SigSet::empty());
    // SAFETY: `handler` is the default action or ignoring, never a function of ours, and
    // the previous action goes back as it was. Callers that run while ralph's handlers
    // are installed hold `STOPPING`, so no other thread swaps the action in between.
    let previous = unsafe { sigaction(signal, &action) }.ok()?;
    let done = during();
    // SAFETY: as above.
    let _ = unsafe { sigaction(signal, &previous) };
    Some((previous.handler(), done))
}

/// One job-control signal, on the signal thread: pauses what runs, stops ralph, and
/// resumes it all once ralph is continued.
pub(crate) fn take(controller: &StopController, signal: Signal) {
    if signal != Signal::SIGTSTP {
        // Sent only to a background job: in the foreground it is stale, from before `fg`.
        if foreground() == Some(true) {
            return;
        }
    } else if crate::view::tui::terminal::active() {
        SCREEN_ASKED.store(true, Ordering::SeqCst);
        return;
    }
    controller.pause(Instant::now());
    if signal == Signal::SIGTSTP {
        let message = pause_message(controller.what_runs());
        with_blocked(Signal::SIGTTOU, || diagnostic(format_args!("{message}")));
        stop_self(signal);
    } else {
        // The terminal stopped the whole job, but a wrapper that ignores SIGTTIN and
        // SIGTTOU (GNU `timeout --foreground`) runs on: the shell would see a running job
        // and `fg` would continue nothing. SIGTSTP stops it too, as it did at Ctrl-Z.
        stop_job(Signal::SIGTSTP);
    }
    controller.resume(Instant::now());
}

/// Runs `during` with `signal` blocked on this thread. The pause message may be written
/// after the shell took the terminal back (it does once a wrapper ralph runs under has
/// stopped): under `stty tostop` the write would raise SIGTTOU, which the handler takes,
/// and the write, restarted, raises it again, forever. With SIGTTOU blocked the terminal
/// lets the write through.
fn with_blocked<T>(signal: Signal, during: impl FnOnce() -> T) -> T {
    let mut set = SigSet::empty();
    set.add(signal);
    let mut before = SigSet::empty();
    let blocked = pthread_sigmask(SigmaskHow::SIG_BLOCK, Some(&set), Some(&mut before)).is_ok();
    let done = during();
    if blocked {
        let _ = pthread_sigmask(SigmaskHow::SIG_SETMASK, Some(&before), None);
    }
    done
}

/// Whether a SIGTSTP came for the full-screen view since it last looked.
pub(crate) fn screen_asked() -> bool {
    SCREEN_ASKED.swap(false, Ordering::SeqCst)
}

/// Ctrl-Z in the full-screen view, on its thread: pauses what runs under `controller`
/// (none for `ralph watch`), gives the terminal back through `screen` (which calls what
/// it is given with the terminal given back, and takes it again after), stops ralph, and
/// once it is in the foreground again, resumes.
pub(crate) fn suspend_screen(
    controller: Option<&StopController>,
    screen: impl FnOnce(&mut dyn FnMut()),
) {
    if let Some(controller) = controller {
        controller.pause(Instant::now());
    }
    let what = controller.and_then(StopController::what_runs);
    screen(&mut || {
        // Straight to stderr: the view holds ralph's messages while it has the screen.
        let _ = writeln!(std::io::stderr(), "ralph: {}", pause_message(what));
        stop_job(Signal::SIGTSTP);
        // `bg`: a full-screen view cannot draw behind the shell's prompt. The look
        // is paced: in an orphaned group the kernel drops the signal (and a stop
        // asked for meanwhile, the terminal gone, ends the wait). SIGTSTP, as the
        // first stop: the wrapper obeyed that one, it may ignore SIGTTOU.
        while foreground() == Some(false) && !stopping(controller) {
            stop_job(Signal::SIGTSTP);
            std::thread::sleep(BACKGROUND_LOOK);
        }
    });
    if let Some(controller) = controller {
        controller.resume(Instant::now());
    }
}

/// Whether a stop of the loop was asked for (SIGHUP: the terminal is gone).
fn stopping(controller: Option<&StopController>) -> bool {
    controller.is_some_and(|c| c.current() > StopLevel::None)
}

/// What ralph says as it stops, `what` being what it paused.
pub(crate) fn pause_message(what: Option<Running>) -> String {
    let name = match what {
        Some(Running::Agent) => "the agent",
        Some(Running::Gate) => "the gate",
        Some(Running::Hook) => "the hook",
        None => return "paused; `fg` resumes".to_owned(),
    };
    format!("paused, and {name} with it; `fg` resumes both")
}

/// Stops ralph as `signal`'s default action does, until SIGCONT; then the handler is
/// back. In an orphaned process group (no shell to continue it) the kernel drops the
/// signal, and this returns at once, as it should.
fn stop_self(signal: Signal) {
    let _held = STOPPING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    stop_self_held(signal);
}

/// [`stop_self`] with [`STOPPING`] held.
fn stop_self_held(signal: Signal) {
    // Delivered to this thread before `raise` returns: the whole process stops here.
    with_action(signal, SigHandler::SigDfl, || raise(signal));
}

/// Stops ralph's whole process group (the job the shell sees, whatever started ralph) as
/// [`stop_self`] stops ralph.
fn stop_job(signal: Signal) {
    let _held = STOPPING
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    // The rest of the group first, with the signal ignored here: ralph's own copy is
    // dropped as it is sent. Taken by another of ralph's threads a moment later, it would
    // stop ralph a second time after `fg`, or reach the handler once it is back.
    with_action(signal, SigHandler::SigIgn, || killpg(getpgrp(), signal));
    stop_self_held(signal);
}

/// Whether ralph's process group is the terminal's foreground one; `None` without a
/// terminal.
fn foreground() -> Option<bool> {
    let ours = getpgrp();
    let on = |fd: std::os::fd::BorrowedFd<'_>| tcgetpgrp(fd).ok().map(|pgrp| pgrp == ours);
    if std::io::stderr().is_terminal() {
        return on(std::io::stderr().as_fd());
    }
    if std::io::stdout().is_terminal() {
        return on(std::io::stdout().as_fd());
    }
    if std::io::stdin().is_terminal() {
        return on(std::io::stdin().as_fd());
    }
    None
}

#[cfg(test)]
#[path = "job_control_tests.rs"]
mod tests;
