//! `ralph run --tui`: the TUI as the run's observer. Each event becomes its JSON line
//! (what `--output json` prints and `run-events.jsonl` keeps) and is read back into the
//! model, so the live view and `ralph watch` never differ. Keys are read on ticks and
//! between events; `q` asks, then stops the loop as Ctrl-C does.

use std::time::Instant;

use ralph_agent::StopController;
use ralph_core::run_event::RunEvent;

use super::app::Request;
use super::session::Session;
use super::terminal::Screen;
use crate::diagnostic::diagnostic;
use crate::view::observer::Observer;
use crate::view::stopping::stop_message;

pub(crate) struct TuiObserver {
    session: Session,
    stop: StopController,
    line: Vec<u8>,
}

impl TuiObserver {
    /// Takes the terminal over.
    pub(crate) fn start(stop: StopController, color: bool) -> std::io::Result<TuiObserver> {
        let screen = Screen::enter()?;
        Ok(TuiObserver {
            session: Session::new(screen, true, color, None),
            stop,
            line: Vec::with_capacity(4096),
        })
    }

    fn keys(&mut self, now: Instant) {
        match self.session.keys(std::time::Duration::ZERO) {
            Request::Quit => {
                self.session.app.stopping = Some("stopping the loop…".to_owned());
                self.interrupt(now);
            }
            Request::Interrupt => self.interrupt(now),
            Request::None | Request::Export => {}
        }
    }

    fn interrupt(&mut self, now: Instant) {
        let level = self.stop.interrupt(now);
        let what = self.stop.what_runs();
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
                    Request::None | Request::Export => {}
                }
                if !self.session.on_screen() {
                    break;
                }
            }
        }
        self.session.leave();
        if let Some(verdict) = &self.session.model.finished {
            diagnostic(format_args!(
                "{verdict} (run {})",
                self.session.model.run_id
            ));
        }
    }
}

impl Observer for TuiObserver {
    fn observe(&mut self, event: &RunEvent<'_>) {
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
