//! The figures the end of a run and each iteration's footer show.

use ralph_core::machine::{IterationOutcome, StopReason};
use ralph_core::run_event::{RunEvent, Totals};
use ralph_stream::{CostKind, Tokens};

use crate::view::term::{Detail, RunView};

#[test]
fn tokens_copilot_never_counted_read_as_unknown_not_zero() {
    let (mut view, mut out) = (RunView::new(Detail::Normal), String::new());
    view.render(
        &RunEvent::IterationStarted {
            iteration: 1,
            attempt: 1,
            max_iterations: 10,
            hat: "ralph",
            hat_name: "ralph",
            backend: "copilot",
            events: &[],
            wall_secs: 60,
            started_at_ms: 0,
            elapsed_ms: 0,
        },
        &mut out,
    );
    let (none, reason) = (Tokens::default(), StopReason::MaxIterations { limit: 1 });
    let totals = Totals {
        tokens: none,
        tokens_complete: false,
        iterations: 1,
        elapsed_ms: 10,
        cost_usd: 0.0,
        cost_complete: false,
        cost_estimated: false,
    };
    let finished = RunEvent::IterationFinished {
        iteration: 1,
        hat: "ralph",
        backend: "copilot",
        model: None,
        outcome: &IterationOutcome::Succeeded,
        duration_ms: 10,
        cost_usd: None,
        cost_kind: CostKind::Unknown,
        tokens: none,
        tokens_known: false,
        turns: 1,
        completion: None,
        stderr_tail: None,
        totals,
    };
    view.render(&finished, &mut out);
    let (message, outcome) = (reason.to_string(), reason.class());
    let git = None;
    let (exit_code, summary_path) = (2, "s.md");
    let end = RunEvent::LoopFinished {
        reason: &reason,
        message,
        outcome,
        exit_code,
        totals,
        summary_path,
        git,
    };
    view.render(&end, &mut out);
    let out = anstream::adapter::strip_str(&out).to_string();
    assert!(
        out.contains(" · 1 turn · tokens unknown · cost unknown"),
        "{out}"
    );
    assert!(
        out.contains("10ms · cost unknown · tokens unknown\n"),
        "{out}"
    );
}
