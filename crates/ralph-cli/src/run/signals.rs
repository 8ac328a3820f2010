//! Ctrl-C, Ctrl-\\ (SIGQUIT), SIGTERM and SIGHUP (the terminal went away); Ctrl-Z and the
//! terminal's other stop signals go to `job_control`. The first asks what runs (the
//! agent, a gate or a hook) to stop gracefully (SIGTERM to its process group, then
//! SIGKILL after the kill grace) and ends the loop once the summary is written; a second
//! within `DOUBLE_INTERRUPT_WINDOW` kills it at once. Requests are sticky, so a signal
//! between iterations stops the loop before the next agent starts. The message names
//! what is stopped ([`StopController::running`] marks it).
//!
//! SIGQUIT's default action would kill ralph outright (no summary, no end event, and what
//! the agent left running stays until the next run): it ends the loop as Ctrl-C does.
//! A signal ralph was started with ignored stays ignored ([`KEPT_IF_IGNORED`]): the
//! parent meant it (`nohup`, a background job of a script).
//!
//! The signals are taken on a thread of their own, not by a task of the loop's runtime:
//! that runtime has one thread, which may be busy for long (reading an agent's flood of
//! output, whose pipe is always ready) or blocked (on a stdout nobody reads, see
//! `view/stdout_relay.rs`). A task would see the signal only when that thread got to it;
//! the thread raises the stop at once, and the loop's wait for it wakes.
//!
//! The message is written after the stop is raised (a stderr that blocks must not hold
//! up the stop), so a loop that ends at once could reach ralph's exit before it is out;
//! the exit waits for it ([`wait_said`]).

use std::io;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use nix::sys::signal::Signal;
use ralph_agent::supervise::DOUBLE_INTERRUPT_WINDOW;
use ralph_agent::{Running, StopController, StopLevel};
use signal_hook::consts::{SIGHUP, SIGINT, SIGQUIT, SIGTERM};
use signal_hook::iterator::Signals;

use crate::diagnostic::diagnostic;
use crate::job_control;
use crate::view::stdout_relay;
use crate::view::stopping::stop_message;

/// Stop signals taken whose message is not yet written.
static SAYING: AtomicUsize = AtomicUsize::new(0);
/// How long ralph's exit waits for a signal's message: one written to a terminal takes
/// far less; a stderr that does not take it is not waited for longer.
const SAY_WAIT: Duration = Duration::from_secs(1);
/// How often that wait looks.
const SAY_POLL: Duration = Duration::from_millis(5);

/// The signals that end the loop.
const STOPS: [Signal; 4] = [
    Signal::SIGINT,
    Signal::SIGTERM,
    Signal::SIGHUP,
    Signal::SIGQUIT,
];
/// Those of [`STOPS`] that stay ignored when ralph was started with them ignored: SIGHUP
/// under `nohup` (the run is to outlive its terminal), SIGINT and SIGQUIT in a background
/// job of a shell without job control (`ralph run &` in a script), where Ctrl-C and
/// Ctrl-\\ are meant for the job in the foreground. Not SIGTERM: it is how CI engines,
/// Kubernetes and `timeout` cancel, and no shell ignores it for a job.
const KEPT_IF_IGNORED: [Signal; 3] = [Signal::SIGHUP, Signal::SIGINT, Signal::SIGQUIT];

/// Which signal asked ralph to stop: the message says how to insist in the same way.
#[derive(Clone, Copy, Debug)]
enum Which {
    Interrupt,
    Quit,
    Terminate,
    Hangup,
}

impl Which {
    fn again_hint(self) -> String {
        let window = DOUBLE_INTERRUPT_WINDOW.as_secs();
        match self {
            Which::Interrupt => format!("press Ctrl-C again within {window}s to kill it now"),
            Which::Quit => format!("press Ctrl-\\ again within {window}s to kill it now"),
            Which::Terminate => {
                format!("on SIGTERM; a second one within {window}s kills it now")
            }
            Which::Hangup => "the terminal went away".to_owned(),
        }
    }
}

/// Routes SIGINT, SIGQUIT, SIGTERM and SIGHUP to `controller` for the rest of the process
/// (those of them ralph was started with ignored stay ignored).
pub(crate) fn install(controller: StopController) -> io::Result<()> {
    install_saying(controller, stop_message)
}

/// [`install`] for a command that is not a loop (`ralph runs land`, `ralph runs rm`):
/// the message says that what `command` runs (git, a check) is stopped and `command`
/// ends, which then says in what state it left the repository.
pub(crate) fn install_for(controller: StopController, command: &'static str) -> io::Result<()> {
    install_saying(controller, move |level, _what, hint| match level {
        StopLevel::None => None,
        StopLevel::Graceful => Some(format!("stopping what `{command}` runs ({hint})")),
        StopLevel::Immediate => Some(format!("killing what `{command}` runs now")),
    })
}

fn install_saying(
    controller: StopController,
    say: impl Fn(StopLevel, Option<Running>, &str) -> Option<String> + Send + 'static,
) -> io::Result<()> {
    let job_stops = job_control::JOB_STOPS;
    let mut ignored = job_control::inherited_ignored(&job_stops);
    ignored.extend(job_control::inherited_ignored(&KEPT_IF_IGNORED));
    let taken: Vec<i32> = (STOPS.into_iter().chain(job_stops))
        .filter(|s| !ignored.contains(s))
        .map(|s| s as i32)
        .collect();
    let mut signals = Signals::new(taken)?;
    std::thread::Builder::new()
        .name("ralph-signals".into())
        .spawn(move || {
            for signal in signals.forever() {
                if let Some(stop) = job_stops.into_iter().find(|s| *s as i32 == signal) {
                    job_control::take(&controller, stop);
                    continue;
                }
                let which = match signal {
                    SIGTERM => Which::Terminate,
                    SIGHUP => Which::Hangup,
                    SIGQUIT => Which::Quit,
                    SIGINT => Which::Interrupt,
                    _ => continue,
                };
                take(&controller, which, &say);
            }
        })?;
    Ok(())
}

/// One stop signal: raises the stop, then says what it stops.
fn take(
    controller: &StopController,
    which: Which,
    say: &impl Fn(StopLevel, Option<Running>, &str) -> Option<String>,
) {
    // Counted before the stop is raised: whatever ends because of it finds it counted.
    SAYING.fetch_add(1, Ordering::SeqCst);
    let (level, what) = controller.interrupt_stopping(Instant::now());
    stdout_relay::stop_signal();
    if let Some(message) = say(level, what, &which.again_hint()) {
        diagnostic(format_args!("{message}"));
    }
    SAYING.fetch_sub(1, Ordering::SeqCst);
}

/// Before ralph exits: waits (at most [`SAY_WAIT`]) until the message of every stop
/// signal taken is written. False when one still is not.
pub(crate) fn wait_said() -> bool {
    let until = Instant::now() + SAY_WAIT;
    while SAYING.load(Ordering::SeqCst) > 0 {
        if Instant::now() >= until {
            return false;
        }
        std::thread::sleep(SAY_POLL);
    }
    true
}

#[cfg(test)]
#[path = "signals_tests.rs"]
mod tests;
