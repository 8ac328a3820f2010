use super::*;

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
        (
            classify(&ok, true, &[], StoppedBy::Nothing, false, Shown::Work, None),
            IterationOutcome::Succeeded,
        ),
        (
            classify(
                &Termination::StoppedAfterFinish,
                true,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Work,
                None,
            ),
            IterationOutcome::Succeeded,
        ),
        // pi exits 0 when every model call failed.
        (
            classify(
                &ok,
                false,
                &errors,
                StoppedBy::Nothing,
                false,
                Shown::Work,
                None,
            ),
            reported(),
        ),
        (
            classify(
                &code3,
                false,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Work,
                None,
            ),
            exited_3(),
        ),
        (
            classify(
                &caller,
                false,
                &[],
                StoppedBy::CostLimit,
                false,
                Shown::Work,
                None,
            ),
            IterationOutcome::StoppedAtCostLimit,
        ),
        // A budget crossed on the last turn of a run that finished anyway.
        (
            classify(
                &ok,
                true,
                &[],
                StoppedBy::CostLimit,
                false,
                Shown::Work,
                None,
            ),
            IterationOutcome::Succeeded,
        ),
        (
            classify(
                &timeout,
                false,
                &[],
                StoppedBy::Nothing,
                true,
                Shown::Work,
                None,
            ),
            IterationOutcome::StoppedAtRuntimeLimit,
        ),
        (
            classify(
                &timeout,
                false,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Work,
                None,
            ),
            IterationOutcome::Failed {
                reason: "stopped: iteration wall-clock timeout".into(),
            },
        ),
        (
            classify(
                &Termination::Interrupted,
                true,
                &[],
                StoppedBy::CostLimit,
                true,
                Shown::Work,
                None,
            ),
            IterationOutcome::Interrupted,
        ),
        // Exit 0 with nothing on stdout and no event published did nothing.
        (
            classify(
                &ok,
                true,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Nothing,
                None,
            ),
            IterationOutcome::Failed {
                reason: NO_OUTPUT.into(),
            },
        ),
        // A stream calling it a success while its model said nothing and used no tokens.
        (
            classify(
                &ok,
                true,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::EmptyAnswer,
                None,
            ),
            IterationOutcome::Failed {
                reason: EMPTY_ANSWER.into(),
            },
        ),
        // A stream that failed says how, empty or not.
        (
            classify(
                &ok,
                false,
                &errors,
                StoppedBy::Nothing,
                false,
                Shown::EmptyAnswer,
                None,
            ),
            reported(),
        ),
        // A failure says why the process failed, silent or not.
        (
            classify(
                &code3,
                true,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Nothing,
                None,
            ),
            exited_3(),
        ),
        // Interrupted before it wrote anything is still an interruption.
        (
            classify(
                &Termination::Interrupted,
                true,
                &[],
                StoppedBy::Nothing,
                false,
                Shown::Nothing,
                None,
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
        let got = classify(
            &termination,
            stream_succeeded,
            &[],
            StoppedBy::EmptyCalls,
            false,
            Shown::Work,
            None,
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
        classify(
            t,
            false,
            &errors,
            StoppedBy::Nothing,
            false,
            Shown::Work,
            Some(&limit),
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
