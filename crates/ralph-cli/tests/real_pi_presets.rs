//! Every built-in preset end to end with the REAL pi against the offline mock model:
//! `ralph run -H builtin:NAME --dry-run` resolves, then a scripted run goes through the
//! preset's hats to completion (exit 0). pi plays each hat as its instructions ask: it
//! keeps the work in `ralph tools task` and hands over with `ralph emit`, both through its
//! bash tool; the mock routes each iteration by the role its prompt names.

mod real_common;

use pretty_assertions::assert_eq;
use real_common::{PI, RealEnv};
use serde_json::Value;

/// Far more than any preset below needs: a loop that does not finish fails the test.
const MAX_ITERATIONS: u32 = 12;

/// One preset's run.
struct Case<'a> {
    preset: &'a str,
    /// The mock's script (routes by `## Your role: NAME`).
    script: &'a str,
    task: &'a str,
    /// Files in the workspace before the run.
    given: &'a [(&'a str, &'a str)],
    /// The hat of each iteration, in order.
    hats: &'a [&'a str],
    /// Files the run must leave, with their content.
    made: &'a [(&'a str, &'a str)],
    /// How many tasks the run must have added (each must end closed).
    tasks: usize,
}

fn run_preset(case: &Case<'_>) {
    let Some(env) = RealEnv::start(case.script, &[PI]) else {
        return;
    };
    env.write_pi_config(&format!(
        "event_loop:\n  max_iterations: {MAX_ITERATIONS}\n"
    ));
    for (name, text) in case.given {
        std::fs::write(env.ws().join(name), text).expect("write a given file");
    }
    let hats = format!("builtin:{}", case.preset);
    let dry = env
        .ralph(&["run", "-H", &hats, "--dry-run", "-p", case.task])
        .output()
        .expect("ralph runs");
    let dump = String::from_utf8_lossy(&dry.stdout);
    assert!(
        dry.status.success(),
        "{}",
        String::from_utf8_lossy(&dry.stderr)
    );
    assert!(dump.contains(&format!("then {hats}, then")), "{dump}");

    let run = env.run_json(&["-H", &hats, "-p", case.task]);
    assert_eq!(
        run.ending(),
        ("completed".to_owned(), 0, 0),
        "{}: stderr:\n{}",
        case.preset,
        run.stderr
    );
    let history = env.history();
    let worn: Vec<&str> = history
        .iter()
        .map(|r| r["hat"].as_str().unwrap_or("(none)"))
        .collect();
    assert_eq!(worn, case.hats, "{}", case.preset);
    let statuses: Vec<&str> = history
        .iter()
        .map(|r| r["outcome"]["status"].as_str().unwrap_or_default())
        .collect();
    assert!(statuses.iter().all(|s| *s == "succeeded"), "{statuses:?}");
    assert_eq!(
        history.last().map(|r| r["completion"].clone()),
        Some(Value::from("event")),
        "{}",
        case.preset
    );
    for (name, text) in case.made {
        assert_eq!(
            env.file(name).as_deref(),
            Some(*text),
            "{}: {name}",
            case.preset
        );
    }
    let tasks: Vec<Value> = env
        .file(".ralph/agent/tasks.jsonl")
        .unwrap_or_default()
        .lines()
        .map(|l| serde_json::from_str(l).expect("a task"))
        .collect();
    assert_eq!(tasks.len(), case.tasks, "{}: {tasks:?}", case.preset);
    for task in &tasks {
        assert_eq!(task["status"], "closed", "{}: {task}", case.preset);
    }
}

/// The id of the first task `ralph tools task` lists (`ready` or all unfinished).
macro_rules! first_task {
    ($list:literal) => {
        concat!(
            "$(ralph tools task ",
            $list,
            " --format json | grep -o 'task-[0-9a-f-]*' | head -1)"
        )
    };
}

#[test]
fn code_assist_plans_builds_is_rejected_fixes_is_approved_and_finishes() {
    let script = format!(
        r###"
routes:
  - {{contains: "## Your role: Planner", scenario: planner}}
  - {{contains: "hello.txt lacks its newline", scenario: builder_fix}}
  - {{contains: "## Your role: Builder", scenario: builder}}
  - {{contains: "added the newline", scenario: critic_approves}}
  - {{contains: "## Your role: Critic", scenario: critic_rejects}}
  - {{contains: "## Your role: Finalizer", scenario: finalizer}}
scenarios:
  planner:
    - shell: ralph tools task add "Write hello.txt" && ralph emit plan.ready "1. Write hello.txt"
    - text: Planned.
  builder:
    - shell: ralph tools task start {ready} && printf hello > hello.txt && ralph emit build.done "wrote hello.txt"
    - text: Built.
  builder_fix:
    - shell: echo hello > hello.txt && ralph emit build.done "added the newline to hello.txt"
    - text: Fixed.
  critic_rejects:
    - shell: ralph emit review.rejected "hello.txt lacks its newline"
    - text: Rejected.
  critic_approves:
    - shell: ralph tools task close {open} && ralph emit review.approved "hello.txt is right"
    - text: Approved.
  finalizer:
    - shell: test "$(ralph tools task ready --format json)" = "[]" && ralph emit LOOP_COMPLETE
    - text: Done.
"###,
        ready = first_task!("ready"),
        open = first_task!("list"),
    );
    run_preset(&Case {
        preset: "code-assist",
        script: &script,
        task: "Put hello in hello.txt.",
        given: &[],
        hats: &[
            "planner",
            "builder",
            "critic",
            "builder",
            "critic",
            "finalizer",
        ],
        made: &[("hello.txt", "hello\n")],
        tasks: 1,
    });
}

const DEBUG: &str = r###"
routes:
  - {contains: "## Your role: Investigator", scenario: investigator}
  - {contains: "## Your role: Fixer", scenario: fixer}
  - {contains: "## Your role: Verifier", scenario: verifier}
scenarios:
  investigator:
    - shell: sh add.sh 2 3 && ralph emit cause.found "add.sh line 1 subtracts; sh add.sh 2 3 prints -1"
    - text: Found it.
  fixer:
    - shell: printf 'echo $(($1 + $2))\n' > add.sh && ralph emit fix.done "add.sh adds now, checked by sh add.sh 2 3"
    - text: Fixed.
  verifier:
    - shell: test "$(sh add.sh 2 3)" = 5 && ralph emit LOOP_COMPLETE
    - text: Verified.
"###;

#[test]
fn debug_investigates_fixes_and_verifies() {
    run_preset(&Case {
        preset: "debug",
        script: DEBUG,
        task: "sh add.sh 2 3 prints -1, expected 5.",
        given: &[("add.sh", "echo $(($1 - $2))\n")],
        hats: &["investigator", "fixer", "verifier"],
        made: &[("add.sh", "echo $(($1 + $2))\n")],
        tasks: 0,
    });
}

#[test]
fn review_drafts_findings_then_checks_them_and_writes_the_verdict() {
    let script = format!(
        r###"
routes:
  - {{contains: "## Your role: Reviewer", scenario: reviewer}}
  - {{contains: "## Your role: Checker", scenario: checker}}
scenarios:
  reviewer:
    - shell: printf 'high, div.sh line 1, fails when the divisor is 0\n' > REVIEW.md && ralph tools task add "check the division by zero" && ralph emit review.drafted "1 finding"
    - text: Drafted.
  checker:
    - shell: ralph tools task close {open} && printf 'verdict, request changes\n' >> REVIEW.md && ralph emit LOOP_COMPLETE
    - text: Checked.
"###,
        open = first_task!("list"),
    );
    run_preset(&Case {
        preset: "review",
        script: &script,
        task: "Review div.sh.",
        given: &[("div.sh", "echo $(($1 / $2))\n")],
        hats: &["reviewer", "checker"],
        made: &[
            (
                "REVIEW.md",
                "high, div.sh line 1, fails when the divisor is 0\nverdict, request changes\n",
            ),
            ("div.sh", "echo $(($1 / $2))\n"),
        ],
        tasks: 1,
    });
}

#[test]
fn research_finds_is_asked_for_a_gap_and_writes_the_report() {
    let script = format!(
        r###"
routes:
  - {{contains: "which license", scenario: researcher_again}}
  - {{contains: "## Your role: Researcher", scenario: researcher}}
  - {{contains: "licensed MIT", scenario: writer_done}}
  - {{contains: "## Your role: Writer", scenario: writer_asks}}
scenarios:
  researcher:
    - shell: ralph tools task add "Which parser do we use" && ralph tools task close {open} && ralph emit research.findings "the parser is saphyr, see Cargo.toml"
    - text: Found.
  writer_asks:
    - shell: ralph emit research.gaps "which license does saphyr have"
    - text: Asked.
  researcher_again:
    - shell: ralph tools task add "Its license" && ralph tools task close {open} && ralph emit research.findings "saphyr is licensed MIT"
    - text: Found more.
  writer_done:
    - shell: printf 'saphyr, licensed MIT\n' > RESEARCH.md && ralph emit LOOP_COMPLETE
    - text: Written.
"###,
        open = first_task!("list"),
    );
    run_preset(&Case {
        preset: "research",
        script: &script,
        task: "Which YAML parser do we use, and may we ship it?",
        given: &[],
        hats: &["researcher", "writer", "researcher", "writer"],
        made: &[("RESEARCH.md", "saphyr, licensed MIT\n")],
        tasks: 2,
    });
}

#[test]
fn spec_driven_writes_the_spec_builds_to_it_and_verifies_it() {
    let script = format!(
        r###"
routes:
  - {{contains: "## Your role: Spec writer", scenario: spec}}
  - {{contains: "## Your role: Implementer", scenario: implementer}}
  - {{contains: "## Your role: Verifier", scenario: verifier}}
scenarios:
  spec:
    - shell: mkdir -p .ralph/specs && printf 'AC1 sh greet.sh prints hi\n' > .ralph/specs/greet.md && ralph tools task add "AC1 sh greet.sh prints hi" && ralph emit spec.ready ".ralph/specs/greet.md"
    - text: Specified.
  implementer:
    - shell: ralph tools task start {ready} && echo 'echo hi' > greet.sh && ralph tools task close {open} && ralph emit build.done "AC1 done"
    - text: Built.
  verifier:
    - shell: test "$(sh greet.sh)" = hi && ralph emit LOOP_COMPLETE
    - text: Verified.
"###,
        ready = first_task!("ready"),
        open = first_task!("list"),
    );
    run_preset(&Case {
        preset: "spec-driven",
        script: &script,
        task: "A greet.sh that prints hi.",
        given: &[],
        hats: &["spec_writer", "implementer", "verifier"],
        made: &[
            (".ralph/specs/greet.md", "AC1 sh greet.sh prints hi\n"),
            ("greet.sh", "echo hi\n"),
        ],
        tasks: 1,
    });
}

const BASELINE: &str = r###"
default: solo
scenarios:
  solo:
    - shell: echo done > done.txt && ralph emit LOOP_COMPLETE
    - text: Done.
"###;

#[test]
fn hatless_baseline_runs_one_agent_to_completion() {
    run_preset(&Case {
        preset: "hatless-baseline",
        script: BASELINE,
        task: "Write done.txt.",
        given: &[],
        hats: &["ralph"],
        made: &[("done.txt", "done\n")],
        tasks: 0,
    });
}

/// The presets the tests above run, one test each.
const TESTED: [&str; 6] = [
    "code-assist",
    "debug",
    "review",
    "research",
    "spec-driven",
    "hatless-baseline",
];

#[test]
fn every_built_in_preset_has_a_real_run_here() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_ralph"))
        .args(["init", "--list-presets"])
        .output()
        .expect("ralph runs");
    let listed: Vec<String> = String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| l.split_whitespace().next().map(str::to_owned))
        .collect();
    assert_eq!(
        listed, TESTED,
        "a new preset needs its run with the real pi here"
    );
}
