//! Completion waits for the run's tasks.

use pretty_assertions::assert_eq;

use super::super::test_support::*;
use super::super::*;
use crate::topic::TASK_RESUME;

fn with_tasks(report: IterationReport, tasks: &[&str]) -> IterationReport {
    IterationReport {
        unfinished_tasks: tasks.iter().map(|t| (*t).to_owned()).collect(),
        ..report
    }
}

#[test]
fn a_claim_with_open_tasks_is_refused_and_the_agent_is_told_which() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let record = m.finish(
        it,
        with_tasks(ok(&[ev(PROMISE)]), &["task-1-a: Write the parser"]),
        S,
    );
    assert_eq!(record.completion, None);
    assert!(m.take_notices().iter().any(|n| matches!(
        n,
        Notice::TasksUnfinished { tasks, count: 1 } if tasks == &["task-1-a: Write the parser".to_owned()]
    )));
    let next = run(&mut m);
    assert_eq!(next.events[0].topic, TASK_RESUME);
    let payload = next.events[0].payload_text().unwrap();
    assert!(
        payload.starts_with("`LOOP_COMPLETE` was refused: 1 task of the run is not done:\n- task-1-a: Write the parser\n"),
        "{payload}"
    );
    // Once the list is done the same claim completes.
    m.finish(next, ok(&[ev(PROMISE)]), S);
    assert_eq!(stop(&mut m), completed(CompletionSignal::Event));
}

#[test]
fn a_refusal_for_tasks_on_the_last_iteration_is_named_in_the_verdict() {
    let mut m = Machine::new(limits(solo(), |l| l.max_iterations = 1));
    let it = run(&mut m);
    m.finish(it, with_tasks(ok(&[ev(PROMISE)]), &["a", "b"]), S);
    let reason = stop(&mut m);
    assert_eq!(reason, StopReason::MaxIterations { limit: 1 });
    assert_eq!(
        verdict(&reason, m.state()),
        format!("{reason}; the last completion claim was refused: 2 tasks were still open")
    );
}

#[test]
fn open_tasks_keep_gates_from_running_and_the_final_text_is_refused_too() {
    let mut m = Machine::new(Rules {
        gates: vec![GateRule {
            name: "tests".into(),
            command: "make".into(),
            before: vec![PROMISE.into()],
        }],
        ..solo()
    });
    let it = run(&mut m);
    let report = IterationReport {
        final_text: Some(format!("Done.\n{PROMISE}")),
        ..with_tasks(ok(&[]), &["x"])
    };
    assert!(
        m.gate_plan(&it, &report).is_empty(),
        "no gate for a refused claim"
    );
    let record = m.finish(it, report, S);
    assert_eq!(record.completion, None);
}

#[test]
fn a_long_list_is_cut_in_the_refusal() {
    let mut m = Machine::new(solo());
    let it = run(&mut m);
    let many: Vec<String> = (0..REFUSAL_TASKS_SHOWN + 5)
        .map(|i| format!("t{i}"))
        .collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    m.finish(it, with_tasks(ok(&[ev(PROMISE)]), &many), S);
    // The notice names as many as the refusal and counts them all.
    let notices = m.take_notices();
    let Some(Notice::TasksUnfinished { tasks, count }) = notices.first() else {
        panic!("no tasks_unfinished notice: {notices:?}");
    };
    let named: Vec<&str> = tasks.iter().map(String::as_str).collect();
    assert_eq!(
        (named, *count),
        (
            many[..REFUSAL_TASKS_SHOWN].to_vec(),
            REFUSAL_TASKS_SHOWN + 5
        )
    );
    let last = format!(
        "; t{}; and 5 more: `ralph tools task list`)",
        REFUSAL_TASKS_SHOWN - 1
    );
    assert!(notices[0].to_string().ends_with(&last), "{}", notices[0]);
    let payload = run(&mut m).events[0].payload_text().unwrap();
    assert!(
        payload.contains("- … and 5 more (`ralph tools task list`)"),
        "{payload}"
    );
    assert_eq!(payload.matches("\n- t").count(), REFUSAL_TASKS_SHOWN);
}

#[test]
fn the_notice_reads_right_for_one_task_and_for_several() {
    let notice = |tasks: &[&str]| {
        Notice::TasksUnfinished {
            tasks: tasks.iter().map(|t| (*t).to_owned()).collect(),
            count: tasks.len(),
        }
        .to_string()
    };
    assert_eq!(
        notice(&["task-1-a: Write the parser"]),
        "completion refused: 1 task of this run is not done yet (task-1-a: Write the parser)"
    );
    assert_eq!(
        notice(&["a: x", "b: y", "c: z"]),
        "completion refused: 3 tasks of this run are not done yet (a: x; b: y; c: z)"
    );
}

#[test]
fn a_notice_from_an_older_version_without_a_count_counts_its_list() {
    let old: Notice =
        serde_json::from_str(r#"{"notice": "tasks_unfinished", "tasks": ["a: x", "b: y"]}"#)
            .unwrap();
    assert_eq!(
        old.to_string(),
        "completion refused: 2 tasks of this run are not done yet (a: x; b: y)"
    );
}
