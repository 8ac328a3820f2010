use ralph_stream::{CostKind, Tokens};
use std::path::PathBuf;

use ralph_core::machine::{CompletionSignal, IterationOutcome, Notice, StopReason};
use ralph_core::run_event::Totals;
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

const TOKENS: Tokens = Tokens {
    input: 6200,
    output: 36,
    cache_read: 0,
    cache_write: 500,
};

fn totals(iterations: u32, elapsed_ms: u64, cost_complete: bool) -> Totals {
    Totals {
        iterations,
        elapsed_ms,
        cost_usd: 0.010215 * f64::from(iterations),
        cost_complete,
        cost_estimated: false,
        tokens_complete: true,
        tokens: TOKENS,
    }
}

/// How a finished iteration went, for the footer.
struct Ending {
    outcome: IterationOutcome,
    cost_usd: Option<f64>,
    cost_kind: CostKind,
    stderr_tail: Option<&'static str>,
    reason: StopReason,
}

/// Everything a view prints for a two-iteration run whose agent replays `fixture` in
/// the second iteration, with styles shown as `␛` (or stripped when `color` is off).
fn render_run(fixture: &str, format: StreamFormat, detail: Detail, color: bool) -> String {
    render_run_ending(
        fixture,
        format,
        detail,
        color,
        Ending {
            outcome: IterationOutcome::Succeeded,
            cost_usd: Some(0.010215),
            cost_kind: CostKind::Reported,
            stderr_tail: None,
            reason: StopReason::Completed {
                promise: "LOOP_COMPLETE".into(),
                signal: CompletionSignal::Event,
            },
        },
    )
}

/// The loop starts on pi with `hats` and `limits`.
fn loop_started<'a>(hats: Vec<&'a str>, limits: Limits<'a>) -> RunEvent<'a> {
    RunEvent::LoopStarted {
        run_id: "20261126T101500Z",
        resumed: false,
        workspace: "/work",
        run_dir: ".ralph/runs/20261126T101500Z",
        backend: "pi",
        hats,
        limits,
        totals: totals(0, 0, true),
    }
}

fn render_run_ending(
    fixture: &str,
    format: StreamFormat,
    detail: Detail,
    color: bool,
    ending: Ending,
) -> String {
    let mut view = RunView::new(detail);
    let mut out = String::new();
    let required = ["review.approved".to_owned()];
    let limits = Limits {
        max_iterations: 10,
        max_runtime_secs: 3600,
        max_cost_usd: Some(2.0),
        max_consecutive_failures: 5,
        completion_promise: "LOOP_COMPLETE",
        required_events: &required,
    };
    view.render(&loop_started(vec!["planner", "builder"], limits), &mut out);
    let start = [Event::new("work.start")];
    view.render(
        &RunEvent::IterationStarted {
            iteration: 1,
            attempt: 1,
            max_iterations: 10,
            hat: "planner",
            hat_name: "Planner",
            backend: "pi",
            events: &start,
            wall_secs: 3600,
            started_at_ms: 0,
            elapsed_ms: 0,
        },
        &mut out,
    );
    for event in agent_events("pi/anthropic/text.jsonl", StreamFormat::Pi) {
        view.render(
            &RunEvent::Agent {
                iteration: 1,
                event: &event,
            },
            &mut out,
        );
    }
    let planned = [Event::with_text("step.ready", "write out.txt")];
    view.render(
        &RunEvent::EventsEmitted {
            iteration: 1,
            events: &planned,
            from_tags: 0,
            outside: &[],
            invalid_lines: 0,
            verified: &[],
            withheld: &[],
        },
        &mut out,
    );
    view.render(
        &RunEvent::IterationFinished {
            iteration: 1,
            hat: "planner",
            backend: "pi",
            model: Some("mock-model"),
            outcome: &IterationOutcome::Succeeded,
            duration_ms: 2100,
            cost_usd: Some(0.010215),
            cost_kind: CostKind::Reported,
            tokens: TOKENS,
            turns: 1,
            tokens_known: true,
            completion: None,
            stderr_tail: None,
            totals: totals(1, 2100, true),
        },
        &mut out,
    );
    view.render(
        &RunEvent::IterationStarted {
            iteration: 2,
            attempt: 1,
            max_iterations: 10,
            hat: "builder",
            hat_name: "Builder",
            backend: format.name(),
            events: &planned,
            wall_secs: 3600,
            started_at_ms: 0,
            // Right after iteration 1 ended (no gate, no wait).
            elapsed_ms: 2100,
        },
        &mut out,
    );
    for event in agent_events(fixture, format) {
        view.render(
            &RunEvent::Agent {
                iteration: 2,
                event: &event,
            },
            &mut out,
        );
    }
    let emitted = [
        Event::with_text("step.done", "wrote out.txt"),
        Event::new("LOOP_COMPLETE"),
    ];
    view.render(
        &RunEvent::EventsEmitted {
            iteration: 2,
            events: &emitted,
            from_tags: 0,
            outside: &[],
            invalid_lines: 1,
            verified: &[],
            withheld: &[],
        },
        &mut out,
    );
    let notice = Notice::DefaultPublished {
        hat: "builder".into(),
        topic: "step.done".into(),
    };
    view.render(
        &RunEvent::Notice {
            iteration: Some(2),
            notice: &notice,
        },
        &mut out,
    );
    let complete = ending.cost_usd.is_some();
    view.render(
        &RunEvent::IterationFinished {
            iteration: 2,
            hat: "builder",
            backend: format.name(),
            model: None,
            outcome: &ending.outcome,
            duration_ms: 65_000,
            cost_usd: ending.cost_usd,
            cost_kind: ending.cost_kind,
            tokens: TOKENS,
            turns: 2,
            tokens_known: true,
            completion: Some(CompletionSignal::Event),
            stderr_tail: ending.stderr_tail,
            totals: totals(2, 67_100, complete),
        },
        &mut out,
    );
    view.render(
        &RunEvent::LoopFinished {
            reason: &ending.reason,
            message: ending.reason.to_string(),
            outcome: ending.reason.class(),
            exit_code: 0,
            totals: totals(2, 67_100, complete),
            summary_path: ".ralph/runs/20261126T101500Z/summary.md",
            git: None,
        },
        &mut out,
    );
    if color {
        out.replace('\u{1b}', "␛")
    } else {
        anstream::adapter::strip_str(&out).to_string()
    }
}

#[test]
fn a_pi_run_with_a_failing_tool() {
    insta::assert_snapshot!(render_run(
        "pi/anthropic/tool_error.jsonl",
        StreamFormat::Pi,
        Detail::Normal,
        false
    ));
}

#[test]
fn a_pi_run_with_retries_in_color() {
    insta::assert_snapshot!(render_run(
        "pi/openai/flaky.jsonl",
        StreamFormat::Pi,
        Detail::Normal,
        true
    ));
}

#[test]
fn a_claude_run_with_tools_thinking_and_a_sub_agent() {
    insta::assert_snapshot!(
        "claude_rich",
        render_run(
            "claude/v2.1.332_rich.jsonl",
            StreamFormat::Claude,
            Detail::Normal,
            false
        )
    );
    insta::assert_snapshot!(
        "claude_rich_verbose_color",
        render_run(
            "claude/v2.1.332_rich.jsonl",
            StreamFormat::Claude,
            Detail::Verbose,
            true
        )
    );
}

#[test]
fn a_claude_run_whose_api_retries_ran_out_fails_with_its_stderr() {
    insta::assert_snapshot!(render_run_ending(
        "claude/v2.1.332_overloaded529_max_retries2.jsonl",
        StreamFormat::Claude,
        Detail::Normal,
        false,
        Ending {
            outcome: IterationOutcome::Failed {
                reason: "exited with code 1".into(),
            },
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            stderr_tail: Some("warming up\nError: 529 overloaded\n"),
            reason: StopReason::ConsecutiveFailures { failures: 1 },
        },
    ));
}

#[test]
fn quiet_shows_only_why_the_loop_stopped() {
    assert_eq!(
        render_run(
            "pi/openai/tool.jsonl",
            StreamFormat::Pi,
            Detail::Quiet,
            false
        ),
        "✓ completed: the agent emitted LOOP_COMPLETE\n  \
         2 iterations · 1m 07s · $0.0204 · 6,736 tokens\n  \
         summary: .ralph/runs/20261126T101500Z/summary.md\n"
    );
}

#[test]
fn the_status_line_follows_what_the_agent_does() {
    let mut view = RunView::new(Detail::Normal);
    let mut out = String::new();
    let mut seen = vec![view.activity().cloned()];
    view.render(&started(1, 1, "claude"), &mut out);
    seen.push(view.activity().cloned());
    for event in agent_events("claude/v2.1.332_rich.jsonl", StreamFormat::Claude)
        .iter()
        .take(4)
    {
        view.render(
            &RunEvent::Agent {
                iteration: 1,
                event,
            },
            &mut out,
        );
        seen.push(view.activity().cloned());
    }
    assert_eq!(
        seen,
        vec![
            None,
            Some(Activity::Starting),
            Some(Activity::Waiting),
            Some(Activity::Thinking),
            Some(Activity::Waiting),
            Some(Activity::Running {
                tool: "Bash  echo hello".into(),
                others: 0
            }),
        ]
    );
    assert_eq!(
        Activity::Running {
            tool: "Bash  ls".into(),
            others: 2
        }
        .describe("claude"),
        "running Bash  ls (+2 more)"
    );
}

/// Attempt `attempt` at iteration `iteration` of ten, on `backend`, by the default hat.
fn started(iteration: u32, attempt: u32, backend: &str) -> RunEvent<'_> {
    RunEvent::IterationStarted {
        iteration,
        attempt,
        max_iterations: 10,
        hat: "ralph",
        hat_name: "ralph",
        backend,
        events: &[],
        wall_secs: 60,
        started_at_ms: 0,
        elapsed_ms: 0,
    }
}

#[test]
fn an_attempt_after_a_rate_limit_says_which_it_is_in_its_header() {
    let header = |attempt| {
        let mut view = RunView::new(Detail::Normal);
        let mut out = String::new();
        view.render(&started(3, attempt, "pi"), &mut out);
        anstream::adapter::strip_str(out.trim()).to_string()
    };
    assert_eq!(
        header(1),
        "── iteration 3/10 · ralph · pi · run time 0:00 ──"
    );
    assert_eq!(
        header(2),
        "── iteration 3/10 · attempt 2 · ralph · pi · run time 0:00 ──"
    );
}

#[test]
fn the_header_gives_the_runs_time_with_the_wait_before_the_attempt() {
    // Iteration 2 ended 3 s in; a 4 s rate-limit wait came after: attempt 2 starts at 7 s.
    let mut view = RunView::new(Detail::Normal);
    let mut out = String::new();
    let mut event = started(2, 2, "claude");
    if let RunEvent::IterationStarted { elapsed_ms, .. } = &mut event {
        *elapsed_ms = 7_000;
    }
    view.render(&event, &mut out);
    assert!(
        anstream::adapter::strip_str(&out)
            .to_string()
            .contains("attempt 2 · ralph · claude · run time 0:07 ──"),
        "{out}"
    );
}

#[test]
fn a_cost_limit_below_a_cent_shows_as_it_was_set() {
    let mut view = RunView::new(Detail::Normal);
    let mut out = String::new();
    let limits = Limits {
        max_iterations: 3,
        max_runtime_secs: 3600,
        max_cost_usd: Some(0.015),
        max_consecutive_failures: 5,
        completion_promise: "LOOP_COMPLETE",
        required_events: &[],
    };
    view.render(&loop_started(vec![], limits), &mut out);
    assert!(
        anstream::adapter::strip_str(&out)
            .to_string()
            .ends_with("limits: 3 iterations, 1h 00m, $0.015\n"),
        "{out}"
    );
    assert_eq!(
        view.against_limits(&totals(1, 4200, true)),
        "1/3 iterations · 4.2s of 1h 00m · $0.0102 of $0.015"
    );
}

#[test]
fn wide_hat_names_break_by_the_columns_they_take() {
    // 40 characters but 43 columns: on a 40-column terminal the line must break.
    let header = "iteration 1/9 · 建造者 · pi · run time 0:01";
    assert_eq!(
        fit_parts(header, 40),
        "iteration 1/9 · 建造者 · pi\n  run time 0:01"
    );
    for line in fit_parts(header, 40).lines() {
        assert!(crate::view::columns::columns(line) <= 40, "{line:?}");
    }
}

#[test]
fn headers_break_between_their_parts_on_a_narrow_terminal() {
    let header = "iteration 12/100 · builder · claude · run time 1:02:03";
    assert_eq!(
        fit_parts(header, 40),
        "iteration 12/100 · builder · claude\n  run time 1:02:03"
    );
    assert_eq!(fit_parts(header, 80), header);
    // No line is cut mid-word, however narrow.
    for width in 10..60 {
        for line in fit_parts(header, width).lines() {
            let part = line.trim_start();
            assert!(
                line.chars().count() <= width || !part.contains(" · "),
                "{width}: {line:?}"
            );
        }
    }
}

#[test]
fn gates_show_as_they_run_and_mark_the_events_they_checked() {
    use ralph_core::machine::{GateEnd, GateResult};
    let mut view = RunView::new(Detail::Normal);
    let mut out = String::new();
    let failed = GateResult {
        gate: "tests".into(),
        event: "LOOP_COMPLETE".into(),
        end: GateEnd::Exit,
        exit_code: Some(1),
        duration_ms: 1500,
        // The end of a gate that printed millions of lines (its log has them all).
        output: (1..=14)
            .map(|n| format!("line {n}"))
            .collect::<Vec<_>>()
            .join("\n"),
        output_lines: 5_412_388,
        log: Some(".ralph/runs/r/gates/1-tests.log".into()),
    };
    let passed = GateResult {
        end: GateEnd::Passed,
        exit_code: Some(0),
        output: String::new(),
        ..failed.clone()
    };
    view.render(
        &RunEvent::GateStarted {
            iteration: Some(1),
            gate: "tests",
            event: Some("LOOP_COMPLETE"),
            command: "cargo test",
        },
        &mut out,
    );
    for result in [&failed, &passed] {
        view.render(
            &RunEvent::GateFinished {
                iteration: Some(1),
                passed: result.passed(),
                result,
            },
            &mut out,
        );
    }
    let events = [Event::new("build.done"), Event::new("LOOP_COMPLETE")];
    let outside = [Event::with_text("hotfix.needed", "login is down")];
    view.render(
        &RunEvent::EventsEmitted {
            iteration: 1,
            events: &events,
            from_tags: 1,
            outside: &outside,
            invalid_lines: 0,
            verified: &["build.done".to_owned()],
            withheld: &["LOOP_COMPLETE".to_owned()],
        },
        &mut out,
    );
    let plain = anstream::adapter::strip_str(&out).to_string();
    assert_eq!(
        plain,
        "▸ gate tests · cargo test · checks LOOP_COMPLETE\n\
         ✗ gate tests failed (exit code 1) · 1.5s · LOOP_COMPLETE withheld\n  \
         │ … the last of 5,412,388 lines:\n  │ line 3\n  │ line 4\n  │ line 5\n  │ line 6\n  \
         │ line 7\n  │ line 8\n  │ line 9\n  │ line 10\n  │ line 11\n  │ line 12\n  \
         │ line 13\n  │ line 14\n  log: .ralph/runs/r/gates/1-tests.log\n\
         ✓ gate tests passed · 1.5s\n\
         ⇢ emitted build.done ✓ verified\n\
         ⇢ emitted (tag) LOOP_COMPLETE ✗ withheld (gate failed)\n\
         ⇢ from outside the agent: hotfix.needed: login is down\n"
    );
}

#[test]
fn a_gate_record_without_a_line_count_names_no_number_for_what_is_not_shown() {
    use ralph_core::machine::GateResult;
    let old: GateResult = serde_json::from_value(serde_json::json!({
        "gate": "tests", "event": "", "reason": "exit", "exit_code": 1, "duration_ms": 5,
        "output": (1..=20).map(|n| format!("line {n}")).collect::<Vec<_>>().join("\n"),
    }))
    .unwrap();
    let lines: Vec<String> = gate_lines::finished(&old)
        .into_iter()
        .map(|(_, text)| text)
        .collect();
    assert_eq!(lines[1], "  │ … earlier lines left out");
    assert_eq!(lines[2], "  │ line 9");
}

#[test]
fn a_failure_reason_from_an_error_page_is_one_short_line_in_the_footer() {
    let page = format!(
        "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n{}</html>",
        "<p>upstream</p>\r\n".repeat(500)
    );
    let words = footer_words(&IterationOutcome::Failed {
        reason: format!("the agent reported an error: 502 {page}"),
    });
    assert!(!words.contains(['\r', '\n']), "{words:?}");
    assert_eq!(words.chars().count(), FOOTER_OUTCOME_CHARS);
    assert!(
        words.starts_with(
            "failed: the agent reported an error: 502 <html> <head><title>502 Bad \
             Gateway</title></head> <p>upstream</p>"
        ),
        "{words}"
    );
}
