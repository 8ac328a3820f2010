//! Gates in the machine: the plan for an iteration's result, and what the results do
//! to publishing, routing, completion and the final verdict.

use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;
use crate::topic::GATE_FAILED;

fn gate(name: &str, before: &[&str]) -> GateRule {
    GateRule {
        name: name.into(),
        command: format!("check-{name}"),
        before: before.iter().map(|t| (*t).to_owned()).collect(),
    }
}

fn result(name: &str, event: &str, end: GateEnd) -> GateResult {
    GateResult {
        gate: name.into(),
        event: event.into(),
        end,
        exit_code: match end {
            GateEnd::Passed => Some(0),
            GateEnd::Exit => Some(1),
            GateEnd::Timeout | GateEnd::Spawn | GateEnd::Interrupted | GateEnd::RuntimeLimit => {
                None
            }
        },
        duration_ms: 5,
        output: if end == GateEnd::Passed {
            String::new()
        } else {
            "done.txt: missing".into()
        },
        output_lines: u64::from(end != GateEnd::Passed),
        log: None,
    }
}

/// Runs the plan the way the shell does, answering each gate from `ends`.
fn run_gates(plan: &GatePlan, ends: &[(&str, GateEnd)]) -> Vec<GateResult> {
    let mut results = Vec::new();
    while let Some((name, event)) = plan.next_gate(&results) {
        let end = ends
            .iter()
            .find(|(n, _)| *n == name)
            .map_or(GateEnd::Passed, |(_, e)| *e);
        results.push(result(name, event, end));
    }
    results
}

/// One iteration whose report's gates are run against `ends`; returns its record.
fn gated_step(
    m: &mut Machine,
    mut report: IterationReport,
    ends: &[(&str, GateEnd)],
) -> IterationRecord {
    let it = run(m);
    let plan = m.gate_plan(&it, &report);
    report.gates = run_gates(&plan, ends);
    m.finish(it, report, S)
}

#[test]
fn the_plan_runs_an_events_gates_in_order_and_each_gate_once() {
    let rules = [gate("a", &["x", "y"]), gate("b", &["x"]), gate("c", &["y"])];
    let plan = GatePlan::new(&rules, ["x", "y", "x", "z"]);
    assert_eq!(plan.guarded.len(), 2, "z is unguarded, x is planned once");
    let mut results = vec![];
    let mut order = vec![];
    while let Some((name, event)) = plan.next_gate(&results) {
        order.push((name.to_owned(), event.to_owned()));
        results.push(result(name, event, GateEnd::Passed));
    }
    assert_eq!(
        order,
        [
            ("a".into(), "x".into()),
            ("b".into(), "x".into()),
            ("c".into(), "y".into())
        ]
    );
    assert_eq!(plan.verdict("x", &results), Some(Verdict::Verified));
    assert_eq!(plan.verdict("z", &results), None);
}

#[test]
fn a_failed_gate_stops_that_events_gates_but_not_the_others() {
    let rules = [gate("a", &["x"]), gate("b", &["x", "y"])];
    let plan = GatePlan::new(&rules, ["x", "y"]);
    let results = vec![result("a", "x", GateEnd::Exit)];
    assert_eq!(plan.next_gate(&results), Some(("b", "y")));
    let results = run_gates(&plan, &[("a", GateEnd::Exit)]);
    assert!(matches!(plan.verdict("x", &results), Some(Verdict::Refused(r)) if r.gate == "a"));
    assert_eq!(plan.verdict("y", &results), Some(Verdict::Verified));
    assert_eq!(plan.verdict("x", &[]), Some(Verdict::Unchecked));
}

#[test]
fn a_refused_completion_is_withheld_and_the_agent_gets_gate_failed_next() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("done-file", &[PROMISE])],
        ..solo()
    });
    let record = gated_step(&mut m, ok(&[ev(PROMISE)]), &[("done-file", GateEnd::Exit)]);
    assert_eq!(record.completion, None);
    assert_eq!(record.withheld, [PROMISE]);
    assert_eq!(record.gates[0].gate, "done-file");
    let next = run(&mut m);
    assert_eq!(next.hat, DEFAULT_HAT);
    let failed = &next.events[0];
    assert_eq!(failed.topic, GATE_FAILED);
    assert_eq!(
        failed.payload,
        Some(serde_json::json!({
            "gate": "done-file", "event": PROMISE, "command": "check-done-file",
            "exit_code": 1, "reason": "exit", "output": "done.txt: missing",
        }))
    );
    assert!(
        m.take_notices()
            .iter()
            .any(|n| matches!(n, Notice::EventWithheld { .. }))
    );

    // The agent fixes it and claims again: the gate passes and the run completes.
    let record = m.finish(
        next.clone(),
        IterationReport {
            gates: vec![result("done-file", PROMISE, GateEnd::Passed)],
            ..ok(&[ev(PROMISE)])
        },
        S,
    );
    assert_eq!(record.verified, [PROMISE]);
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn a_completion_a_gate_refuses_on_the_last_iteration_is_not_a_success() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("tests", &[PROMISE])],
        ..limits(solo(), |l| l.max_iterations = 1)
    });
    gated_step(&mut m, ok(&[ev(PROMISE)]), &[("tests", GateEnd::Timeout)]);
    let reason = stop(&mut m);
    assert_eq!(reason, StopReason::MaxIterations { limit: 1 });
    assert_eq!(reason.class(), EndClass::LimitReached);
    assert!(
        verdict(&reason, m.state())
            .ends_with("; the last completion claim was refused by gate `tests` (timed out)"),
        "{}",
        verdict(&reason, m.state())
    );
}

#[test]
fn the_final_text_fallback_is_gated_too() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("tests", &[PROMISE])],
        ..solo()
    });
    let report = IterationReport {
        final_text: Some(format!("All done.\n{PROMISE}")),
        ..ok(&[])
    };
    let record = gated_step(&mut m, report, &[("tests", GateEnd::Exit)]);
    assert_eq!(
        (record.completion, record.withheld),
        (None, vec![PROMISE.to_owned()])
    );
}

#[test]
fn gate_failed_goes_back_to_the_hat_whose_event_was_refused() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("build", &["build.done"])],
        ..three_hats()
    });
    step(&mut m, ok(&[ev("plan.ready")])); // planner
    let record = gated_step(&mut m, ok(&[ev("build.done")]), &[("build", GateEnd::Exit)]);
    assert_eq!(
        (record.hat.as_str(), record.withheld.clone()),
        ("builder", vec!["build.done".to_owned()])
    );
    let next = run(&mut m);
    assert_eq!(next.hat, "builder", "no hat triggers on gate.failed");
    assert_eq!(next.events[0].topic, GATE_FAILED);
    assert_eq!(next.events[0].to.as_deref(), Some("builder"));
    assert!(
        !m.state().pending.iter().any(|e| e.topic == "build.done"),
        "the planner never saw the refused build.done"
    );
}

#[test]
fn a_hat_that_triggers_on_gate_failed_receives_it() {
    let mut rules = three_hats();
    rules.hats.push(hat("fixer", &[GATE_FAILED]));
    rules.gates = vec![gate("build", &["build.done"])];
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    gated_step(&mut m, ok(&[ev("build.done")]), &[("build", GateEnd::Exit)]);
    assert_eq!(run(&mut m).hat, "fixer");
}

#[test]
fn verified_events_go_through_and_a_refusal_is_not_a_stale_loop() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("build", &["build.done"])],
        ..three_hats()
    });
    step(&mut m, ok(&[ev("plan.ready")]));
    for _ in 0..4 {
        gated_step(&mut m, ok(&[ev("build.done")]), &[("build", GateEnd::Exit)]);
    }
    assert!(
        matches!(m.next(S), Next::Run(_)),
        "four refusals are not a stale loop"
    );
    let mut m = Machine::new(Rules {
        gates: vec![gate("build", &["build.done"])],
        ..three_hats()
    });
    step(&mut m, ok(&[ev("plan.ready")]));
    let record = gated_step(&mut m, ok(&[ev("build.done")]), &[]);
    assert_eq!(record.verified, ["build.done"]);
    assert_eq!(run(&mut m).hat, "planner");
}

#[test]
fn a_default_publish_is_gated_and_held_back_when_refused() {
    let mut rules = three_hats();
    rules.hats[1].default_publishes = Some("build.done".into());
    rules.gates = vec![gate("build", &["build.done"])];
    let mut m = Machine::new(rules);
    step(&mut m, ok(&[ev("plan.ready")]));
    let record = gated_step(&mut m, ok(&[]), &[("build", GateEnd::Exit)]);
    assert_eq!(
        (record.default_published, record.withheld),
        (None, vec!["build.done".to_owned()])
    );
    assert_eq!(run(&mut m).hat, "builder");
}

#[test]
fn required_events_refuse_a_completion_before_any_gate_runs() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("tests", &[PROMISE])],
        ..limits(solo(), |l| l.required_events = vec!["tests.passed".into()])
    });
    let it = run(&mut m);
    let report = ok(&[ev(PROMISE)]);
    assert!(m.gate_plan(&it, &report).is_empty());
    let record = m.finish(it, report, S);
    assert_eq!(record.completion, None);
}

#[test]
fn gates_stopped_by_ctrl_c_withhold_their_events_and_count_as_refused() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("tests", &[PROMISE])],
        ..solo()
    });
    let record = gated_step(
        &mut m,
        ok(&[ev(PROMISE)]),
        &[("tests", GateEnd::Interrupted)],
    );
    assert_eq!(record.withheld, [PROMISE]);
    let next = run(&mut m);
    assert_eq!(
        next.events[0].topic, GATE_FAILED,
        "an interrupted gate did not pass"
    );
}

#[test]
fn a_promise_a_gate_refuses_earns_no_note_on_how_to_signal_it() {
    let mut m = Machine::new(Rules {
        gates: vec![gate("done-file", &[PROMISE])],
        ..solo()
    });
    // The agent emitted the promise and its answer quotes the command it ran.
    let report = IterationReport {
        final_text: Some(format!("Ran `ralph emit {PROMISE}`; all done.")),
        ..ok(&[ev(PROMISE)])
    };
    gated_step(&mut m, report, &[("done-file", GateEnd::Exit)]);
    let notices = m.take_notices();
    assert!(
        notices
            .iter()
            .any(|n| matches!(n, Notice::EventWithheld { .. })),
        "{notices:?}"
    );
    assert!(
        !notices
            .iter()
            .any(|n| matches!(n, Notice::PromiseNotAlone { .. })),
        "{notices:?}"
    );
}

#[test]
fn a_failed_gate_that_printed_nothing_still_has_its_output() {
    for end in [
        GateEnd::Timeout,
        GateEnd::Interrupted,
        GateEnd::RuntimeLimit,
        GateEnd::Exit,
    ] {
        let mut silent = result("g", "DONE", end);
        silent.output = String::new();
        silent.output_lines = 0;
        let json = serde_json::to_value(&silent).unwrap();
        assert_eq!(json["output"], serde_json::json!(""), "{end:?}: {json}");
        assert_eq!(
            serde_json::from_value::<GateResult>(json).unwrap(),
            silent,
            "{end:?}"
        );
    }
    let mut passed = result("g", "DONE", GateEnd::Passed);
    passed.log = Some(".ralph/runs/r/gates/1-g.log".into());
    let json = serde_json::to_value(&passed).unwrap();
    assert_eq!(
        json,
        serde_json::json!({"gate": "g", "event": "DONE", "reason": "passed", "exit_code": 0,
            "duration_ms": 5, "output_lines": 0, "log": ".ralph/runs/r/gates/1-g.log"})
    );
    assert_eq!(serde_json::from_value::<GateResult>(json).unwrap(), passed);
}
