//! What `ralph run --tui` and `ralph watch` share: the model, the view's state and the
//! screen, keys handled, frames drawn at most every [`FRAME_INTERVAL`] and only when
//! something changed (or the clock in the header moved).

use std::path::PathBuf;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ralph_agent::StopController;
use ratatui::crossterm::event::Event;

use super::app::{App, Request};
use super::model::RunModel;
use super::terminal::{self, Screen};
use super::theme::Theme;
use super::{draw, export};
use crate::job_control;
use crate::view::term::status::FRAME_INTERVAL;

pub(crate) struct Session {
    pub(crate) model: RunModel,
    pub(crate) app: App,
    theme: Theme,
    screen: Option<Screen>,
    last_draw: Option<Instant>,
    dirty: bool,
    /// Where exports go when the record does not say (`ralph watch` knows its run).
    run_dir: Option<PathBuf>,
    /// Held stderr messages seen (see [`terminal::hold`]).
    held_seen: usize,
    /// What a Ctrl-Z pauses with the view (`ralph run --tui`: the loop's runs).
    pauses: Option<StopController>,
}

impl Session {
    pub(crate) fn new(
        screen: Screen,
        confirm_quit: bool,
        color: bool,
        run_dir: Option<PathBuf>,
    ) -> Session {
        Session {
            model: RunModel::default(),
            app: App::new(confirm_quit),
            theme: Theme { color },
            screen: Some(screen),
            last_draw: None,
            dirty: true,
            run_dir,
            held_seen: 0,
            pauses: None,
        }
    }

    /// A Ctrl-Z pauses what runs under `stop` too.
    pub(crate) fn pausing(mut self, stop: StopController) -> Session {
        self.pauses = Some(stop);
        self
    }

    /// Ctrl-Z: gives the terminal back, stops ralph (and what runs), and once `fg`
    /// continued it, takes the terminal again.
    pub(crate) fn suspend(&mut self) {
        let Some(screen) = &mut self.screen else {
            return;
        };
        let mut taken_again = true;
        job_control::suspend_screen(self.pauses.as_ref(), |stopped| {
            taken_again = screen.suspended(stopped).is_ok();
        });
        if !taken_again {
            // The terminal is gone (closed window): stop drawing, keep the run.
            self.screen = None;
        }
        self.dirty = true;
        self.last_draw = None;
    }

    /// Whether the TUI still holds the terminal.
    pub(crate) fn on_screen(&self) -> bool {
        self.screen.is_some()
    }

    /// Gives the terminal back (drawing stops).
    pub(crate) fn leave(&mut self) {
        self.screen = None;
    }

    /// Reads one JSON line of the run's events.
    pub(crate) fn apply_json(&mut self, line: &[u8]) {
        self.model.apply_json(line);
        self.model.heard_ms = wall_ms();
        self.dirty = true;
    }

    /// A record line too long to read: counted as an unreadable one.
    pub(crate) fn skip_line(&mut self) {
        self.model.unreadable_lines += 1;
        self.dirty = true;
    }

    /// Handles the keys that came (waiting up to `wait` for the first); returns the
    /// first request that needs its runner.
    pub(crate) fn keys(&mut self, wait: Duration) -> Request {
        let Some(screen) = &self.screen else {
            return Request::None;
        };
        let mut next = if wait.is_zero() {
            screen.next_event()
        } else {
            screen.wait_event(wait)
        };
        while let Some(event) = next {
            self.dirty = true;
            if let Event::Key(key) = event {
                match self.app.key(key, &mut self.model) {
                    Request::None => {}
                    Request::Export => self.export(),
                    Request::Suspend => self.suspend(),
                    other => return other,
                }
            }
            next = self.screen.as_ref().and_then(Screen::next_event);
        }
        Request::None
    }

    fn export(&mut self) {
        let Some(index) = self.app.shown(&self.model) else {
            self.app.message = Some("no iteration to export yet".to_owned());
            return;
        };
        let run_dir = match &self.run_dir {
            Some(dir) => dir.clone(),
            None => PathBuf::from(&self.model.run_dir),
        };
        self.app.message = Some(match export::write(&self.model, index, &run_dir) {
            Ok(path) => format!("exported to {}", path.display()),
            Err(e) => format!("cannot export: {e}"),
        });
    }

    /// Draws when a frame is due: something changed, or a second passed for the clock.
    pub(crate) fn draw_if_due(&mut self, now: Instant) {
        let due = match self.last_draw {
            None => true,
            Some(last) => {
                let since = now.duration_since(last);
                since >= FRAME_INTERVAL && (self.dirty || since >= CLOCK_INTERVAL)
            }
        };
        if due {
            self.draw(now);
        }
    }

    pub(crate) fn draw(&mut self, now: Instant) {
        if let Some(message) = terminal::newest_held(&mut self.held_seen) {
            self.app.message = Some(message);
        }
        let Some(screen) = &mut self.screen else {
            return;
        };
        let now_ms = wall_ms();
        if let (Some(stop), Some(it)) = (&self.pauses, self.model.live()) {
            self.model.paused_ms = paused_ms_since(stop, it.started_at_ms, now, now_ms);
            self.model.paused_since_heard_ms =
                paused_ms_since(stop, self.model.heard_ms, now, now_ms);
        }
        let (model, app, theme) = (&self.model, &mut self.app, self.theme);
        if screen
            .draw(|f| draw::frame(f, model, app, theme, now_ms))
            .is_err()
        {
            // The terminal is gone (closed window): stop drawing, keep the run.
            self.screen = None;
        }
        self.last_draw = Some(now);
        self.dirty = false;
    }
}

/// The wall clock in Unix milliseconds.
fn wall_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
}

/// The time ralph was stopped under `stop` since `started_at_ms` (Unix milliseconds),
/// in milliseconds: the pauses are kept on the monotonic clock, the record's times on
/// the wall clock, and `now` and `now_ms` are the same moment on each.
fn paused_ms_since(stop: &StopController, started_at_ms: u64, now: Instant, now_ms: u64) -> u64 {
    let ago = Duration::from_millis(now_ms.saturating_sub(started_at_ms));
    // A start the monotonic clock cannot reach (before the machine booted) is no start
    // of this ralph's: nothing of it was paused.
    let Some(since) = now.checked_sub(ago) else {
        return 0;
    };
    u64::try_from(stop.paused_since(since).as_millis()).unwrap_or(u64::MAX)
}

/// How often the header's clock is redrawn when nothing else changes.
const CLOCK_INTERVAL: Duration = Duration::from_secs(1);

#[cfg(test)]
#[path = "session_tests.rs"]
mod tests;
