//! The loop's last read of its inbox and the mark that closes it (`inbox.closed`), both
//! under the inbox's lock, which `ralph emit` holds from its check to its append (see
//! `ralph_core::store::RunDir::lock_inbox`). An event appended after the last
//! iteration's read (by a gate or hook of that iteration, or a person meanwhile) is
//! read here, and named, rather than left unread while emit said "published"; an emit
//! after this finds the mark and refuses.

use ralph_core::fsafe::MAX_INBOX_ITERATION_BYTES;
use ralph_core::inbox::InboxReader;
use ralph_core::machine::Notice;
use ralph_core::run_event::RunEvent;

use super::{Run, ensure_run_dir, report_notices};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::view::observer::Observer;

/// Reads what the inbox got since the last iteration's read, hands it to the machine
/// (`Machine::read_after_end`) and marks the inbox closed. The loop has stopped; what
/// fails here is warned about, and the run ends as it would have.
pub(super) fn close_inbox(
    run: &mut Run<'_>,
    reader: &mut InboxReader,
    observer: &mut dyn Observer,
) -> Result<(), CliError> {
    ensure_run_dir(&run.run_dir)?;
    let lock = match run.run_dir.lock_inbox() {
        Ok(lock) => Some(lock),
        Err(e) => {
            diagnostic(format_args!(
                "warning: cannot lock `{}` ({e}): an event `ralph emit` publishes while this \
                 loop closes its inbox may be left unread",
                run.run_dir.inbox_lock_path().display()
            ));
            None
        }
    };
    match reader.read_through(MAX_INBOX_ITERATION_BYTES) {
        Ok(late) => run.machine.read_after_end(late),
        Err(e) => diagnostic(format_args!(
            "warning: cannot read the event inbox `{}` ({e}): the events published after \
             the last iteration's were not read",
            reader.path().display()
        )),
    }
    if reader.deferred() > 0 {
        diagnostic(format_args!(
            "warning: {} bytes of the event inbox `{}` published after the last iteration \
             are past what the loop reads at once ({MAX_INBOX_ITERATION_BYTES} bytes): \
             `ralph run --continue` reads them",
            reader.deferred(),
            reader.path().display(),
        ));
    }
    if let Some(restart) = reader.take_restart() {
        observer.observe(&RunEvent::Notice {
            iteration: None,
            notice: &Notice::InboxRestarted { restart },
        });
    }
    report_notices(&mut run.machine, None, observer);
    // From here `ralph emit` refuses, as `ralph steer` does (the loop still holds the
    // workspace lock through its summary and end hooks).
    let started = ralph_agent::supervise::own_identity().map(|me| me.start_ticks);
    if let Err(e) = run.run_dir.close_inbox(started) {
        diagnostic(format_args!(
            "warning: cannot write `{}`: `ralph emit` may say an event is published while \
             this loop finishes, and no one will read it: {e}",
            run.run_dir.inbox_closed_path().display()
        ));
    }
    drop(lock);
    Ok(())
}
