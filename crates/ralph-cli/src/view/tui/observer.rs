//! `ralph run --tui`: the TUI as the run's observer. Each event becomes its JSON line
//! (what `--output json` prints and `run-events.jsonl` keeps) and is read back into the
//! model, so the live view and `ralph watch` never differ. Keys are read on ticks and
//! between events; `q` asks, then stops the loop as Ctrl-C does.

use std::path::PathBuf;
use std::time::Instant;

use ralph_agent::StopController;
use ralph_core::run_event::RunEvent;

use super::app::Request;
use super::session::Session;
use super::terminal::Screen;
use crate::diagnostic::diagnostic;
use crate::view::observer::Observer;
use crate::view::stopping::stop_message;
use crate::view::term::Pointers;

pub(crate) struct TuiObserver {
    session: Session,
    stop: StopController,
    line: Vec<u8>,
    /// The workspace as seen from where ralph was started (`--worktree`).
    workspace_shown: Option<PathBuf>,
    /// What the run's end points to, said once the screen is left: the screen that
    /// showed it is gone, and the text view would have said it.
    pointers: Option<Pointers>,
}

impl TuiObserver {
    /// Takes the terminal over. `workspace_shown`: as for the text view, the workspace
    /// as seen from where ralph was started when the loop runs elsewhere.
    pub(crate) fn start(
        stop: StopController,
        color: bool,
        workspace_shown: Option<PathBuf>,
    ) -> std::io::Result<TuiObserver> {
        let screen = Screen::enter()?;
        Ok(TuiObserver {
            session: Session::new(screen, true, color, None).pausing(stop.clone()),
            stop,
            line: Vec::with_capacity(4096),
            workspace_shown,
            pointers: None,
        })
    }

    fn keys(&mut self, now: Instant) {
        if crate::job_control::screen_asked() {
            self.session.suspend();
        }
        match self.session.keys(std::time::Duration::ZERO) {
            Request::Quit => {
                self.session.app.stopping = Some("stopping the loop…".to_owned());
                self.interrupt(now);
            }
            Request::Interrupt => self.interrupt(now),
            Request::None | Request::Export | Request::Suspend => {}
        }
    }

    fn interrupt(&mut self, now: Instant) {
        let (level, what) = self.stop.interrupt_stopping(now);
        if let Some(message) = stop_message(level, what, "Ctrl-C again kills it") {
            self.session.app.stopping = Some(message);
        }
    }

    /// After the loop: the TUI stays until `q` so its end can be read, unless the user
    /// already asked to stop (a quit, Ctrl-C, SIGTERM) or the loop ended in an error. Then the terminal is given back
    /// and the verdict said on it.
    pub(crate) fn finish(&mut self) {
        let interrupted = self.session.model.stop_reason.as_deref() == Some("interrupted");
        // No end recorded: ralph failed, and its error is said once the screen is back.
        let ended = self.session.model.finished.is_some();
        if ended && !interrupted && self.session.on_screen() {
            self.session.app.message = Some("the loop has ended: q leaves".to_owned());
            loop {
                self.session.draw(Instant::now());
                match self.session.keys(crate::view::term::status::FRAME_INTERVAL) {
                    Request::Quit | Request::Interrupt => break,
                    Request::None | Request::Export | Request::Suspend => {}
                }
                if !self.session.on_screen() {
                    break;
                }
            }
        }
        self.session.leave();
        if let Some(verdict) = &self.session.model.finished {
            diagnostic(format_args!(
                "{}",
                farewell(verdict, &self.session.model.run_id, self.pointers.as_ref())
            ));
        }
    }
}

/// What `ralph run --tui` says on the terminal it gave back: the verdict and the run, then
/// (when the loop ended its run) where the summary is and how to go on, as the text view
/// ends.
fn farewell(verdict: &str, run_id: &str, pointers: Option<&Pointers>) -> String {
    let mut said = format!("{verdict} (run {run_id})");
    if let Some(pointers) = pointers {
        said.push_str("\n  ");
        said.push_str(&pointers.summary);
        if let Some(resume) = &pointers.resume {
            said.push_str("\n  ");
            said.push_str(resume);
        }
    }
    said
}

impl Observer for TuiObserver {
    fn observe(&mut self, event: &RunEvent<'_>) {
        if let RunEvent::LoopFinished {
            reason,
            outcome,
            summary_path,
            ..
        } = event
        {
            self.pointers = Some(Pointers::of(
                reason,
                *outcome,
                summary_path,
                self.workspace_shown.as_deref(),
            ));
        }
        self.line.clear();
        if serde_json::to_writer(&mut self.line, event).is_ok() {
            self.session.apply_json(&self.line);
        }
        let now = Instant::now();
        self.keys(now);
        self.session.draw_if_due(now);
    }

    fn wants_ticks(&self) -> bool {
        true
    }

    fn tick(&mut self, now: Instant) {
        self.keys(now);
        self.session.draw_if_due(now);
    }
}

/// Stands in for the line view while the TUI has the screen.
pub(crate) struct NoObserver;

impl Observer for NoObserver {
    fn observe(&mut self, _event: &RunEvent<'_>) {}
}

#[cfg(test)]
#[path = "observer_tests.rs"]
mod tests;
