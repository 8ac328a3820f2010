use ralph_stream::Tokens;

use super::*;

fn end(outcome: EndClass, git: Option<&GitHead>) -> RunEnd<'_> {
    RunEnd {
        reason: "consecutive_failures",
        message: "3 failures in a row | the last:\nexit 1, 100% sure",
        outcome,
        exit_code: 1,
        totals: Totals {
            iterations: 3,
            elapsed_ms: 10,
            cost_usd: 0.125,
            cost_complete: false,
            cost_estimated: false,
            tokens: Tokens {
                input: 10,
                output: 2,
                cache_read: 3,
                cache_write: 4,
            },
            tokens_complete: true,
        },
        spend: Spend {
            cost_usd: 0.125,
            unpriced_iterations: 1,
            ..Spend::default()
        },
        git,
        summary_path: ".ralph/runs/r/summary.md",
    }
}

#[test]
fn the_step_summary_is_a_table_of_the_result_that_no_message_can_break() {
    let head = GitHead {
        branch: Some("ralph/task-1".to_owned()),
        commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
    };
    let md = step_summary(&end(EndClass::Failed, Some(&head)));
    assert_eq!(
        md,
        "### ralph: failed\n\n| | |\n|---|---|\n\
         | status | failed |\n\
         | exit code | 1 |\n\
         | reason | consecutive_failures: 3 failures in a row \\| the last: exit 1, 100% sure |\n\
         | branch | ralph/task-1 |\n\
         | commit | 0123456789abcdef0123456789abcdef01234567 |\n\
         | iterations | 3 |\n\
         | cost | at least $0.1250 (1 iteration reported no cost) |\n\
         | tokens | 10 in, 2 out, 3 cache read, 4 cache write |\n\
         | summary | .ralph/runs/r/summary.md |\n\n"
    );
    // Outside a repository: no branch or commit rows.
    assert!(!step_summary(&end(EndClass::Failed, None)).contains("| branch |"));
}

#[test]
fn a_failed_run_is_an_error_a_limited_one_a_warning_and_the_message_is_escaped() {
    assert_eq!(
        annotation(&end(EndClass::Failed, None)).as_deref(),
        Some(
            "::error title=ralph failed::3 failures in a row | the last:%0Aexit 1, 100%25 sure \
             (exit 1)"
        )
    );
    let limited = annotation(&end(EndClass::LimitReached, None)).expect("a warning");
    assert!(
        limited.starts_with("::warning title=ralph limit_reached::"),
        "{limited}"
    );
    assert_eq!(annotation(&end(EndClass::Completed, None)), None);
    assert_eq!(annotation(&end(EndClass::Interrupted, None)), None);
}

#[test]
fn annotations_only_under_actions_and_never_on_a_json_stdout() {
    let on = |summary: Option<&str>, actions: Option<&str>, json: bool| {
        let g = GitHub::from_vars(summary.map(Into::into), actions.map(Into::into), json);
        (g.summary.is_some(), g.annotate)
    };
    assert_eq!(on(None, Some("true"), false), (false, true));
    assert_eq!(on(None, Some("true"), true), (false, false));
    assert_eq!(on(None, Some("false"), false), (false, false));
    assert_eq!(on(Some("/tmp/s.md"), None, true), (true, false));
    assert_eq!(on(Some(""), None, false), (false, false));
}

#[test]
fn a_message_that_starts_with_its_reason_does_not_repeat_it() {
    let reason_row = |reason: &'static str, message: &'static str| {
        let md = step_summary(&RunEnd {
            reason,
            message,
            ..end(EndClass::Completed, None)
        });
        md.lines()
            .find(|l| l.starts_with("| reason |"))
            .expect("a reason row")
            .to_owned()
    };
    assert_eq!(
        reason_row("completed", "completed: the agent emitted LOOP_COMPLETE"),
        "| reason | completed: the agent emitted LOOP_COMPLETE |"
    );
    assert_eq!(
        reason_row("interrupted", "interrupted"),
        "| reason | interrupted |"
    );
    // A name that only begins the first word is not the reason said twice.
    assert_eq!(
        reason_row("max_cost", "max_costs reached"),
        "| reason | max_cost: max_costs reached |"
    );
}

#[test]
fn the_cost_row_says_unknown_when_no_agent_reported_one_as_summary_md_does() {
    let cost_row = |cost_usd: f64, unpriced_iterations: u32| {
        let base = end(EndClass::Completed, None);
        let md = step_summary(&RunEnd {
            totals: Totals {
                cost_usd,
                cost_complete: unpriced_iterations == 0,
                ..base.totals
            },
            spend: Spend {
                cost_usd,
                unpriced_iterations,
                ..Spend::default()
            },
            ..base
        });
        md.lines()
            .find(|l| l.starts_with("| cost |"))
            .expect("a cost row")
            .to_owned()
    };
    // Three iterations, none priced: nothing is known, and $0 would claim it was free.
    assert_eq!(
        cost_row(0.0, 3),
        "| cost | unknown (the agent reported no cost) |"
    );
    assert_eq!(
        cost_row(0.5, 2),
        "| cost | at least $0.5000 (2 iterations reported no cost) |"
    );
    assert_eq!(cost_row(0.5, 0), "| cost | $0.5000 |");
}
