use std::path::PathBuf;

use ralph_core::event::Event;
use ralph_core::machine::{CostKind, IterationOutcome, Notice, StopReason, TokenCounts};
use ralph_core::run_event::Limits;
use ralph_stream::{StreamDecoder, StreamFormat};

use super::*;

fn agent_events(fixture: &str, format: StreamFormat) -> Vec<AgentEvent<'static>> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/fixtures")
        .join(fixture);
    let bytes = std::fs::read(path).unwrap();
    let mut decoder = StreamDecoder::new(Some(format));
    let mut events = Vec::new();
    decoder.feed(&bytes, |e| events.push(e.clone().into_owned()));
    decoder.finish(|e| events.push(e.clone().into_owned()));
    events
}

const TOKENS: TokenCounts = TokenCounts {
    input: 6200,
    output: 36,
    cache_read: 0,
    cache_write: 500,
};

fn totals(iterations: u32) -> Totals {
    Totals {
        iterations,
        elapsed_ms: 4200,
        cost_usd: 0.010215,
        cost_complete: true,
        tokens: TOKENS,
    }
}

/// Everything the plain view prints for a small run whose agent replays `fixture`.
fn render_run(fixture: &str, format: StreamFormat) -> String {
    let mut observer = PlainObserver::new(Vec::new());
    let limits = Limits {
        max_iterations: 10,
        max_runtime_secs: 3600,
        max_cost_usd: Some(2.0),
        max_consecutive_failures: 5,
        completion_promise: "LOOP_COMPLETE",
        required_events: &[],
    };
    observer.observe(&RunEvent::LoopStarted {
        run_id: "20261126T101500Z",
        resumed: false,
        workspace: "/work",
        run_dir: ".ralph/runs/20261126T101500Z",
        backend: "pi",
        hats: vec!["builder"],
        limits,
        totals: totals(0),
    });
    let consumed = [Event::with_text("step.ready", "write out.txt")];
    observer.observe(&RunEvent::IterationStarted {
        iteration: 1,
        max_iterations: 10,
        hat: "builder",
        hat_name: "Builder",
        backend: "pi",
        events: &consumed,
        wall_secs: 3600,
        started_at_ms: 0,
    });
    for event in agent_events(fixture, format) {
        observer.observe(&RunEvent::Agent {
            iteration: 1,
            event: &event,
        });
    }
    let emitted = [Event::with_text("step.done", "wrote out.txt")];
    observer.observe(&RunEvent::EventsEmitted {
        iteration: 1,
        events: &emitted,
        invalid_lines: 1,
    });
    let notice = Notice::DefaultPublished {
        hat: "builder".into(),
        topic: "step.done".into(),
    };
    observer.observe(&RunEvent::Notice {
        iteration: Some(1),
        notice: &notice,
    });
    let outcome = IterationOutcome::Failed {
        reason: "exited with code 1".into(),
    };
    observer.observe(&RunEvent::IterationFinished {
        iteration: 1,
        hat: "builder",
        backend: "pi",
        model: Some("mock-model"),
        outcome: &outcome,
        duration_ms: 4200,
        cost_usd: Some(0.010215),
        cost_kind: CostKind::Reported,
        tokens: TOKENS,
        turns: 2,
        completion: None,
        stderr_tail: Some("warming up\nError: connection refused\n"),
        totals: totals(1),
    });
    let reason = StopReason::MaxIterations { limit: 1 };
    observer.observe(&RunEvent::LoopFinished {
        reason: &reason,
        message: reason.to_string(),
        outcome: reason.class(),
        exit_code: 2,
        totals: totals(1),
        summary_path: ".ralph/runs/20261126T101500Z/summary.md",
    });
    String::from_utf8(observer.out).unwrap()
}

#[test]
fn plain_view_of_a_pi_iteration() {
    insta::assert_snapshot!(render_run(
        "pi/anthropic/tool_error.jsonl",
        StreamFormat::Pi
    ));
}

#[test]
fn plain_view_of_a_pi_iteration_with_retries() {
    insta::assert_snapshot!(render_run("pi/anthropic/flaky.jsonl", StreamFormat::Pi));
}

#[test]
fn plain_view_of_a_claude_iteration_with_tools_and_a_sub_agent() {
    insta::assert_snapshot!(render_run(
        "claude/v2.1.332_rich.jsonl",
        StreamFormat::Claude
    ));
}

#[test]
fn tool_previews_pick_the_telling_field() {
    let previews: Vec<_> = [
        r#"{"command":"cargo test\nmore","description":"Run tests"}"#,
        r#"{"file_path":"/src/main.rs","content":"fn main() {}"}"#,
        r#"{"todos":[1,2]}"#,
        "not json",
    ]
    .map(preview)
    .to_vec();
    assert_eq!(
        previews,
        vec![
            "cargo test …",
            "/src/main.rs",
            "{\"todos\":[1,2]}",
            "not json"
        ]
    );
}

#[test]
fn a_closed_stdout_silences_the_view() {
    struct Closed;
    impl Write for Closed {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from(io::ErrorKind::BrokenPipe))
        }
        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }
    let mut observer = PlainObserver::new(Closed);
    let reason = StopReason::Interrupted;
    let event = RunEvent::LoopFinished {
        reason: &reason,
        message: reason.to_string(),
        outcome: reason.class(),
        exit_code: 130,
        totals: totals(0),
        summary_path: "s.md",
    };
    observer.observe(&event);
    observer.observe(&event);
    assert!(observer.closed);
}
