//! `ralph run --output json` against its published schema, docs/run-events.schema.json:
//! real runs, with fake agents replaying real pi and Claude Code transcripts (tools,
//! failing tools, thinking, retries, a sub-agent, failed model calls), every line
//! validated, and the schema shown to reject what it must.

mod common;

use std::collections::{BTreeSet, HashSet};
use std::fmt;

use common::{Workspace, run_events_validator as validator};
use pretty_assertions::assert_eq;
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Value, json};

/// Any JSON, refusing an object with the same key twice (which `serde_json::Value`
/// would silently collapse, hiding it from the schema).
struct NoDuplicateKeys;

impl<'de> Deserialize<'de> for NoDuplicateKeys {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(NoDuplicateKeys)
    }
}

impl<'de> Visitor<'de> for NoDuplicateKeys {
    type Value = NoDuplicateKeys;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_str<E>(self, _: &str) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(NoDuplicateKeys)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
        while seq.next_element::<NoDuplicateKeys>()?.is_some() {}
        Ok(NoDuplicateKeys)
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
        let mut keys = HashSet::new();
        while let Some(key) = map.next_key::<String>()? {
            if !keys.insert(key.clone()) {
                return Err(de::Error::custom(format!("duplicate key `{key}`")));
            }
            map.next_value::<NoDuplicateKeys>()?;
        }
        Ok(NoDuplicateKeys)
    }
}

/// Runs `ralph run --output json <args>` and checks every stdout line: one JSON object,
/// no key twice, valid against the schema. Returns the kinds seen (`type`, with the
/// agent event's type, the notice or the stop reason) and the exit code.
fn run_and_validate(ws: &Workspace, args: &[&str]) -> (i32, BTreeSet<String>) {
    let validator = validator();
    let mut all = vec!["run", "--output", "json"];
    all.extend_from_slice(args);
    let out = ws.run(&all);
    let stdout = String::from_utf8(out.stdout).expect("UTF-8 stdout");
    let mut kinds = BTreeSet::new();
    for line in stdout.lines() {
        serde_json::from_str::<NoDuplicateKeys>(line).unwrap_or_else(|e| panic!("{e} in: {line}"));
        let value: Value = serde_json::from_str(line).expect("JSON");
        let errors: Vec<String> = validator
            .iter_errors(&value)
            .map(|e| format!("{e} at {}", e.instance_path()))
            .collect();
        assert!(errors.is_empty(), "{line}\n{}", errors.join("\n"));
        let sub = ["event", "notice", "reason"]
            .iter()
            .find_map(|k| match &value[*k] {
                Value::String(s) => Some(s.clone()),
                Value::Object(o) => o.get("type").and_then(Value::as_str).map(str::to_owned),
                _ => None,
            });
        let kind = value["type"].as_str().unwrap_or_default();
        kinds.insert(match sub {
            Some(sub) => format!("{kind}/{sub}"),
            None => kind.to_owned(),
        });
    }
    (common::code(out.status), kinds)
}

fn set(kinds: &[&str]) -> BTreeSet<String> {
    kinds.iter().map(|k| (*k).to_owned()).collect()
}

#[test]
fn a_three_hat_run_of_pi_and_claude_matches_the_schema() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  starting_event: work.start\nhats:\n  \
         planner:\n    description: Plans\n    triggers: [work.start]\n    \
         default_publishes: plan.ready\n  builder:\n    description: Builds\n    \
         triggers: [plan.ready]\n    backend: claude\n  reviewer:\n    description: Reviews\n    \
         triggers: [build.done]\n",
        "pi/openai/thinking.jsonl | | sed=s/LOOP_COMPLETE/planned/
claude/v2.1.332_rich.jsonl | build.done=wrote notes.txt | sed=s/LOOP_COMPLETE/built/g junk=1
pi/anthropic/tool_error.jsonl | LOOP_COMPLETE |
",
    );
    let (code, kinds) = run_and_validate(&ws, &["-p", "task"]);
    assert_eq!(code, 0);
    assert_eq!(
        kinds,
        set(&[
            "agent/message_finished",
            "agent/run_finished",
            "agent/session_started",
            "agent/text_delta",
            "agent/thinking_delta",
            "agent/tool_call_finished",
            "agent/tool_call_started",
            "agent/turn_finished",
            "agent/user_message",
            "events_emitted",
            "iteration_finished",
            "iteration_started",
            "loop_finished/completed",
            "loop_started",
            "notice/default_published",
            "notice/invalid_line",
        ])
    );
}

#[test]
fn a_run_with_hooks_that_warn_retry_and_block_matches_the_schema() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nhooks:\n  enabled: true\n  events:\n    pre.loop.start:\n      \
         - {name: ok, command: 'cat > /dev/null', on_error: block}\n      \
         - {name: lint, command: 'echo warn; exit 1', on_error: warn}\n    \
         pre.iteration.start:\n      \
         - {name: flaky, command: 'exit 2', on_error: suspend, suspend_mode: retry_backoff}\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let (code, kinds) = run_and_validate(&ws, &["-p", "task"]);
    assert_eq!(code, 1);
    assert_eq!(
        kinds,
        set(&[
            "hook_finished",
            "hook_started",
            "loop_finished/hook_blocked",
            "loop_started"
        ])
    );
}

#[test]
fn retries_failed_model_calls_and_limits_match_the_schema() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n  rate_limit_wait_seconds: 2\nevent_loop:\n  max_iterations: 3\n  \
         starting_event: work.start\n\
         hats:\n  first:\n    description: Starts\n    triggers: [work.start]\n  \
         second:\n    description: Goes on\n    triggers: [step]\n    backend: claude\n    \
         on_rate_limit: failover\n    fallback: [pi]\n",
        // The second hat's claude is limited, its fallback pi too: a wait, then claude.
        "pi/openai/flaky.jsonl | step=one |
claude/v2.1.332_overloaded529_max_retries2.jsonl | | exit=1
pi/anthropic/error429.jsonl | |
claude/v2.1.332_http500_max_retries2.jsonl | | exit=1
",
    );
    let (code, kinds) = run_and_validate(&ws, &["-p", "task"]);
    assert_eq!(code, 2);
    for kind in [
        "agent/retry_started",
        "agent/retry_finished",
        "notice/events_requeued",
        "rate_limit_wait",
        "failover",
        "loop_finished/max_iterations",
    ] {
        assert!(kinds.contains(kind), "no {kind} in {kinds:?}");
    }
}

#[test]
fn a_run_that_cannot_start_says_why_in_one_json_line() {
    // A configuration error and a workspace another loop holds: stdout is not left
    // empty, it ends with an `error` line that matches the schema.
    let ws = Workspace::new("cli:\n  backend: pi\n  bakend: x\n", "");
    let (code, kinds) = run_and_validate(&ws, &["-p", "task"]);
    assert_eq!((code, kinds), (1, set(&["error"])));
    let out = ws.run(&["run", "--output", "json", "-p", "task"]);
    let line: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
    assert_eq!(line["exit_code"], json!(1));
    assert!(
        line["message"]
            .as_str()
            .is_some_and(|m| m.contains("unknown key `bakend`")),
        "{line}"
    );
    // A command line clap refuses, with --output json anywhere on it, gets its line too.
    for args in [
        &["run", "--output", "json", "--max-iterations", "abc"][..],
        &["run", "--max-iterations", "abc", "--output=json"][..],
    ] {
        let out = ws.run(args);
        let line: Value = serde_json::from_slice(&out.stdout).expect("one JSON line");
        assert!(validator().is_valid(&line), "{line}");
        assert_eq!(line["exit_code"], json!(1));
        assert!(
            line["message"]
                .as_str()
                .is_some_and(|m| m.contains("invalid value 'abc' for '--max-iterations")),
            "{line}"
        );
    }
}

#[test]
fn a_cost_unknown_notice_has_each_key_once() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | LOOP_COMPLETE | sed=s/\"total\":[0-9.e-]*/\"total\":0/g\n",
    );
    let (code, kinds) = run_and_validate(&ws, &["-p", "task", "--max-cost", "5"]);
    assert_eq!(code, 0);
    assert!(kinds.contains("notice/cost_unknown"), "{kinds:?}");
}

#[test]
fn the_schema_rejects_what_the_contract_forbids() {
    let validator = validator();
    let good = json!({"type": "agent", "iteration": 1,
        "event": {"type": "text_delta", "text": "hi"}});
    assert!(validator.is_valid(&good));
    let bad = [
        // An undocumented field.
        json!({"type": "agent", "iteration": 1, "extra": 1,
            "event": {"type": "text_delta", "text": "hi"}}),
        // A documented field left out instead of null.
        json!({"type": "agent", "iteration": 1,
            "event": {"type": "tool_call_finished", "id": "t", "output": "", "is_error": false}}),
        // A wrong type in a nested agent event.
        json!({"type": "agent", "iteration": 1,
            "event": {"type": "turn_finished", "is_error": false, "usage": {"tokens":
                {"input": 1, "output": 1, "cache_read": 0, "cache_write": 0},
                "cost_usd": "0.1", "cost_kind": "reported", "model": null}}}),
        // An exit code that does not go with the reason.
        json!({"type": "loop_finished", "reason": "max_iterations", "limit": 3,
            "message": "m", "outcome": "limit_reached", "exit_code": 0, "summary_path": "s",
            "totals": {"iterations": 3, "elapsed_ms": 1, "cost_usd": 0.0,
                "cost_complete": true,
                "tokens": {"input": 0, "output": 0, "cache_read": 0, "cache_write": 0}}}),
        // A failed gate without its `output` (due even when it printed nothing).
        json!({"type": "gate_finished", "iteration": 1, "passed": false, "gate": "g",
            "event": "DONE", "reason": "timeout", "exit_code": null, "duration_ms": 5,
            "output_lines": 0, "log": ".ralph/runs/r/gates/1-g.log"}),
        // An unknown type.
        json!({"type": "loop_paused"}),
        // An error ends with 1 (or 130, stopped while --worktree made the worktree).
        json!({"type": "error", "message": "m", "exit_code": 2}),
    ];
    let accepted: Vec<&Value> = bad.iter().filter(|v| validator.is_valid(v)).collect();
    assert_eq!(accepted, Vec::<&Value>::new());
}

/// Every notice kind, stop reason, outcome and agent event type, built from the types
/// themselves (runs cannot easily reach them all), validates.
#[test]
fn every_variant_the_types_can_make_matches_the_schema() {
    use ralph_core::event::Event;
    use ralph_core::machine::{
        CompletionSignal, GateEnd, GateResult, IterationOutcome, Notice, StopReason,
    };
    use ralph_core::run_event::{Limits, RunEvent, Totals};
    use ralph_stream::{AgentEvent, CostKind, Tokens};

    let validator = validator();
    let totals = Totals {
        iterations: 1,
        elapsed_ms: 5,
        cost_usd: 0.5,
        cost_complete: false,
        cost_estimated: false,
        tokens: Tokens::default(),
        tokens_complete: false,
    };
    let agent_events = AgentEvent::examples();
    let notices = Notice::examples();
    let reasons = StopReason::examples();
    let outcomes = [
        IterationOutcome::Succeeded,
        IterationOutcome::Failed { reason: "r".into() },
        IterationOutcome::StoppedAtCostLimit,
        IterationOutcome::StoppedAtRuntimeLimit,
        IterationOutcome::Interrupted,
        IterationOutcome::RateLimited {
            message: "429".into(),
            resets_at: Some(1_795_676_400),
        },
        IterationOutcome::RateLimited {
            message: "429".into(),
            resets_at: None,
        },
    ];
    let mut addressed = Event::with_text("gate.failed", "x");
    addressed.to = Some("h".into());
    let events = [Event::new("a"), Event::with_text("b", "c"), addressed];
    let required = ["r".to_owned()];
    let verified = ["a".to_owned()];
    let gate_results: Vec<GateResult> = [
        GateEnd::Passed,
        GateEnd::Exit,
        GateEnd::Timeout,
        GateEnd::Spawn,
        GateEnd::Interrupted,
        GateEnd::RuntimeLimit,
    ]
    .into_iter()
    // Each failure twice: having printed something, and having printed nothing.
    .flat_map(|end| [(end, "out"), (end, "")])
    .filter(|(end, printed)| *end != GateEnd::Passed || printed.is_empty())
    .map(|(end, printed)| GateResult {
        gate: "g".into(),
        event: "DONE".into(),
        end,
        exit_code: (end == GateEnd::Exit).then_some(3),
        duration_ms: 5,
        output: printed.into(),
        output_lines: u64::from(!printed.is_empty()),
        log: Some(".ralph/runs/r/gates/1-g.log".into()),
    })
    .collect();
    let mut all: Vec<Value> = Vec::new();
    let mut push = |event: RunEvent<'_>| all.push(serde_json::to_value(&event).expect("JSON"));
    push(RunEvent::LoopStarted {
        run_id: "r",
        resumed: true,
        workspace: "/w",
        run_dir: ".ralph/runs/r",
        backend: "pi",
        hats: vec!["h"],
        limits: Limits {
            max_iterations: 1,
            max_runtime_secs: 2,
            max_cost_usd: None,
            max_consecutive_failures: 3,
            completion_promise: "DONE",
            required_events: &required,
        },
        totals,
    });
    push(RunEvent::IterationStarted {
        iteration: 1,
        attempt: 1,
        max_iterations: 2,
        hat: "h",
        hat_name: "H",
        backend: "pi",
        events: &events,
        wall_secs: 3,
        started_at_ms: 4,
        elapsed_ms: 0,
    });
    for event in &agent_events {
        push(RunEvent::Agent {
            iteration: 1,
            event,
        });
    }
    push(RunEvent::EventsEmitted {
        iteration: 1,
        events: &events,
        from_tags: 1,
        outside: &events,
        invalid_lines: 2,
        verified: &verified,
        withheld: &[],
    });
    for resets_at in [Some(1_795_676_400), None] {
        push(RunEvent::RateLimitWait {
            iteration: 1,
            hat: "ralph",
            wait_secs: 60,
            resets_at,
            message: "429 rate limit",
        });
    }
    for (queued, went) in [
        (true, "queued for iteration 2"),
        (false, "delivered to pi mid-turn"),
    ] {
        push(RunEvent::SteerReceived {
            iteration: 2,
            id: "1795676400000-42-1",
            message: "use the parser in src/p.rs",
            queued,
            went,
        });
    }
    for (via, to) in [
        (ralph_core::steer::SteerVia::Prompt, "prompt"),
        (ralph_core::steer::SteerVia::MidTurn, "pi mid-turn"),
    ] {
        push(RunEvent::SteerDelivered {
            iteration: 2,
            id: "1795676400000-42-1",
            via,
            to,
        });
    }
    push(RunEvent::Failover {
        iteration: 1,
        hat: "builder",
        from: "claude",
        from_fallback: 0,
        to: "pi",
        to_fallback: 1,
    });
    for (iteration, event) in [(Some(1), Some("DONE")), (None, None)] {
        push(RunEvent::GateStarted {
            iteration,
            gate: "g",
            event,
            command: "make test",
        });
    }
    for result in &gate_results {
        push(RunEvent::GateFinished {
            iteration: None,
            passed: result.passed(),
            result,
        });
    }
    for notice in &notices {
        push(RunEvent::Notice {
            iteration: None,
            notice,
        });
    }
    for outcome in &outcomes {
        push(RunEvent::IterationFinished {
            iteration: 1,
            hat: "h",
            backend: "pi",
            model: None,
            outcome,
            duration_ms: 1,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            tokens: Tokens::default(),
            tokens_known: false,
            turns: 0,
            completion: Some(CompletionSignal::Event),
            stderr_tail: Some("e"),
            totals,
        });
    }
    let head = ralph_core::run_event::GitHead {
        branch: Some("ralph/task-1".to_owned()),
        commit: Some("0123456789abcdef0123456789abcdef01234567".to_owned()),
    };
    let detached = ralph_core::run_event::GitHead {
        branch: None,
        commit: None,
    };
    for (n, reason) in reasons.iter().enumerate() {
        let class = reason.class();
        push(RunEvent::LoopFinished {
            reason,
            message: reason.to_string(),
            outcome: class,
            exit_code: match class {
                ralph_core::machine::EndClass::Completed => 0,
                ralph_core::machine::EndClass::Failed => 1,
                ralph_core::machine::EndClass::LimitReached => 2,
                ralph_core::machine::EndClass::Interrupted => 130,
            },
            totals,
            summary_path: "s.md",
            // Outside a repository, on a branch, and on a detached head before a commit.
            git: [None, Some(&head), Some(&detached)][n % 3],
        });
    }
    use ralph_core::hooks::policy::{HookAction, HookFailure};
    push(RunEvent::HookStarted {
        phase: "pre.iteration.start",
        hook: "h",
        iteration: Some(2),
        attempt: 1,
        command: "./h.sh",
    });
    push(RunEvent::HookStarted {
        phase: "pre.loop.start",
        hook: "h",
        iteration: None,
        attempt: 3,
        command: "./h.sh",
    });
    let actions = [
        HookAction::Continue,
        HookAction::Warn,
        HookAction::Block,
        HookAction::Retry,
        HookAction::Suspend,
        HookAction::Stop,
    ];
    let failures = [
        None,
        Some(HookFailure::Exit),
        Some(HookFailure::Timeout),
        Some(HookFailure::Spawn),
        Some(HookFailure::Signal),
        Some(HookFailure::Answer),
        Some(HookFailure::Interrupted),
        Some(HookFailure::RuntimeLimit),
    ];
    for (action, failure) in actions.into_iter().zip(failures.into_iter().cycle()) {
        push(RunEvent::HookFinished {
            phase: "post.loop.error",
            hook: "h",
            iteration: Some(1),
            attempt: 1,
            passed: failure.is_none(),
            failure,
            exit_code: failure.map(|_| 1),
            message: failure.map(|_| "exit code 1"),
            duration_ms: 3,
            action,
            output_tail: failure.map(|_| "tail"),
            log_path: ".ralph/runs/r/hooks/1-post.loop.error-h.log",
        });
    }
    let hook_lines = 2 + actions.len();
    let invalid: Vec<String> = all
        .iter()
        .filter(|v| !validator.is_valid(v))
        .map(Value::to_string)
        .collect();
    assert_eq!(invalid, Vec::<String>::new());
    // Started, iteration started, the agent events, events emitted, two waits, a
    // failover, two steers received and two delivered, two gate starts, then one line per
    // gate result, notice, iteration outcome and stop reason.
    assert_eq!(
        all.len(),
        1 + 1
            + agent_events.len()
            + 1
            + 2
            + 1
            + 2
            + 2
            + 2
            + gate_results.len()
            + notices.len()
            + outcomes.len()
            + reasons.len()
            + hook_lines
    );
}

#[test]
fn an_agent_that_cannot_start_ends_a_run_that_matches_the_schema() {
    let ws = Workspace::new("cli:\n  backend: custom\n  command: ./agent.sh\n", "");
    let agent = ws.path().join("agent.sh");
    // It runs once and takes its own execute bit away: the next start fails in the loop
    // (a program that cannot run before the loop is refused before it, with no events).
    std::fs::write(
        &agent,
        "#!/bin/sh\nchmod -x \"$0\"\necho working\nralph emit step.done\n",
    )
    .expect("write the agent");
    std::fs::set_permissions(&agent, std::os::unix::fs::PermissionsExt::from_mode(0o755))
        .expect("chmod");
    let (code, kinds) = run_and_validate(&ws, &["-p", "task"]);
    assert_eq!(code, 1);
    assert!(
        kinds.contains("loop_finished/agent_cannot_start"),
        "{kinds:?}"
    );
}
