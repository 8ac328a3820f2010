use super::*;

/// `classify`'s inputs besides the termination, each defaulting to a run that went well.
struct Case<'a> {
    succeeded: bool,
    errors: &'a [String],
    stopped_by: StoppedBy,
    wall_is_runtime: bool,
    shown: Shown,
    limit: Option<&'a ralph_stream::RateLimited>,
}

impl Case<'_> {
    const DEFAULT: Case<'static> = Case {
        succeeded: true,
        errors: &[],
        stopped_by: StoppedBy::Nothing,
        wall_is_runtime: false,
        shown: Shown::Work,
        limit: None,
    };
}

fn judge(termination: &Termination, case: Case<'_>) -> IterationOutcome {
    classify(RunFacts {
        termination,
        stream_succeeded: case.succeeded,
        errors: case.errors,
        stopped_by: case.stopped_by,
        wall_is_runtime: case.wall_is_runtime,
        shown: case.shown,
        rate_limited: case.limit,
    })
}

#[test]
fn classify_judges_process_and_stream_together() {
    let errors = vec!["401 invalid api key".to_owned()];
    let ok = Termination::Exited { code: 0 };
    let code3 = Termination::Exited { code: 3 };
    let caller = Termination::StoppedByCaller;
    let timeout = Termination::WallClockTimeout;
    let reported = || IterationOutcome::Failed {
        reason: "the agent reported an error: 401 invalid api key".into(),
    };
    let exited_3 = || IterationOutcome::Failed {
        reason: "exited with code 3".into(),
    };
    let cases = [
        (judge(&ok, Case::DEFAULT), IterationOutcome::Succeeded),
        (
            judge(&Termination::StoppedAfterFinish, Case::DEFAULT),
            IterationOutcome::Succeeded,
        ),
        // pi exits 0 when every model call failed.
        (
            judge(
                &ok,
                Case {
                    succeeded: false,
                    errors: &errors,
                    ..Case::DEFAULT
                },
            ),
            reported(),
        ),
        (
            judge(
                &code3,
                Case {
                    succeeded: false,
                    ..Case::DEFAULT
                },
            ),
            exited_3(),
        ),
        (
            judge(
                &caller,
                Case {
                    succeeded: false,
                    stopped_by: StoppedBy::CostLimit,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::StoppedAtCostLimit,
        ),
        // A budget crossed at the call that finished the run, before ralph's stop came:
        // the stop cut nothing short.
        (
            judge(
                &caller,
                Case {
                    stopped_by: StoppedBy::CostLimit,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Succeeded,
        ),
        // A budget crossed on the last turn of a run that finished anyway.
        (
            judge(
                &ok,
                Case {
                    stopped_by: StoppedBy::CostLimit,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Succeeded,
        ),
        (
            judge(
                &timeout,
                Case {
                    succeeded: false,
                    wall_is_runtime: true,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::StoppedAtRuntimeLimit,
        ),
        (
            judge(
                &timeout,
                Case {
                    succeeded: false,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Failed {
                reason: "stopped: iteration wall-clock timeout".into(),
            },
        ),
        (
            judge(
                &Termination::Interrupted,
                Case {
                    stopped_by: StoppedBy::CostLimit,
                    wall_is_runtime: true,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Interrupted,
        ),
        // Exit 0 with nothing on stdout and no event published did nothing.
        (
            judge(
                &ok,
                Case {
                    shown: Shown::Nothing,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Failed {
                reason: NO_OUTPUT.into(),
            },
        ),
        // A stream calling it a success while its model said nothing and used no tokens.
        (
            judge(
                &ok,
                Case {
                    shown: Shown::EmptyAnswer,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Failed {
                reason: EMPTY_ANSWER.into(),
            },
        ),
        // A stream that failed says how, empty or not.
        (
            judge(
                &ok,
                Case {
                    succeeded: false,
                    errors: &errors,
                    shown: Shown::EmptyAnswer,
                    ..Case::DEFAULT
                },
            ),
            reported(),
        ),
        // A failure says why the process failed, silent or not.
        (
            judge(
                &code3,
                Case {
                    shown: Shown::Nothing,
                    ..Case::DEFAULT
                },
            ),
            exited_3(),
        ),
        // Interrupted before it wrote anything is still an interruption.
        (
            judge(
                &Termination::Interrupted,
                Case {
                    shown: Shown::Nothing,
                    ..Case::DEFAULT
                },
            ),
            IterationOutcome::Interrupted,
        ),
    ];
    let (got, want): (Vec<_>, Vec<_>) = cases.into_iter().unzip();
    assert_eq!(got, want);
}

/// Stopped after a run of empty answers: a failure that says where to look, however the
/// agent then ended, unless the user stopped it first.
#[test]
fn a_run_of_empty_answers_fails_saying_where_to_look_unless_the_user_stopped_it() {
    let failed = || IterationOutcome::Failed {
        reason: empty_calls_reason(),
    };
    for (termination, stream_succeeded, want) in [
        (Termination::StoppedByCaller, false, failed()),
        (Termination::Exited { code: 0 }, true, failed()),
        (
            Termination::Interrupted,
            false,
            IterationOutcome::Interrupted,
        ),
    ] {
        let got = judge(
            &termination,
            Case {
                succeeded: stream_succeeded,
                stopped_by: StoppedBy::EmptyCalls,
                ..Case::DEFAULT
            },
        );
        assert_eq!(got, want, "{termination:?}");
    }
}

#[test]
fn the_empty_calls_reason_names_the_count_and_where_to_look() {
    let reason = empty_calls_reason();
    assert!(
        reason.starts_with("the agent's model gave 10 empty answers in a row")
            && reason.contains("check the agent's base URL"),
        "{reason}"
    );
}

#[test]
fn stop_reasons_map_to_end_classes() {
    let reasons = StopReason::examples();
    let classes: Vec<_> = reasons.iter().map(StopReason::class).collect();
    assert_eq!(
        classes,
        vec![
            EndClass::Completed,
            EndClass::Completed,
            EndClass::Completed,
            EndClass::LimitReached,
            EndClass::LimitReached,
            EndClass::LimitReached,
            EndClass::LimitReached,
            EndClass::Failed,
            EndClass::Failed,
            EndClass::Interrupted,
            EndClass::Failed,
            EndClass::Failed,
        ]
    );
}

#[test]
fn durations_read_naturally() {
    let shown: Vec<_> = [0.85, 12.34, 185.0, 3725.0]
        .into_iter()
        .map(|s| format_duration(Duration::from_secs_f64(s)))
        .collect();
    assert_eq!(shown, vec!["850ms", "12.3s", "3m 05s", "1h 02m"]);
}

#[test]
fn dollar_limits_keep_every_digit_they_were_set_with() {
    let shown: Vec<_> = [5.0, 2.5, 0.015, 0.001, 1.2345, 1500.0]
        .into_iter()
        .map(format_usd_limit)
        .collect();
    assert_eq!(
        shown,
        vec!["$5.00", "$2.50", "$0.015", "$0.001", "$1.2345", "$1500.00"]
    );
    assert_eq!(
        StopReason::MaxCost { limit_usd: 0.015 }.to_string(),
        "cost limit reached ($0.015)"
    );
}

#[test]
fn a_failure_the_stream_names_as_a_limit_is_rate_limited() {
    let limit = ralph_stream::RateLimited {
        resets_at: Some(1_795_676_400),
        message: "429 rate limit".into(),
    };
    let errors = vec![limit.message.clone()];
    let expected = IterationOutcome::RateLimited {
        message: "429 rate limit".into(),
        resets_at: Some(1_795_676_400),
    };
    let judged = |t: &Termination| {
        judge(
            t,
            Case {
                succeeded: false,
                errors: &errors,
                limit: Some(&limit),
                ..Case::DEFAULT
            },
        )
    };
    assert_eq!(judged(&Termination::Exited { code: 0 }), expected);
    assert_eq!(judged(&Termination::Exited { code: 1 }), expected);
    assert_eq!(
        judged(&Termination::Interrupted),
        IterationOutcome::Interrupted
    );
    assert_eq!(
        expected.to_string(),
        "rate limited: 429 rate limit (resets 2026-11-26 07:00 UTC)"
    );
}

#[test]
fn a_count_of_one_reads_singular_in_the_stop_reasons() {
    assert_eq!(
        StopReason::ConsecutiveFailures { failures: 1 }.to_string(),
        "1 iteration failed"
    );
    assert_eq!(
        StopReason::ConsecutiveFailures { failures: 3 }.to_string(),
        "3 iterations in a row failed"
    );
    assert_eq!(
        StopReason::MaxIterations { limit: 1 }.to_string(),
        "iteration limit reached (1 iteration)"
    );
}
