//! The TUI drawn on ratatui's `TestBackend` at key moments of real pi and Claude Code
//! transcripts (tests/fixtures), fed as the run's events through the same JSON path as
//! `ralph run --tui` and `ralph watch`; keys, search, export, resizes, NO_COLOR, and the
//! file follower. Steering and rate limits are in `limits_tests.rs`, words in
//! `words_tests.rs`, the export's escapes in `export_tests.rs`, emoji in `glyphs_tests.rs`.

use std::io::Write as _;
use std::path::Path;

use ralph_core::machine::{GateEnd, GateResult, IterationOutcome, StopReason};
use ralph_core::run_event::{Limits, RunEvent, Totals};
use ralph_stream::{AgentEvent, CostKind, StreamDecoder, Tokens};
use ratatui::Terminal;
use ratatui::backend::TestBackend;
use ratatui::crossterm::event::{KeyCode, KeyEvent, KeyModifiers};

use super::app::{App, Request};
use super::model::{Entry, RunModel};
use super::theme::Theme;
use super::{draw, export, follow};

/// What the model makes of notices, gates and tags' events, in words: beside this file.
#[path = "words_tests.rs"]
mod words;

/// Cells terminals measure differently: beside this file.
#[path = "glyphs_tests.rs"]
mod glyphs;

/// What the export writes: beside this file.
#[path = "export_tests.rs"]
mod exports;

/// Steering, rate limits and their waits on the screen: beside this file.
#[path = "limits_tests.rs"]
mod limits;

// The header's cost: how sure it is, before, while and after an iteration runs.
#[path = "cost_tests.rs"]
mod cost;

/// Scrolling and searching a long iteration: beside this file.
#[path = "window_tests.rs"]
mod window;

/// `q`'s question and the loop's end: beside this file.
#[path = "quit_tests.rs"]
mod quit;

/// The wall clock the frames are drawn at: 42 s into the running iteration.
const STARTED_AT_MS: u64 = 1_795_643_710_000;
const NOW_MS: u64 = STARTED_AT_MS + 42_000;

const NO_TOKENS: Tokens = Tokens {
    input: 0,
    output: 0,
    cache_read: 0,
    cache_write: 0,
};

fn totals(iterations: u32, cost_usd: f64) -> Totals {
    Totals {
        iterations,
        elapsed_ms: 61_000 * u64::from(iterations),
        cost_usd,
        cost_complete: true,
        cost_estimated: false,
        tokens_complete: true,
        tokens: Tokens {
            input: 1200 * u64::from(iterations),
            output: 300 * u64::from(iterations),
            ..NO_TOKENS
        },
    }
}

/// Reads a run event as `ralph run --tui` does: its JSON line, parsed back.
fn feed(model: &mut RunModel, event: &RunEvent<'_>) {
    let line = serde_json::to_vec(event).unwrap();
    model.apply_json(&line);
    assert_eq!(
        model.unreadable_lines,
        0,
        "{}",
        String::from_utf8_lossy(&line)
    );
}

fn fixture(path: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../tests/fixtures")
            .join(path),
    )
    .unwrap()
}

/// The agent events of a captured stream, as JSON lines of `agent` run events (what
/// `ralph inspect --events` decodes), `iteration` set.
fn agent_lines(stream: &[u8], iteration: u32) -> Vec<Vec<u8>> {
    let mut decoder = StreamDecoder::new(None);
    let mut lines = Vec::new();
    let mut push = |event: &AgentEvent<'_>| {
        lines.push(serde_json::to_vec(&RunEvent::Agent { iteration, event }).unwrap());
    };
    decoder.feed(stream, &mut push);
    decoder.finish(&mut push);
    lines
}

/// An agent event of iteration 1.
fn agent(model: &mut RunModel, event: &AgentEvent<'_>) {
    feed(
        model,
        &RunEvent::Agent {
            iteration: 1,
            event,
        },
    );
}

/// A bash tool call `id` running `command`, in iteration 1.
fn bash_call(model: &mut RunModel, id: &str, command: &str) {
    let args = serde_json::json!({ "command": command }).to_string();
    agent(
        model,
        &AgentEvent::ToolCallStarted {
            id: id.into(),
            name: "bash".into(),
            args: args.into(),
            parent_id: None,
        },
    );
}

fn loop_started(model: &mut RunModel, backend: &str) {
    feed(
        model,
        &RunEvent::LoopStarted {
            run_id: "20261125-215510-tui1",
            resumed: false,
            workspace: "/work",
            run_dir: "/work/.ralph/runs/20261125-215510-tui1",
            backend,
            hats: vec!["builder", "reviewer"],
            limits: Limits {
                max_iterations: 10,
                max_runtime_secs: 1800,
                max_cost_usd: Some(5.0),
                max_consecutive_failures: 3,
                completion_promise: "LOOP_COMPLETE",
                required_events: &[],
            },
            totals: totals(0, 0.0),
        },
    );
}

/// A model with the loop started and iteration 1 (`hat` on `backend`) fed the agent
/// lines of a capture.
fn one_iteration(backend: &str, hat: &str, capture: &str) -> RunModel {
    let mut model = RunModel::default();
    loop_started(&mut model, backend);
    iteration_started(&mut model, 1, hat, backend);
    for line in agent_lines(&fixture(capture), 1) {
        model.apply_json(&line);
    }
    model
}

fn iteration_started(model: &mut RunModel, iteration: u32, hat: &str, backend: &str) {
    attempt_started(model, iteration, 1, hat, backend);
}

/// Attempt `attempt` at iteration `iteration` starts.
fn attempt_started(model: &mut RunModel, iteration: u32, attempt: u32, hat: &str, backend: &str) {
    feed(
        model,
        &RunEvent::IterationStarted {
            iteration,
            attempt,
            max_iterations: 10,
            hat,
            hat_name: hat,
            backend,
            events: &[],
            wall_secs: 600,
            // Each is drawn as if it started at one moment, after the earlier ones' time.
            started_at_ms: STARTED_AT_MS,
            elapsed_ms: 61_000 * u64::from(iteration - 1),
        },
    );
}

fn iteration_finished(model: &mut RunModel, iteration: u32, hat: &str, outcome: &IterationOutcome) {
    feed(
        model,
        &RunEvent::IterationFinished {
            iteration,
            hat,
            backend: "pi",
            model: Some("claude-sonnet-4-5"),
            outcome,
            duration_ms: 61_000,
            cost_usd: Some(0.0123),
            cost_kind: CostKind::Reported,
            tokens: NO_TOKENS,
            turns: 2,
            tokens_known: true,
            completion: None,
            stderr_tail: None,
            totals: totals(iteration, 0.0123 * f64::from(iteration)),
        },
    );
}

fn gate(model: &mut RunModel, iteration: u32, passed: bool) {
    feed(
        model,
        &RunEvent::GateStarted {
            iteration: Some(iteration),
            gate: "tests",
            event: Some("build.done"),
            command: "cargo test",
        },
    );
    let result = GateResult {
        gate: "tests".to_owned(),
        event: "build.done".to_owned(),
        end: if passed {
            GateEnd::Passed
        } else {
            GateEnd::Exit
        },
        exit_code: Some(if passed { 0 } else { 101 }),
        duration_ms: 4_200,
        output: if passed {
            String::new()
        } else {
            "test foo ... FAILED\n1 failed".to_owned()
        },
        output_lines: if passed { 0 } else { 2 },
        log: None,
    };
    feed(
        model,
        &RunEvent::GateFinished {
            iteration: Some(iteration),
            passed,
            result: &result,
        },
    );
}

/// Draws `model` at `width`×`height` and returns the screen as text.
fn screen(model: &RunModel, app: &mut App, width: u16, height: u16) -> String {
    screen_at(model, app, width, height, NOW_MS)
}

/// [`screen`] with the wall clock at `now_ms`.
fn screen_at(model: &RunModel, app: &mut App, width: u16, height: u16, now_ms: u64) -> String {
    let mut terminal = Terminal::new(TestBackend::new(width, height)).unwrap();
    terminal
        .draw(|f| draw::frame(f, model, app, Theme { color: true }, now_ms))
        .unwrap();
    let buffer = terminal.backend().buffer();
    let mut text = String::new();
    for y in 0..buffer.area.height {
        for x in 0..buffer.area.width {
            text.push_str(buffer[(x, y)].symbol());
        }
        text.push('\n');
    }
    text
}

fn key(app: &mut App, model: &mut RunModel, code: KeyCode) -> Request {
    app.key(KeyEvent::new(code, KeyModifiers::NONE), model)
}

/// A pi run: iteration 1 (thinking, then text) done with a failed gate, iteration 2
/// (three tools) in its middle, then at its end.
#[test]
fn pi_transcript_at_key_moments() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/thinking.jsonl");
    feed(
        &mut model,
        &RunEvent::EventsEmitted {
            iteration: 1,
            events: &[],
            from_tags: 0,
            outside: &[],
            invalid_lines: 0,
            verified: &[],
            withheld: &["build.done".to_owned()],
        },
    );
    gate(&mut model, 1, false);
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    iteration_started(&mut model, 2, "reviewer", "pi");
    let tools = agent_lines(&fixture("pi/anthropic/tools3.jsonl"), 2);
    let half = tools.len() / 2;
    for line in &tools[..half] {
        model.apply_json(line);
    }
    let mut app = App::new(true);
    insta::assert_snapshot!("pi_mid_iteration_80x24", screen(&model, &mut app, 80, 24));
    for line in &tools[half..] {
        model.apply_json(line);
    }
    iteration_finished(&mut model, 2, "reviewer", &IterationOutcome::Succeeded);
    insta::assert_snapshot!("pi_iteration_done_80x24", screen(&model, &mut app, 80, 24));

    // Back to iteration 1: its thinking, the withheld event, the failed gate.
    key(&mut app, &mut model, KeyCode::Up);
    insta::assert_snapshot!("pi_iteration_1_80x24", screen(&model, &mut app, 80, 24));

    // Iteration 2's last tool call, expanded.
    key(&mut app, &mut model, KeyCode::Down);
    key(&mut app, &mut model, KeyCode::Tab);
    key(&mut app, &mut model, KeyCode::Enter);
    let shown = screen(&model, &mut app, 80, 24);
    assert!(shown.contains('▾'), "{shown}");
    insta::assert_snapshot!("pi_tool_expanded_80x24", shown);
}

/// A Claude Code run at its end, on a narrow terminal (no iteration list), then help.
#[test]
fn claude_transcript_narrow_and_help() {
    let mut model = one_iteration("claude", "builder", "claude/v2.1.112_rich.jsonl");
    gate(&mut model, 1, true);
    iteration_finished(
        &mut model,
        1,
        "builder",
        &IterationOutcome::Failed {
            reason: "exit code 1".to_owned(),
        },
    );
    let mut app = App::new(false);
    insta::assert_snapshot!("claude_done_80x24", screen(&model, &mut app, 80, 24));
    insta::assert_snapshot!("claude_done_44x16", screen(&model, &mut app, 44, 16));
    key(&mut app, &mut model, KeyCode::Char('?'));
    insta::assert_snapshot!("claude_help_80x24", screen(&model, &mut app, 80, 24));
}

/// An agent that names its model only when an iteration ends (pi) has it in the header
/// from then on; not one of another backend's.
#[test]
fn the_header_names_the_model_an_earlier_iteration_reported() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let header = |model: &RunModel| screen(model, &mut App::new(true), 100, 10);
    assert!(header(&model).contains("hat builder · pi · ?"));
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    iteration_started(&mut model, 2, "builder", "pi");
    let shown = header(&model);
    assert!(
        shown.contains("hat builder · pi · claude-sonnet-4-5"),
        "{shown}"
    );
    iteration_started(&mut model, 3, "builder", "claude");
    let shown = header(&model);
    assert!(shown.contains("hat builder · claude · ?"), "{shown}");
}

/// Help shows every key whole, Ctrl-C and Esc too, where the screen has the room.
#[test]
fn help_shows_every_key_whole() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/text.jsonl");
    let mut app = App::new(true);
    key(&mut app, &mut model, KeyCode::Char('?'));
    let shown = screen(&model, &mut app, 100, 30);
    for (keys, what) in draw::HELP {
        let line = format!("{keys} {what}");
        assert!(shown.contains(&line), "{line}\n{shown}");
    }
    // Ctrl-Z too, as docs/cli.md's key table has it.
    for named in ["Ctrl-C", "Ctrl-Z", "Esc"] {
        assert!(shown.contains(named), "{named}\n{shown}");
    }
}

/// Every size from one cell up, with help open and scrolled back: nothing panics.
#[test]
fn resize_storm_never_panics() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/tools3.jsonl");
    let mut app = App::new(true);
    for (round, width) in (0..=100u16).step_by(3).enumerate() {
        for height in (0..=30u16).step_by(2) {
            if round % 2 == 0 {
                key(&mut app, &mut model, KeyCode::PageUp);
            } else {
                key(&mut app, &mut model, KeyCode::Char('?'));
            }
            screen(&model, &mut app, width.max(1), height.max(1));
        }
    }
}

#[test]
fn search_moves_between_matches_and_quit_asks() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    for n in 1..=3 {
        iteration_started(&mut model, n, "builder", "pi");
        for line in agent_lines(&fixture("pi/anthropic/tools3.jsonl"), n) {
            model.apply_json(&line);
        }
        iteration_finished(&mut model, n, "builder", &IterationOutcome::Succeeded);
    }
    let mut app = App::new(true);
    screen(&model, &mut app, 80, 24);
    // A search starts in the iteration shown.
    key(&mut app, &mut model, KeyCode::Up);
    key(&mut app, &mut model, KeyCode::Up);
    key(&mut app, &mut model, KeyCode::Char('/'));
    for c in "BASH".chars() {
        key(&mut app, &mut model, KeyCode::Char(c));
    }
    key(&mut app, &mut model, KeyCode::Enter);
    let first = app.message.clone().unwrap();
    assert!(first.starts_with("match 1/"), "{first}");
    key(&mut app, &mut model, KeyCode::Char('n'));
    assert!(
        app.message.clone().unwrap().starts_with("match 2/"),
        "{:?}",
        app.message
    );
    key(&mut app, &mut model, KeyCode::Char('N'));
    key(&mut app, &mut model, KeyCode::Char('N'));
    let last = app.message.clone().unwrap();
    assert!(
        last.contains("in iteration 3"),
        "wraps to the last match: {last}"
    );
    // Matching lines are marked on screen.
    let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
    terminal
        .draw(|f| draw::frame(f, &model, &mut app, Theme { color: true }, NOW_MS))
        .unwrap();
    let reversed = terminal
        .backend()
        .buffer()
        .content()
        .iter()
        .filter(|c| c.modifier.contains(ratatui::style::Modifier::REVERSED))
        .count();
    assert!(reversed > 0);

    assert_eq!(key(&mut app, &mut model, KeyCode::Char('q')), Request::None);
    assert_eq!(
        key(&mut app, &mut model, KeyCode::Char('n')),
        Request::None,
        "n: no"
    );
    key(&mut app, &mut model, KeyCode::Char('q'));
    assert_eq!(key(&mut app, &mut model, KeyCode::Char('y')), Request::Quit);
}

#[test]
fn no_color_leaves_colors_out() {
    let mut model = one_iteration("pi", "builder", "pi/anthropic/tools3.jsonl");
    gate(&mut model, 1, false);
    let colored = |color: bool| {
        let mut terminal = Terminal::new(TestBackend::new(80, 24)).unwrap();
        let mut app = App::new(true);
        terminal
            .draw(|f| draw::frame(f, &model, &mut app, Theme { color }, NOW_MS))
            .unwrap();
        terminal
            .backend()
            .buffer()
            .content()
            .iter()
            .filter(|c| {
                c.fg != ratatui::style::Color::Reset || c.bg != ratatui::style::Color::Reset
            })
            .count()
    };
    assert!(colored(true) > 0);
    assert_eq!(colored(false), 0);
}

#[test]
fn follower_hands_on_only_whole_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run-events.jsonl");
    let mut writer = std::fs::File::create(&path).unwrap();
    let mut follower = follow::Follower::new(std::fs::File::open(&path).unwrap());
    let mut got: Vec<String> = Vec::new();
    writer.write_all(b"{\"a\":1}\n{\"b\":").unwrap();
    assert_eq!(read(&mut follower, &mut got), 13);
    assert_eq!(got, ["{\"a\":1}"]);
    assert_eq!(read(&mut follower, &mut got), 0);
    writer.write_all(b"2}\n\n{\"c\":3}\n").unwrap();
    read(&mut follower, &mut got);
    assert_eq!(got, ["{\"a\":1}", "{\"b\":2}", "{\"c\":3}"]);
}

fn read(follower: &mut follow::Follower, got: &mut Vec<String>) -> usize {
    follower
        .read(|frame| {
            got.push(match frame {
                ralph_stream::Frame::Line(line) => String::from_utf8(line.to_vec()).unwrap(),
                ralph_stream::Frame::Oversize(len) => format!("skipped {len}"),
            })
        })
        .unwrap()
}

#[test]
fn follower_skips_a_line_too_long_to_hold_without_holding_it() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("run-events.jsonl");
    let mut writer = std::fs::File::create(&path).unwrap();
    let mut follower = follow::Follower::with_max_line(std::fs::File::open(&path).unwrap(), 16);
    let mut got: Vec<String> = Vec::new();
    writer.write_all(&[0; 100]).unwrap();
    read(&mut follower, &mut got);
    assert!(got.is_empty(), "{got:?}");
    writer.write_all(b"\n{\"a\":1}\n").unwrap();
    read(&mut follower, &mut got);
    assert_eq!(got, ["skipped 100", "{\"a\":1}"]);
}

/// A record line cut or damaged is counted, not fatal; the loop's end is shown.
#[test]
fn damaged_lines_are_counted_and_the_end_is_shown() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    model.apply_json(b"{\"type\":\"iteration_started\",\"iter");
    model.apply_json(b"{\"type\":\"some_new_type\",\"x\":1}");
    assert_eq!(model.unreadable_lines, 1);
    let reason = StopReason::Interrupted;
    let event = RunEvent::LoopFinished {
        reason: &reason,
        message: "interrupted".to_owned(),
        outcome: reason.class(),
        exit_code: 130,
        totals: totals(0, 0.0),
        summary_path: "s.md",
        git: None,
    };
    model.apply_json(&serde_json::to_vec(&event).unwrap());
    assert_eq!(model.stop_reason.as_deref(), Some("interrupted"));
    assert!(!model.running());
}
