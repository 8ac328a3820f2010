//! The text view of a run, for people: [`RunView`]'s rendering written to stdout as
//! each event happens.
//!
//! - **Live** (stdout is a terminal): colours unless turned off, and while the agent is
//!   silent a status line (spinner, elapsed time, what the agent is doing) on the empty
//!   line under the output, erased before anything else is written; while the loop waits
//!   for a provider's limit, the same line counts down the time left.
//! - **Plain** (a pipe or a file): the same text, no colours unless `--color always`,
//!   never a control sequence of the status line.
//! - **Quiet** (`-q`): only why the loop stopped.
//!
//! A closed stdout (`ralph run | head`) silences the view, says so once on stderr, and
//! the run goes on.

use std::io::{self, IsTerminal, Write};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use ralph_agent::StopController;
use ralph_core::config::MAX_RATE_LIMIT_WAIT;
use ralph_core::run_event::RunEvent;

use super::observer::{Observer, report_closed};
use super::stdout_relay::RelayedStdout;
use crate::view::term::limit_lines;
use crate::view::term::status::{self, ERASE, SHOW_AFTER, status_line};
use crate::view::term::{Detail, RunView};

/// Terminal width assumed when it cannot be read.
const DEFAULT_COLUMNS: usize = 80;

/// How the view is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TextOptions {
    pub(crate) detail: Detail,
    /// Keep the ANSI styles (else they are stripped).
    pub(crate) color: bool,
    /// Stdout is a terminal that understands cursor movement: draw the status line.
    pub(crate) live: bool,
}

impl TextOptions {
    /// The options for stdout: `color` as decided by `--color` and `NO_COLOR`; live when
    /// stdout is a terminal (not a dumb one) and there is more than the verdict to show.
    pub(crate) fn for_stdout(detail: Detail, color: bool) -> TextOptions {
        let dumb = std::env::var_os("TERM").is_some_and(|t| t == "dumb");
        TextOptions {
            detail,
            color,
            live: io::stdout().is_terminal() && !dumb && detail != Detail::Quiet,
        }
    }
}

/// The status line's state.
struct Live {
    /// The terminal's width now.
    columns: Box<dyn Fn() -> usize>,
    /// A status line is on the screen.
    shown: bool,
    /// When the last output was written (the agent's silence starts there).
    last_output: Instant,
    /// When the current iteration started; `None` between iterations.
    iteration_started: Option<Instant>,
    /// The gate running and when it started (the status line then counts its time).
    gate: Option<(String, Instant)>,
    /// The backend of the last iteration started (a wait's countdown names it).
    backend: String,
    /// The wait for a provider's limit going on, if one is.
    wait: Option<Wait>,
    /// A moment and its wall-clock time: a wait's end is said as a UTC time.
    wall: (Instant, SystemTime),
    /// Where the time ralph was stopped (Ctrl-Z until `fg`) adds up; `None` when nothing
    /// pauses what this view shows.
    pauses: Option<StopController>,
}

/// A wait for a provider's limit, as its countdown shows it.
struct Wait {
    backend: String,
    /// When it ends.
    until: Instant,
}

impl Live {
    /// `at` as Unix seconds, by the wall clock.
    fn unix_secs(&self, at: Instant) -> u64 {
        let (anchor, wall) = self.wall;
        let t = match at.checked_duration_since(anchor) {
            Some(later) => wall + later,
            None => wall
                .checked_sub(anchor.duration_since(at))
                .unwrap_or(UNIX_EPOCH),
        };
        t.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs())
    }

    /// The time from `since` to `now` that was not spent stopped: what the loop reports
    /// as the iteration's (or the gate's) time when it ends, so the counter never runs
    /// ahead of the line that closes it. A pause still going on is not left out, but
    /// then ralph is stopped and draws nothing.
    fn ran(&self, since: Instant, now: Instant) -> Duration {
        let stopped = self
            .pauses
            .as_ref()
            .map_or(Duration::ZERO, |stop| stop.paused_since(since));
        now.saturating_duration_since(since).saturating_sub(stopped)
    }
}

pub(crate) struct TextObserver<W: Write> {
    out: W,
    view: RunView,
    color: bool,
    live: Option<Live>,
    closed: bool,
    /// The last character written ended a line (the status line may go there).
    at_line_start: bool,
    rendered: String,
    bytes: String,
}

impl TextObserver<RelayedStdout> {
    /// On stdout, through the relay (see `stdout_relay.rs`).
    pub(crate) fn stdout(options: TextOptions) -> Self {
        let columns = || {
            terminal_size::terminal_size_of(io::stdout())
                .map_or(DEFAULT_COLUMNS, |(w, _)| usize::from(w.0))
        };
        TextObserver::new(
            RelayedStdout,
            options,
            Box::new(columns),
            (Instant::now(), SystemTime::now()),
        )
    }
}

impl<W: Write> TextObserver<W> {
    /// A view writing to `out`; `columns` gives the terminal's width for the status line;
    /// `now` is the time now, and its wall-clock time.
    pub(crate) fn new(
        out: W,
        options: TextOptions,
        columns: Box<dyn Fn() -> usize>,
        now: (Instant, SystemTime),
    ) -> Self {
        TextObserver {
            out,
            view: RunView::new(options.detail),
            color: options.color,
            live: options.live.then(|| Live {
                columns,
                shown: false,
                last_output: now.0,
                iteration_started: None,
                gate: None,
                backend: String::new(),
                wait: None,
                wall: now,
                pauses: None,
            }),
            closed: false,
            at_line_start: true,
            rendered: String::new(),
            bytes: String::new(),
        }
    }

    /// Shows the run's paths from where ralph was started, `workspace` being the
    /// workspace as seen from there (`--worktree`).
    pub(crate) fn show_workspace_as(mut self, workspace: std::path::PathBuf) -> Self {
        self.view.workspace_shown = Some(workspace);
        self
    }

    /// Leaves the time ralph was stopped under `stop` (Ctrl-Z until `fg`) out of the
    /// status line's running time, as the loop leaves it out of the times it reports.
    pub(crate) fn pausing(mut self, stop: &StopController) -> Self {
        if let Some(live) = self.live.as_mut() {
            live.pauses = Some(stop.clone());
        }
        self
    }

    /// [`Observer::observe`] at a given time (tests pass their own clock).
    pub(crate) fn observe_at(&mut self, event: &RunEvent<'_>, now: Instant) {
        if self.closed {
            return;
        }
        if let Some(live) = self.live.as_mut() {
            match event {
                RunEvent::IterationStarted { backend, .. } => {
                    live.iteration_started = Some(now);
                    (*backend).clone_into(&mut live.backend);
                }
                RunEvent::RateLimitWait { wait_secs, .. } => {
                    live.wait = Some(Wait {
                        backend: live.backend.clone(),
                        // A capture read back can say any number: past the longest
                        // wait a live run takes, the line would only count down a lie.
                        until: now + Duration::from_secs(*wait_secs).min(MAX_RATE_LIMIT_WAIT),
                    });
                }
                RunEvent::IterationFinished { .. }
                | RunEvent::LoopFinished { .. }
                | RunEvent::Error { .. } => {
                    live.iteration_started = None;
                }
                RunEvent::GateStarted { gate, .. } => live.gate = Some(((*gate).to_owned(), now)),
                RunEvent::GateFinished { .. } => live.gate = None,
                RunEvent::LoopStarted { .. }
                | RunEvent::Agent { .. }
                | RunEvent::EventsEmitted { .. }
                | RunEvent::Failover { .. }
                | RunEvent::Notice { .. }
                | RunEvent::HookStarted { .. }
                | RunEvent::HookFinished { .. }
                | RunEvent::SteerReceived { .. }
                | RunEvent::SteerDelivered { .. } => {}
            }
        }
        self.rendered.clear();
        self.view
            .set_width(self.live.as_ref().map(|live| (live.columns)()));
        self.view.render(event, &mut self.rendered);
        if self.rendered.is_empty() {
            return;
        }
        self.bytes.clear();
        self.take_status_down();
        let mut last_visible = None;
        for piece in anstream::adapter::strip_str(&self.rendered) {
            if !self.color {
                self.bytes.push_str(piece);
            }
            last_visible = piece.chars().last().or(last_visible);
        }
        if self.color {
            self.bytes.push_str(&self.rendered);
        }
        if let Some(last) = last_visible {
            self.at_line_start = last == '\n';
        }
        if let Some(live) = self.live.as_mut() {
            live.last_output = now;
            status::set_mid_line(!self.at_line_start);
        }
        self.write();
    }

    /// [`Observer::tick`]: draws or refreshes the status line when the agent has been
    /// silent long enough and the cursor is on an empty line.
    pub(crate) fn tick_at(&mut self, now: Instant) {
        if self.closed || !self.at_line_start {
            return;
        }
        let Some(live) = self.live.as_mut() else {
            return;
        };
        if now.saturating_duration_since(live.last_output) < SHOW_AFTER {
            return;
        }
        let text = if let Some(wait) = &live.wait {
            let left = wait.until.saturating_duration_since(now);
            let line = limit_lines::countdown(
                &wait.backend,
                left,
                live.unix_secs(wait.until),
                live.unix_secs(now),
            );
            status::fit(line, (live.columns)())
        } else {
            // A gate counts its own time, with or without an iteration (`ralph gates`).
            let (what, since, doing) = if let Some((gate, started)) = &live.gate {
                (format!("gate {gate}"), *started, "running".to_owned())
            } else {
                let Some(started) = live.iteration_started else {
                    return;
                };
                let (Some((number, _, backend)), Some(activity)) =
                    (self.view.iteration(), self.view.activity())
                else {
                    return;
                };
                (
                    format!("iteration {number}"),
                    started,
                    activity.describe(backend),
                )
            };
            status_line(&what, live.ran(since, now), &doing, (live.columns)())
        };
        self.bytes.clear();
        self.bytes.push_str(ERASE);
        if self.color {
            let dim = anstyle::Style::new().dimmed();
            self.bytes
                .push_str(&format!("{}{text}{}", dim.render(), dim.render_reset()));
        } else {
            self.bytes.push_str(&text);
        }
        live.shown = true;
        status::set_shown(true);
        self.write();
    }

    /// [`Observer::wait_over`]: the countdown goes.
    fn end_wait(&mut self) {
        if self.closed {
            return;
        }
        if let Some(live) = self.live.as_mut() {
            live.wait = None;
        }
        self.bytes.clear();
        self.take_status_down();
        if !self.bytes.is_empty() {
            self.write();
        }
    }

    /// Queues the erasure of the status line, if one is shown.
    fn take_status_down(&mut self) {
        if let Some(live) = self.live.as_mut()
            && live.shown
        {
            live.shown = false;
            status::set_shown(false);
            self.bytes.push_str(ERASE);
        }
    }

    /// Writes the queued bytes in one write, flushed so they show at once.
    fn write(&mut self) {
        let written = self
            .out
            .write_all(self.bytes.as_bytes())
            .and_then(|()| self.out.flush());
        if let Err(e) = written {
            self.closed = true;
            if let Some(live) = self.live.as_mut() {
                live.shown = false;
            }
            status::set_shown(false);
            report_closed(&e);
        }
    }
}

impl<W: Write> Observer for TextObserver<W> {
    fn observe(&mut self, event: &RunEvent<'_>) {
        self.observe_at(event, Instant::now());
    }

    fn wants_ticks(&self) -> bool {
        self.live.is_some()
    }

    fn tick(&mut self, now: Instant) {
        self.tick_at(now);
    }

    fn wait_over(&mut self) {
        self.end_wait();
    }
}

impl<W: Write> Drop for TextObserver<W> {
    /// A run that ends in an error leaves no status line behind.
    fn drop(&mut self) {
        if self.closed {
            return;
        }
        self.bytes.clear();
        self.take_status_down();
        if !self.bytes.is_empty() {
            self.write();
        }
    }
}

#[cfg(test)]
#[path = "text_tests.rs"]
mod tests;
