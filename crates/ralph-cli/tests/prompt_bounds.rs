//! What the next prompt carries after an agent floods the bus (`ralph run` end to end,
//! with the fake agents).

mod common;

use common::Workspace;

/// More events than the default bound holds, each as large as `ralph emit` allows.
const FLOOD_EVENTS: usize = 40;
const FLOOD_PAYLOAD_BYTES: usize = 60_000;
/// The default `event_loop.prompt_events_max_bytes`.
const DEFAULT_BOUND: usize = 1024 * 1024;
/// The rest of the prompt: the task, the role and how to finish.
const PROMPT_FRAME_BYTES: usize = 4096;

#[test]
fn a_flood_of_large_events_leaves_the_next_prompt_bounded_and_says_how_many_were_left_out() {
    let flood = format!("flood={FLOOD_EVENTS}:{FLOOD_PAYLOAD_BYTES}");
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        &format!("pi/anthropic/text.jsonl | | {flood}\npi/anthropic/text.jsonl | |\n"),
    );
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(ws.agent_log().len(), 2, "{stderr}");
    let prompt = ws.prompt(2);
    assert!(
        prompt.len() < DEFAULT_BOUND + PROMPT_FRAME_BYTES,
        "the prompt is {} bytes",
        prompt.len()
    );
    let shown = prompt.matches("- `flood.item`: ").count();
    let note = format!(
        "({} earlier events were left out to keep this prompt short: `ralph events` lists \
         them all.)",
        FLOOD_EVENTS - shown
    );
    assert!(shown > 0 && shown < FLOOD_EVENTS, "{shown} events shown");
    assert!(prompt.contains(&note), "no `{note}` in the prompt");
    // The newest are the ones kept.
    let last = FLOOD_EVENTS - 1;
    assert!(prompt.contains(&format!("- `flood.item`: {last} xxx")));
    assert!(!prompt.contains("- `flood.item`: 0 xxx"));
}

#[test]
fn a_smaller_configured_bound_is_honoured() {
    const BOUND: usize = 100_000;
    let ws = Workspace::new(
        &format!("cli:\n  backend: pi\nevent_loop:\n  prompt_events_max_bytes: {BOUND}\n"),
        "pi/anthropic/text.jsonl | | flood=5:60000\npi/anthropic/text.jsonl | |\n",
    );
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(ws.agent_log().len(), 2, "{stderr}");
    let prompt = ws.prompt(2);
    assert!(
        prompt.len() < BOUND + PROMPT_FRAME_BYTES,
        "{}",
        prompt.len()
    );
    assert!(
        prompt.contains("(4 earlier events were left out"),
        "{prompt:.2000}"
    );
}

#[test]
fn huge_task_titles_are_cut_in_the_refusal_the_next_prompt_carries() {
    const TASKS: usize = 10;
    const TITLE_BYTES: usize = 100_000;
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\npi/anthropic/text.jsonl | |\n",
    );
    // Open tasks no run created: they hold this run's completion back.
    let tasks: String = (0..TASKS)
        .map(|i| {
            format!(
                "{{\"id\":\"task-1-{i:04x}\",\"title\":\"{i} {}\",\"status\":\"open\",\
                 \"priority\":3,\"created\":\"2026-11-27T10:00:00Z\"}}\n",
                "z".repeat(TITLE_BYTES)
            )
        })
        .collect();
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    std::fs::write(ws.path().join(".ralph/agent/tasks.jsonl"), tasks).unwrap();
    let (_, _, stderr) = ws.run_json(&["-p", "task", "--max-iterations", "2"]);
    assert_eq!(ws.agent_log().len(), 2, "{stderr}");
    let prompt = ws.prompt(2);
    assert!(
        prompt.contains("was refused: 10 tasks of the run are not done"),
        "{prompt:.3000}"
    );
    // Each title is named in the list and in the refusal, cut to a line's length.
    assert_eq!(prompt.matches("zzz…").count(), 2 * TASKS, "{prompt:.3000}");
    assert!(
        prompt.len() < PROMPT_FRAME_BYTES * 4,
        "the prompt is {} bytes",
        prompt.len()
    );
}
