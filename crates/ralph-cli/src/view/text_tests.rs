use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use ralph_core::machine::{IterationOutcome, StopReason};
use ralph_core::run_event::Totals;
use ralph_stream::Tokens;
use ralph_stream::{AgentEvent, CostKind, Stop};

use super::*;

/// A writer the test can read while the observer owns it.
#[derive(Clone, Default)]
struct Screen(Rc<RefCell<Vec<u8>>>);

impl Write for Screen {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

impl Screen {
    /// What was written, control characters made visible.
    fn shown(&self) -> String {
        String::from_utf8(self.0.borrow().clone())
            .unwrap()
            .replace('\u{1b}', "␛")
            .replace('\r', "␍")
    }
}

const TOTALS: Totals = Totals {
    iterations: 1,
    elapsed_ms: 3000,
    cost_usd: 0.0,
    cost_complete: false,
    cost_estimated: false,
    tokens_complete: true,
    tokens: Tokens {
        input: 0,
        output: 0,
        cache_read: 0,
        cache_write: 0,
    },
};

fn started() -> RunEvent<'static> {
    RunEvent::IterationStarted {
        iteration: 1,
        attempt: 1,
        max_iterations: 3,
        hat: "ralph",
        hat_name: "ralph",
        backend: "pi",
        events: &[],
        wall_secs: 60,
        started_at_ms: 0,
        elapsed_ms: 0,
    }
}

/// The wall-clock time at the start of each test's clock: 2026-11-26 10:38:00 UTC.
fn wall() -> SystemTime {
    UNIX_EPOCH + Duration::from_secs(1_795_689_480)
}

/// The loop ends for `reason` with `exit_code`; its summary is `s.md`.
fn loop_finished(reason: &StopReason, exit_code: u8) -> RunEvent<'_> {
    RunEvent::LoopFinished {
        reason,
        message: reason.to_string(),
        outcome: reason.class(),
        exit_code,
        totals: TOTALS,
        summary_path: "s.md",
        git: None,
    }
}

fn observer(screen: &Screen, live: bool, t0: Instant) -> TextObserver<Screen> {
    let options = TextOptions {
        detail: Detail::Normal,
        color: false,
        live,
    };
    TextObserver::new(screen.clone(), options, Box::new(|| 40), (t0, wall()))
}

/// A silent start, text, a running tool, then the verdict, with ticks all along.
fn session(screen: &Screen, live: bool) {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let mut view = observer(screen, live, t0);
    view.observe_at(&started(), at(0));
    // Too soon: short pauses between deltas must not flicker.
    view.tick_at(at(300));
    view.tick_at(at(1000));
    view.tick_at(at(1100));
    let text = AgentEvent::TextDelta {
        text: Cow::Borrowed("Running the tests"),
    };
    view.observe_at(
        &RunEvent::Agent {
            iteration: 1,
            event: &text,
        },
        at(1200),
    );
    // Mid-line: the status line would land after the text.
    view.tick_at(at(5000));
    let done = AgentEvent::MessageFinished {
        text: Cow::Borrowed("Running the tests"),
        stop: Stop::ToolUse,
        error: None,
    };
    view.observe_at(
        &RunEvent::Agent {
            iteration: 1,
            event: &done,
        },
        at(5100),
    );
    let tool = AgentEvent::ToolCallStarted {
        id: Cow::Borrowed("t1"),
        name: Cow::Borrowed("bash"),
        args: Cow::Borrowed(r#"{"command":"cargo test --workspace --all-features"}"#),
        parent_id: None,
    };
    view.observe_at(
        &RunEvent::Agent {
            iteration: 1,
            event: &tool,
        },
        at(5200),
    );
    view.tick_at(at(65_300));
    let reason = StopReason::Interrupted;
    view.observe_at(&loop_finished(&reason, 130), at(66_000));
    // After the end, nothing more is drawn.
    view.tick_at(at(70_000));
}

#[test]
fn on_a_terminal_the_status_line_shows_while_the_agent_is_silent_and_is_erased_before_output() {
    let screen = Screen::default();
    session(&screen, true);
    // 40 columns: the header breaks between its parts (the pipe below keeps it whole).
    assert_eq!(
        screen.shown(),
        "\niteration 1/3 · ralph · pi\n  run time 0:00\n\
         ␍␛[2K⠋ iteration 1 · 0:01 · starting pi\
         ␍␛[2K⠙ iteration 1 · 0:01 · starting pi\
         ␍␛[2K\
         Running the tests\n\
         ▸ bash  cargo test --workspace --all-features\n\
         ␍␛[2K⠸ iteration 1 · 1:05 · running bash  c…\
         ␍␛[2K\n\
         ■ interrupted\n  1 iteration · 3.0s · cost unknown · 0 tokens\n  summary: s.md\n  `ralph run --continue` resumes it\n"
    );
}

/// The status line after a Ctrl-Z of `SUSPENDED` at 10 s into what it counts, then `fg`,
/// drawn at `RAN` of running time: it counts the running time only, as the loop's report
/// of the iteration (or gate) does when it ends.
fn counted_after_a_pause(start: &RunEvent<'_>) -> String {
    const SUSPENDED: Duration = Duration::from_secs(3600);
    const RAN: Duration = Duration::from_secs(15);
    let screen = Screen::default();
    let t0 = Instant::now();
    let (stop, _requests) = StopController::new();
    let mut view = observer(&screen, true, t0).pausing(&stop);
    view.observe_at(start, t0);
    stop.pause(t0 + Duration::from_secs(10));
    stop.resume(t0 + Duration::from_secs(10) + SUSPENDED);
    view.tick_at(t0 + SUSPENDED + RAN);
    screen.shown()
}

#[test]
fn the_iteration_counter_leaves_out_the_time_ralph_was_stopped() {
    let shown = counted_after_a_pause(&started());
    assert!(
        shown.ends_with("iteration 1 · 0:15 · starting pi"),
        "{shown}"
    );
}

#[test]
fn the_gate_counter_leaves_out_the_time_ralph_was_stopped() {
    let shown = counted_after_a_pause(&RunEvent::GateStarted {
        iteration: None,
        gate: "tests",
        event: None,
        command: "cargo test",
    });
    assert!(shown.ends_with("gate tests · 0:15 · running"), "{shown}");
}

#[test]
fn in_a_pipe_the_same_text_comes_without_a_status_line() {
    let screen = Screen::default();
    session(&screen, false);
    assert_eq!(
        screen.shown(),
        "\n── iteration 1/3 · ralph · pi · run time 0:00 ──\n\
         Running the tests\n\
         ▸ bash  cargo test --workspace --all-features\n\
         \n\
         ■ interrupted\n  1 iteration · 3.0s · cost unknown · 0 tokens\n  summary: s.md\n  `ralph run --continue` resumes it\n"
    );
}

#[test]
fn a_run_that_ends_in_an_error_leaves_no_status_line_behind() {
    let screen = Screen::default();
    let t0 = Instant::now();
    let mut view = observer(&screen, true, t0);
    view.observe_at(&started(), t0);
    view.tick_at(t0 + Duration::from_secs(2));
    drop(view);
    assert!(
        screen.shown().ends_with("starting pi␍␛[2K"),
        "{}",
        screen.shown()
    );
}

#[test]
fn a_closed_stdout_silences_the_view() {
    struct Closed(u32);
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            self.0 += 1;
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let options = TextOptions {
        detail: Detail::Normal,
        color: true,
        live: true,
    };
    let t0 = Instant::now();
    let mut view = TextObserver::new(Closed(0), options, Box::new(|| 80), (t0, wall()));
    view.observe_at(&started(), t0);
    view.tick_at(t0 + Duration::from_secs(2));
    view.observe_at(&started(), t0);
    assert_eq!((view.closed, view.out.0), (true, 1));
}

/// A writer that counts its writes.
struct Counting {
    bytes: Vec<u8>,
    writes: usize,
}

impl Write for Counting {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        self.writes += 1;
        self.bytes.extend_from_slice(buf);
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

#[test]
fn each_streamed_piece_is_written_once_and_nothing_is_redrawn() {
    const PIECES: usize = 3000;
    let options = TextOptions {
        detail: Detail::Normal,
        color: true,
        live: true,
    };
    let t0 = Instant::now();
    let out = Counting {
        bytes: Vec::new(),
        writes: 0,
    };
    let mut view = TextObserver::new(out, options, Box::new(|| 80), (t0, wall()));
    view.observe_at(&started(), t0);
    let header_writes = view.out.writes;
    let mut text = String::new();
    for i in 0..PIECES {
        // Words and line breaks, as an agent streams them: one small piece at a time.
        let piece = if i % 20 == 19 { "\n" } else { "w " };
        text.push_str(piece);
        let delta = AgentEvent::TextDelta {
            text: Cow::Borrowed(piece),
        };
        view.observe_at(
            &RunEvent::Agent {
                iteration: 1,
                event: &delta,
            },
            t0,
        );
    }
    let written = String::from_utf8(view.out.bytes.clone()).unwrap();
    let shown = anstream::adapter::strip_str(&written).to_string();
    assert_eq!(
        shown,
        format!("\n── iteration 1/3 · ralph · pi · run time 0:00 ──\n{text}")
    );
    assert_eq!(view.out.writes - header_writes, PIECES);
}

/// An attempt limited by its provider, then the loop's wait of 4m 12s with ticks all
/// along, ended by the shell, and the next attempt's start.
fn limited_then_wait(screen: &Screen, live: bool) {
    let t0 = Instant::now();
    let at = |ms: u64| t0 + Duration::from_millis(ms);
    let options = TextOptions {
        detail: Detail::Normal,
        color: false,
        live,
    };
    let mut view = TextObserver::new(screen.clone(), options, Box::new(|| 80), (t0, wall()));
    view.observe_at(&started(), at(0));
    let outcome = IterationOutcome::RateLimited {
        message: "429".into(),
        resets_at: None,
    };
    view.observe_at(
        &RunEvent::IterationFinished {
            iteration: 1,
            hat: "ralph",
            backend: "pi",
            model: None,
            outcome: &outcome,
            duration_ms: 500,
            cost_usd: Some(0.0),
            cost_kind: CostKind::Reported,
            tokens: Tokens::default(),
            turns: 0,
            tokens_known: true,
            completion: None,
            stderr_tail: None,
            totals: Totals {
                iterations: 0,
                ..TOTALS
            },
        },
        at(500),
    );
    view.observe_at(
        &RunEvent::RateLimitWait {
            iteration: 1,
            hat: "ralph",
            wait_secs: 252,
            resets_at: None,
            message: "429",
        },
        at(500),
    );
    // Too soon after the line that says it; then every tick redraws the time left.
    for ms in [600, 1_500, 1_600, 61_400, 252_400] {
        view.tick_at(at(ms));
    }
    view.wait_over();
    // Over: no tick draws it again.
    view.tick_at(at(252_600));
    // The attempt after the wait: the run's time counts the wait.
    let mut again = started();
    if let RunEvent::IterationStarted { elapsed_ms, .. } = &mut again {
        *elapsed_ms = 252_700;
    }
    view.observe_at(&again, at(252_700));
}

#[test]
fn on_a_terminal_a_wait_counts_down_on_the_status_line_until_it_is_over() {
    let screen = Screen::default();
    limited_then_wait(&screen, true);
    let shown = screen.shown();
    let wait = shown
        .split_once("then iteration 1 (ralph)\n")
        .unwrap_or_else(|| panic!("{shown}"))
        .1;
    assert_eq!(
        wait,
        "␍␛[2K⏸ rate limited on pi: retrying in 4m 11s (at 10:42 UTC)\
         ␍␛[2K⏸ rate limited on pi: retrying in 4m 11s (at 10:42 UTC)\
         ␍␛[2K⏸ rate limited on pi: retrying in 3m 12s (at 10:42 UTC)\
         ␍␛[2K⏸ rate limited on pi: retrying in 1s (at 10:42 UTC)\
         ␍␛[2K\
         \n── iteration 1/3 · ralph · pi · run time 4:12 ──\n"
    );
}

#[test]
fn in_a_pipe_a_wait_is_one_line_and_no_countdown() {
    let screen = Screen::default();
    limited_then_wait(&screen, false);
    let shown = screen.shown();
    assert!(
        shown.contains(
            "⏸ rate limited: waiting 4m 12s, then iteration 1 (ralph)\n\n── iteration 1/3"
        ),
        "{shown}"
    );
    assert!(
        !shown.contains('␍') && !shown.contains("retrying in"),
        "{shown}"
    );
}

/// A stale loop hit no limit there is to raise: the way on is other instructions.
#[test]
fn a_stale_loop_is_not_told_to_raise_a_limit() {
    let screen = Screen::default();
    let t0 = Instant::now();
    let mut view = observer(&screen, false, t0);
    view.observe_at(&started(), t0);
    let reason = StopReason::StaleLoop {
        topic: "build.done".into(),
        repeats: 3,
    };
    view.observe_at(&loop_finished(&reason, 2), t0 + Duration::from_secs(3));
    let shown = screen.shown();
    assert!(
        shown.ends_with(
            "  summary: s.md\n  `ralph run --continue` resumes it; change the prompt or the \
             hats first if the agent would only repeat itself again\n"
        ),
        "{shown}"
    );
}

#[test]
fn a_worktree_loop_seen_from_elsewhere_says_where_its_summary_is_and_where_to_resume() {
    let screen = Screen::default();
    let t0 = Instant::now();
    let mut view =
        observer(&screen, false, t0).show_workspace_as(".ralph/worktrees/fix-login".into());
    view.observe_at(&started(), t0);
    let reason = StopReason::MaxIterations { limit: 3 };
    view.observe_at(&loop_finished(&reason, 2), t0 + Duration::from_secs(3));
    let shown = screen.shown();
    assert!(
        shown.ends_with(
            "  summary: .ralph/worktrees/fix-login/s.md
  `ralph run --continue` with a higher \
             limit in .ralph/worktrees/fix-login resumes it\n"
        ),
        "{shown}"
    );
}
