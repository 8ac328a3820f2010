use super::*;

#[test]
fn topic_patterns_match_with_stars() {
    let cases = [
        ("build.done", "build.done", true),
        ("build.done", "build.done.x", false),
        ("build.*", "build.done", true),
        ("build.*", "review.done", false),
        ("*.done", "build.done", true),
        ("*", "anything", true),
        ("a*b*c", "a-x-b-y-c", true),
        ("a*b*c", "a-x-c-y-b", false),
    ];
    let got: Vec<bool> = cases.iter().map(|(p, t, _)| glob(p, t)).collect();
    let want: Vec<bool> = cases.iter().map(|(_, _, w)| *w).collect();
    assert_eq!(got, want);
}

#[test]
fn the_table_aligns_its_columns_and_keeps_payloads_to_one_line() {
    let row = |iteration, topic: Option<&str>, payload: Option<Value>| Row {
        iteration,
        hat: Some("builder".into()),
        backend: Some("pi".into()),
        outcome: "succeeded".into(),
        started_at_ms: Some(1_000 + 65_000 * u64::from(iteration - 1)),
        consumed: vec![],
        topic: topic.map(str::to_owned),
        payload,
    };
    let rows = [
        row(
            1,
            Some("plan.ready"),
            Some(Value::from("step one\nstep two")),
        ),
        row(2, None, None),
        Row {
            hat: None,
            backend: None,
            outcome: RUNNING.into(),
            started_at_ms: None,
            ..row(10, Some("x"), Some(serde_json::json!({"a": 1})))
        },
    ];
    assert_eq!(
        table(&rows, "r", 1_000),
        "TIME  ITER  HAT      OUTCOME    TOPIC       PAYLOAD\n\
             0:00     1  builder  succeeded  plan.ready  step one step two\n\
             1:05     2  builder  succeeded  —\n        \
             10  …        running    x           {\"a\":1}\n"
    );
}

#[test]
fn a_filtered_table_keeps_the_runs_clock() {
    // The second iteration started 65 s into the run: shown alone it still says 1:05.
    let row = Row {
        iteration: 2,
        hat: Some("builder".into()),
        backend: Some("pi".into()),
        outcome: "succeeded".into(),
        started_at_ms: Some(66_000),
        consumed: vec![],
        topic: Some("build.done".into()),
        payload: None,
    };
    assert!(table(&[row], "r", 1_000).contains("\n1:05 "));
}
