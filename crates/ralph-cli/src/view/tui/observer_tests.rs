//! What `ralph run --tui` says once it has given the terminal back.

use ralph_core::machine::{CompletionSignal, StopReason};

use super::farewell;
use crate::view::term::Pointers;

#[test]
fn the_farewell_says_the_summary_and_how_to_go_on_as_the_text_view_ends() {
    let reason = StopReason::Interrupted;
    let pointers = Pointers::of(&reason, reason.class(), ".ralph/runs/r1/summary.md", None);
    assert_eq!(
        farewell("interrupted", "r1", Some(&pointers)),
        "interrupted (run r1)\n  summary: .ralph/runs/r1/summary.md\n  \
         `ralph run --continue` resumes it"
    );
}

#[test]
fn a_completed_run_points_to_its_summary_only() {
    let reason = StopReason::Completed {
        promise: "LOOP_COMPLETE".into(),
        signal: CompletionSignal::Event,
    };
    let pointers = Pointers::of(&reason, reason.class(), "s.md", None);
    assert_eq!(
        farewell("completed", "r1", Some(&pointers)),
        "completed (run r1)\n  summary: s.md"
    );
}

#[test]
fn a_run_that_never_ended_says_its_verdict_alone() {
    // ralph failed before `loop_finished`: its error follows, there is no summary.
    assert_eq!(farewell("no lock", "r1", None), "no lock (run r1)");
}
