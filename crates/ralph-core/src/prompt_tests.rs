use serde_json::json;

use super::*;
use crate::config::{DEFAULT_PROMPT_EVENTS_MAX_BYTES, Deadlines};

fn hat(
    id: &str,
    name: &str,
    triggers: &[&str],
    publishes: &[&str],
    instructions: &str,
) -> HatConfig {
    HatConfig {
        id: id.into(),
        name: name.into(),
        description: format!("The {id}"),
        triggers: triggers.iter().map(|t| (*t).to_owned()).collect(),
        publishes: publishes.iter().map(|t| (*t).to_owned()).collect(),
        instructions: instructions.into(),
        backend: None,
        args: vec![],
        deadlines: Deadlines::default(),
        pty: false,
        steering: false,
        default_publishes: None,
        max_activations: None,
        on_rate_limit: None,
        fallback: None,
    }
}

fn hats() -> Vec<HatConfig> {
    vec![
        hat(
            "planner",
            "Planner",
            &["work.start", "step.done"],
            &["step.ready", "LOOP_COMPLETE"],
            "Pick the next unfinished step from the plan and emit step.ready with it.\n",
        ),
        hat(
            "builder",
            "Builder",
            &["step.ready"],
            &["step.done"],
            "Implement exactly the step you are given. Run the tests.\n",
        ),
    ]
}

const OBJECTIVE: &str = "Add a `--json` flag to the `report` command.\n";

fn input<'a>(role: Role<'a>, events: &'a [Event]) -> PromptInput<'a> {
    PromptInput {
        objective: OBJECTIVE,
        guardrails: &[],
        scratchpad: None,
        events,
        role,
        promise: "LOOP_COMPLETE",
        required_missing: &[],
        events_max_bytes: DEFAULT_PROMPT_EVENTS_MAX_BYTES as usize,
        ralph: RALPH_BY_NAME,
        tasks: None,
        memories: None,
        skills: &[],
        steering: &[],
    }
}

#[test]
fn solo_first_iteration_is_short() {
    let events = [Event::new(TASK_START)];
    insta::assert_snapshot!(build_prompt(&input(Role::Solo, &events)));
}

#[test]
fn solo_with_guardrails_scratchpad_and_required_events() {
    let guardrails = vec![
        "Run `cargo test` before every commit.".to_owned(),
        "Never edit generated files.".to_owned(),
    ];
    let missing = vec!["review.approved".to_owned()];
    let events = [Event::new(TASK_RESUME)];
    let prompt = build_prompt(&PromptInput {
        guardrails: &guardrails,
        scratchpad: Some(Scratchpad {
            path: ".ralph/agent/scratchpad.md",
            text: "## Done\n- parser\n\n## Next\n- flag\n",
        }),
        required_missing: &missing,
        ..input(Role::Solo, &events)
    });
    insta::assert_snapshot!(prompt);
}

#[test]
fn an_empty_scratchpad_is_named_so_the_agent_creates_it() {
    let prompt = build_prompt(&PromptInput {
        scratchpad: Some(Scratchpad {
            path: "notes.md",
            text: "",
        }),
        ..input(Role::Solo, &[])
    });
    assert!(
        prompt.contains("in `notes.md`.")
            && prompt.contains("(The file is empty or does not exist yet.)"),
        "{prompt}"
    );
}

#[test]
fn a_hat_sees_its_events_with_payloads_its_instructions_and_what_it_publishes() {
    let hats = hats();
    let events = [
        Event::with_text("step.ready", "Add the flag to cli.rs"),
        Event {
            topic: "step.ready".into(),
            payload: Some(json!({"step": 2, "files": ["report.rs"]})),
            to: None,
        },
        Event::with_text("step.ready", "Update the docs:\n- README\n- --help"),
    ];
    insta::assert_snapshot!(build_prompt(&input(Role::Hat { hat: &hats[1] }, &events)));
}

#[test]
fn a_hat_that_may_publish_the_promise_is_told_how_to_finish() {
    let hats = hats();
    let events = [Event::with_text("step.done", "flag added")];
    insta::assert_snapshot!(build_prompt(&input(Role::Hat { hat: &hats[0] }, &events)));
}

#[test]
fn the_coordinator_lists_the_hats_it_can_hand_work_to() {
    let hats = hats();
    let events = [
        Event::new(TASK_START),
        Event::with_text(
            TASK_RESUME,
            "LOOP_COMPLETE was refused: these events must be emitted first: review.approved",
        ),
    ];
    insta::assert_snapshot!(build_prompt(&input(
        Role::Coordinator {
            hats: &hats,
            exhausted: &[],
            queued: &[],
        },
        &events
    )));
}

#[test]
fn the_coordinator_is_told_which_hats_are_exhausted() {
    let hats = hats();
    let exhausted = [hats[1].id.clone()];
    let prompt = build_prompt(&input(
        Role::Coordinator {
            hats: &hats,
            exhausted: &exhausted,
            queued: &[],
        },
        &[],
    ));
    let line = |id: &str| {
        let hat = hats.iter().find(|h| h.id == id).expect("a hat");
        let named = format!("`: {} (", hat.name);
        prompt
            .lines()
            .find(|l| l.starts_with("- `") && l.contains(&named))
            .unwrap_or_else(|| panic!("no line for {id} in:\n{prompt}"))
    };
    assert!(
        line(&hats[1].id).ends_with(
            " — exhausted: it ran as often as its max_activations allow, so ralph drops \
             events for it; hand the work to another hat"
        ),
        "{prompt}"
    );
    assert!(!line(&hats[0].id).contains("exhausted"), "{prompt}");
}

#[test]
fn the_coordinator_sees_what_is_queued_for_each_hat_bounded_and_that_finishing_drops_it() {
    let hats = hats();
    let q = |hat: &str, topic: &str, count: usize| QueuedEvents {
        hat: hat.into(),
        topic: topic.into(),
        count,
    };
    let mut queued = vec![q("builder", "step.ready", 2)];
    queued.extend((0..QUEUED_TOPICS_SHOWN + 1).map(|i| q("planner", &format!("step.t{i}"), 1)));
    let prompt = build_prompt(&input(
        Role::Coordinator {
            hats: &hats,
            exhausted: &[],
            queued: &queued,
        },
        &[],
    ));
    let line = |name: &str| {
        let named = format!("`: {name} (");
        (prompt.lines())
            .find(|l| l.starts_with("- `") && l.contains(&named))
            .unwrap_or_else(|| panic!("no line for {name} in:\n{prompt}"))
            .to_owned()
    };
    assert!(
        line("Builder").ends_with(" — queued for it, not handled yet: `step.ready` ×2"),
        "{prompt}"
    );
    assert!(
        line("Planner").ends_with(
            " — queued for it, not handled yet: `step.t0`, `step.t1`, `step.t2` and 1 more topics"
        ),
        "{prompt}"
    );
    assert!(
        prompt.contains("What is queued for a hat above is never handled once the run completes"),
        "{prompt}"
    );
    // Nothing queued, or only for an exhausted hat (whose events ralph drops): no word of it.
    for (exhausted, queued) in [
        (vec![], vec![]),
        (vec!["builder".to_owned()], queued[..1].to_vec()),
    ] {
        let prompt = build_prompt(&input(
            Role::Coordinator {
                hats: &hats,
                exhausted: &exhausted,
                queued: &queued,
            },
            &[],
        ));
        assert!(!prompt.contains("queued"), "{prompt}");
    }
}

#[test]
fn the_scratchpad_tail_is_bounded_and_starts_at_a_line() {
    let line = "note: é and more text\n";
    let text = line.repeat(2 * SCRATCHPAD_TAIL_BYTES / line.len());
    let (tail, cut) = scratchpad_tail(&text);
    assert!(cut);
    assert!(tail.len() <= SCRATCHPAD_TAIL_BYTES);
    assert!(tail.starts_with("note: "));
    assert!(text.ends_with(tail));
    assert_eq!(scratchpad_tail("short\n"), ("short\n", false));
}

#[test]
fn a_hat_without_instructions_is_given_its_description() {
    let mut h = hats().remove(1);
    h.instructions = String::new();
    let prompt = build_prompt(&input(Role::Hat { hat: &h }, &[]));
    assert!(
        prompt.contains("## Your role: Builder\n\nThe builder\n"),
        "{prompt}"
    );
}

#[test]
fn agents_whose_shell_loses_path_are_told_to_call_ralph_through_ralph_bin() {
    let hats = hats();
    let prompt = build_prompt(&PromptInput {
        ralph: RALPH_BY_PATH_VAR,
        ..input(Role::Hat { hat: &hats[0] }, &[])
    });
    assert!(
        prompt.contains("`\"$RALPH_BIN\" emit <topic> \"<summary>\"`")
            && prompt.contains("run `\"$RALPH_BIN\" emit LOOP_COMPLETE`")
            && !prompt.contains("`ralph emit"),
        "{prompt}"
    );
    // The variable the prompt names is the one the loop sets.
    assert_eq!(RALPH_BY_PATH_VAR, format!("\"${}\"", ralph_types::env::BIN));
}

/// A bound that holds two of the events below but not three.
const SMALL_BOUND: usize = 120;

#[test]
fn a_flood_of_events_keeps_the_newest_within_the_bound_and_says_how_many_were_left_out() {
    let hats = hats();
    let events: Vec<Event> = (1..=5)
        .map(|n| Event::with_text("step.ready", format!("step {n}: {}", "x".repeat(30))))
        .collect();
    let prompt = build_prompt(&PromptInput {
        events_max_bytes: SMALL_BOUND,
        ..input(Role::Hat { hat: &hats[1] }, &events)
    });
    let section = prompt
        .split("## Events to handle\n\n")
        .nth(1)
        .and_then(|rest| rest.split("\n## ").next())
        .expect("an events section");
    assert!(section.len() <= SMALL_BOUND + 120, "{section}");
    insta::assert_snapshot!(prompt);
}

#[test]
fn a_single_payload_over_the_bound_is_cut_with_a_marker() {
    let events = [Event::with_text("step.ready", "é".repeat(SMALL_BOUND))];
    let prompt = build_prompt(&PromptInput {
        events_max_bytes: SMALL_BOUND,
        ..input(Role::Solo, &events)
    });
    let line = prompt
        .lines()
        .find(|l| l.starts_with("- `step.ready`: "))
        .expect("the event is shown");
    assert!(
        line.ends_with("… (payload cut: `ralph events` shows all of it)"),
        "{line}"
    );
    assert!(
        line.len() <= SMALL_BOUND + "- `step.ready`: ".len(),
        "{line}"
    );
    assert!(!prompt.contains("left out"), "{prompt}");
}

#[test]
fn events_within_the_bound_are_all_shown_whole() {
    let events: Vec<Event> = (1..=3)
        .map(|n| Event::with_text("step.ready", format!("step {n}")))
        .collect();
    let prompt = build_prompt(&input(Role::Solo, &events));
    for n in 1..=3 {
        assert!(
            prompt.contains(&format!("- `step.ready`: step {n}\n")),
            "{prompt}"
        );
    }
    assert!(!prompt.contains("left out") && !prompt.contains("payload cut"));
}

#[test]
fn the_finishing_text_names_both_ways_to_complete() {
    let prompt = build_prompt(&input(Role::Solo, &[]));
    assert!(
        prompt.contains("run `ralph emit LOOP_COMPLETE` as your last action")
            && prompt.contains("a line that holds only `LOOP_COMPLETE`"),
        "{prompt}"
    );
}

#[test]
fn a_failed_gate_is_told_in_words_with_its_command_and_output() {
    let event = Event {
        topic: crate::topic::GATE_FAILED.into(),
        payload: Some(json!({
            "gate": "tests", "event": "LOOP_COMPLETE", "command": "test -f done.txt",
            "exit_code": 1, "reason": "exit", "output": "done.txt: No such file",
        })),
        to: None,
    };
    let prompt = build_prompt(&input(Role::Solo, std::slice::from_ref(&event)));
    assert!(
        prompt.contains(
            "- `gate.failed`:\n  ralph ran gate `tests` (`test -f done.txt`) before accepting \
             `LOOP_COMPLETE`, and it failed with exit code 1, so `LOOP_COMPLETE` was not \
             accepted. Find and fix the cause, check it yourself, then publish `LOOP_COMPLETE` \
             again. The end of its output:\n  ```\n  done.txt: No such file\n  ```\n"
        ),
        "{prompt}"
    );
}

#[test]
fn with_tasks_enabled_and_none_stored_the_prompt_teaches_the_list_in_a_few_lines() {
    let events = [Event::new(TASK_START)];
    let view = crate::tasks::TasksView::default();
    let prompt = build_prompt(&PromptInput {
        tasks: Some(&view),
        ..input(Role::Solo, &events)
    });
    insta::assert_snapshot!(prompt);
}

#[test]
fn the_prompt_lists_the_runs_tasks_in_progress_then_ready_bounded() {
    use crate::tasks::{Task, TaskList, TaskStatus};
    let mut list = TaskList::default();
    let mut started = Task::new("task-1-aaaa".into(), "Write the parser".into(), "0".into());
    started.priority = 2;
    list.add(started).unwrap();
    list.start("aaaa", "1").unwrap();
    for i in 0..12 {
        let mut t = Task::new(
            format!("task-2-{i:04}"),
            format!("Step {i}"),
            format!("{i:02}"),
        );
        t.priority = if i == 7 { 1 } else { 3 };
        list.add(t).unwrap();
    }
    let mut blocked = Task::new("task-3-bbbb".into(), "After step 0".into(), "99".into());
    blocked.blocked_by = vec!["task-2-0000".into()];
    list.add(blocked).unwrap();
    let mut other = Task::new("task-4-cccc".into(), "Another run's".into(), "0".into());
    other.loop_id = Some("older-run".into());
    list.add(other).unwrap();
    assert_eq!(list.find("cccc").unwrap().status, TaskStatus::Open);
    let view = list.view("this-run");
    let events = [Event::new(TASK_START)];
    let prompt = build_prompt(&PromptInput {
        tasks: Some(&view),
        ..input(Role::Solo, &events)
    });
    insta::assert_snapshot!(prompt);
}

/// Issue 13's bar: with every part of the working memory on and nothing stored yet, the
/// whole prompt of a one-line task stays under 4 KB (the commands are taught in a few
/// lines; `--help` carries the rest).
const EMPTY_MEMORY_PROMPT_BYTES: usize = 4 * 1024;

#[test]
fn with_tasks_memories_and_skills_on_and_nothing_stored_the_prompt_stays_small() {
    let events = [Event::new(TASK_START)];
    let view = crate::tasks::TasksView::default();
    let hats = hats();
    for role in [Role::Solo, Role::Hat { hat: &hats[1] }] {
        let prompt = build_prompt(&PromptInput {
            scratchpad: Some(Scratchpad {
                path: ".ralph/agent/scratchpad.md",
                text: "",
            }),
            tasks: Some(&view),
            memories: Some(crate::prompt_memory::MemoryPrompt::Primed("")),
            ..input(role, &events)
        });
        assert!(
            prompt.len() < EMPTY_MEMORY_PROMPT_BYTES,
            "{} bytes:\n{prompt}",
            prompt.len()
        );
        if matches!(role, Role::Solo) {
            insta::assert_snapshot!(prompt);
        }
    }
}

#[test]
fn steering_comes_under_its_own_heading_before_the_role() {
    let hats = hats();
    let events = [Event::with_text("build.task", "add the flag")];
    let steering = vec![
        "Use the existing parser in src/parse.rs.".to_owned(),
        "Skip the docs for now;\nthey are rewritten next week.".to_owned(),
    ];
    let prompt = build_prompt(&PromptInput {
        steering: &steering,
        ..input(Role::Hat { hat: &hats[1] }, &events)
    });
    let heading = prompt
        .find(&format!("## {}", crate::prompt::STEERING_HEADING))
        .expect("heading");
    assert!(heading < prompt.find("## Your role").unwrap());
    assert!(heading > prompt.find("## Events to handle").unwrap());
    insta::assert_snapshot!(prompt);
    let without = build_prompt(&input(Role::Hat { hat: &hats[1] }, &events));
    assert!(!without.contains(crate::prompt::STEERING_HEADING));
}
