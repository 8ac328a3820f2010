//! Notices and gate results in the full-screen view are said in words, as the line view
//! says them.

use ralph_core::machine::Notice;
use ralph_core::run_event::RunEvent;

use super::*;

/// A notice is said in words as the line view says it (its `Display`), on screen and in
/// the export; a kind this ralph does not know keeps its name.
#[test]
fn notices_are_said_in_words_on_screen_and_in_the_export() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    for notice in &Notice::examples() {
        feed(
            &mut model,
            &RunEvent::Notice {
                iteration: Some(1),
                notice,
            },
        );
    }
    model.apply_json(b"{\"type\":\"notice\",\"iteration\":1,\"notice\":\"new_kind\"}");
    let notes: Vec<String> = model.iterations[0]
        .entries
        .iter()
        .map(|e| e.searchable().into_owned())
        .collect();
    let mut expected: Vec<String> = Notice::examples()
        .iter()
        .map(|n| format!("note: {n}"))
        .collect();
    expected.push("note: new_kind".to_owned());
    assert_eq!(notes, expected);
    let md = export::markdown(&model, &model.iterations[0]);
    assert!(
        md.contains("*note: completion refused: 1 task of this run is not done yet (task-1-a: t)*"),
        "{md}"
    );
}

/// A gate's end reads as the line view says it, never as its reason's code.
#[test]
fn gate_results_are_said_in_words() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let ends = [
        (GateEnd::Passed, Some(0)),
        (GateEnd::Exit, Some(101)),
        (GateEnd::Exit, None),
        (GateEnd::Timeout, None),
        (GateEnd::Spawn, None),
        (GateEnd::Interrupted, None),
    ];
    for (end, exit_code) in ends {
        let result = GateResult {
            gate: "tests".to_owned(),
            event: "build.done".to_owned(),
            end,
            exit_code,
            duration_ms: 4_200,
            output: String::new(),
            output_lines: 0,
            log: None,
        };
        feed(
            &mut model,
            &RunEvent::GateFinished {
                iteration: Some(1),
                passed: end == GateEnd::Passed,
                result: &result,
            },
        );
    }
    let details: Vec<&str> = model.iterations[0]
        .entries
        .iter()
        .filter_map(|e| match e {
            Entry::Gate(g) => Some(g.detail.as_str()),
            _ => None,
        })
        .collect();
    assert_eq!(
        details,
        [
            "passed · 4.2s",
            "failed (exit code 101) · 4.2s",
            "failed (killed by a signal) · 4.2s",
            "timed out, stopped · 4.2s",
            "could not start · 4.2s",
            "interrupted · 4.2s",
        ]
    );
}
