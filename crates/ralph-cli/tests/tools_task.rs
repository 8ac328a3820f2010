//! `ralph tools task` as agents and people use it: the incumbent's file read and
//! written compatibly, fifty processes at once, a damaged line, errors that say what to
//! do, and a loop that cannot complete while its tasks are open.

mod common;

use std::process::{Command, Stdio};

use common::{Workspace, code, finished, of_type, ralph_bin};
use pretty_assertions::assert_eq;
use serde_json::{Value, json};

const SAMPLE: &str = include_str!("../../ralph-core/tests/fixtures/incumbent_tasks.jsonl");

fn task(ws: &Workspace, args: &[&str]) -> (i32, String, String) {
    ws.tools_task(args)
}

fn tasks_file(ws: &Workspace) -> String {
    std::fs::read_to_string(ws.path().join(".ralph/agent/tasks.jsonl")).unwrap_or_default()
}

#[test]
fn the_incumbents_file_is_read_and_changed_in_place() {
    let ws = Workspace::new("", "");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    std::fs::write(ws.path().join(".ralph/agent/tasks.jsonl"), SAMPLE).unwrap();
    let (status, stdout, _) = task(&ws, &["ready"]);
    assert_eq!(status, 0);
    let ids: Vec<&str> = stdout
        .lines()
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(ids, ["task-1795660762-76e3", "task-1795660762-887a"]);
    // `list --format json` as the incumbent prints it: closed tasks hidden.
    let (_, json_out, _) = task(&ws, &["list", "--format", "json"]);
    let listed: Value = serde_json::from_str(&json_out).unwrap();
    assert_eq!(
        listed
            .as_array()
            .unwrap()
            .iter()
            .map(|t| t["title"].clone())
            .collect::<Vec<_>>(),
        [json!("Test it"), json!("Docs")]
    );
    // Closing by key rewrites that one line; the others stay byte for byte.
    let (status, stdout, _) = task(&ws, &["close", "docs"]);
    assert_eq!(
        (
            status,
            stdout.starts_with("closed task task-1795660762-887a: Docs")
        ),
        (0, true)
    );
    let lines: Vec<String> = tasks_file(&ws).lines().map(str::to_owned).collect();
    let sample: Vec<&str> = SAMPLE.lines().collect();
    assert_eq!(
        (lines[0].as_str(), lines[1].as_str()),
        (sample[0], sample[1])
    );
    let docs: Value = serde_json::from_str(&lines[2]).unwrap();
    assert_eq!(
        (docs["status"].as_str(), docs["key"].as_str()),
        (Some("closed"), Some("docs"))
    );
    assert!(docs["closed"].as_str().unwrap().ends_with("+00:00"));
}

#[test]
fn a_loop_run_tags_its_tasks_and_the_workspace_comes_from_the_loop() {
    let ws = Workspace::new("", "");
    let sub = ws.path().join("src/deep");
    std::fs::create_dir_all(&sub).unwrap();
    let out = Command::new(ralph_bin())
        .args([
            "tools",
            "task",
            "add",
            "From a subdirectory",
            "-p",
            "1",
            "--format",
            "json",
        ])
        .current_dir(&sub)
        .env("RALPH_WORKSPACE", ws.path())
        .env("RALPH_RUN_ID", "20261126T064700Z")
        .stdin(Stdio::null())
        .output()
        .unwrap();
    assert_eq!(
        code(out.status),
        0,
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let added: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        (added["loop_id"].as_str(), added["priority"].as_u64()),
        (Some("20261126T064700Z"), Some(1))
    );
    assert!(!sub.join(".ralph").exists());
    assert!(tasks_file(&ws).contains("From a subdirectory"));
}

#[test]
fn fifty_processes_adding_and_closing_at_once_lose_nothing() {
    let ws = Workspace::new("", "");
    let (_, out, _) = task(&ws, &["add", "seed", "--format", "json"]);
    let seed: Value = serde_json::from_str(&out).unwrap();
    let seed_id = seed["id"].as_str().unwrap().to_owned();
    let children: Vec<_> = (0..50)
        .map(|i| {
            let mut cmd = ws.command(&["tools", "task", "add", &format!("task {i}")]);
            if i % 10 == 0 {
                cmd = ws.command(&["tools", "task", "start", &seed_id]);
            }
            cmd.stdout(Stdio::null())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    common::wait_all_ok(children);
    let text = tasks_file(&ws);
    let lines: Vec<Value> = text
        .lines()
        .map(|l| serde_json::from_str(l).expect("every line is a whole task"))
        .collect();
    assert_eq!(lines.len(), 1 + 45);
    let ids: std::collections::BTreeSet<&str> =
        lines.iter().map(|t| t["id"].as_str().unwrap()).collect();
    assert_eq!(ids.len(), lines.len(), "ids are unique");
    assert_eq!(lines[0]["status"], "in_progress");
}

#[test]
fn a_damaged_line_is_reported_with_its_number_and_kept() {
    let ws = Workspace::new("", "");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    let damaged = format!("{}{{\"id\": \"half\n", SAMPLE);
    std::fs::write(ws.path().join(".ralph/agent/tasks.jsonl"), &damaged).unwrap();
    let (status, _, stderr) = task(&ws, &["add", "after the damage"]);
    assert_eq!(status, 0);
    assert!(
        stderr.contains(".ralph/agent/tasks.jsonl:4: not a task") && stderr.contains("kept"),
        "{stderr}"
    );
    let text = tasks_file(&ws);
    assert!(
        text.contains("{\"id\": \"half\n"),
        "the damaged line is still there"
    );
    assert!(text.contains("after the damage"));
}

#[test]
fn mistakes_exit_non_zero_and_say_what_to_do() {
    let ws = Workspace::new("", "");
    for (args, expected) in [
        (
            &["start", "nope"][..],
            "no task `nope` (`ralph tools task list` shows the open ones",
        ),
        (&["add", "  "][..], "a task needs a title"),
        (
            &["add", "x", "--blocked-by", "ghost"][..],
            "no task `ghost`",
        ),
        (&["add", "x", "-p", "9"][..], "9 is not in 1..=5"),
    ] {
        let (status, _, stderr) = task(&ws, args);
        assert!(
            status != 0 && stderr.contains(expected),
            "{args:?}: {status} {stderr}"
        );
    }
    task(&ws, &["add", "a"]);
    let (_, out, _) = task(&ws, &["list", "--format", "json"]);
    let id = serde_json::from_str::<Value>(&out).unwrap()[0]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    task(&ws, &["close", &id]);
    let (status, _, stderr) = task(&ws, &["start", &id]);
    assert_eq!(status, 1);
    assert!(stderr.contains("is closed: reopen it first"), "{stderr}");
}

#[test]
fn the_loop_cannot_complete_while_its_tasks_are_open() {
    // Iteration 1 adds a task and claims completion; iteration 2 closes it and claims
    // again. The fake agent runs `ralph tools task` through the PATH ralph gives it.
    let plan = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | ralph tools task ensure 'Write the docs' --key docs\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE | | ralph tools task close docs\n";
    let ws = Workspace::new("cli:\n  backend: pi\n", plan);
    let refusal = completed_after_one_refusal(&ws, "document it");
    assert_eq!(refusal["count"], 1);
    assert!(
        refusal["tasks"][0]
            .as_str()
            .unwrap()
            .ends_with(": Write the docs")
    );
    // The second prompt lists the task and says why the claim was refused.
    let prompt = ws.prompt(2);
    assert!(
        prompt.contains("was refused: 1 task of the run is not done"),
        "{prompt}"
    );
    assert!(
        prompt.contains("## Tasks") && prompt.contains(") Write the docs"),
        "{prompt}"
    );
    assert_eq!(ws.history().len(), 2);
}

#[test]
fn a_task_a_gate_files_holds_back_the_completion_it_checks() {
    // The gate files a task (with the run's id, from its environment) and passes: the
    // completion it checked waits for that task, as for one the agent filed. Iteration 2
    // closes it; the gate finds it again by its key and files nothing new.
    let config = format!(
        "cli:\n  backend: pi\ngates:\n  - name: review\n    run: \"'{}' tools task ensure \
         'found by the gate' --key review\"\n",
        ralph_bin()
    );
    let plan = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n\
                pi/anthropic/text.jsonl | LOOP_COMPLETE | | ralph tools task close review\n";
    let ws = Workspace::new(&config, plan);
    let refusal = completed_after_one_refusal(&ws, "do it");
    assert_eq!(refusal["iteration"], 1);
    assert!(
        refusal["tasks"][0]
            .as_str()
            .unwrap()
            .ends_with(": found by the gate")
    );
    assert_eq!(ws.history().len(), 2);
}

/// Runs `task` (at most 4 iterations), which must complete after one completion claim
/// was refused for unfinished tasks: that refusal's notice.
fn completed_after_one_refusal(ws: &Workspace, task: &str) -> Value {
    let (status, events, stderr) = ws.run_json(&["-p", task, "--max-iterations", "4"]);
    assert_eq!(
        (status, finished(&events)["reason"].clone()),
        (0, json!("completed")),
        "{stderr}"
    );
    let refusals: Vec<&Value> = of_type(&events, "notice")
        .into_iter()
        .filter(|n| n["notice"] == "tasks_unfinished")
        .collect();
    assert_eq!(refusals.len(), 1, "{events:#?}");
    refusals[0].clone()
}

/// The ids `--format quiet` printed, one a line.
fn ids(stdout: &str) -> Vec<&str> {
    stdout.lines().collect()
}

/// A task's `blocked_by` as `show --format json` prints it.
fn blockers(ws: &Workspace, id: &str) -> Vec<String> {
    let (_, out, _) = task(ws, &["show", id, "--format", "json"]);
    let shown: Value = serde_json::from_str(&out).unwrap();
    serde_json::from_value(shown["blocked_by"].clone()).unwrap()
}

#[test]
fn blocked_by_takes_the_incumbents_commas_or_a_repeated_flag_and_leaves_the_title_alone() {
    let ws = Workspace::new("", "");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    std::fs::write(ws.path().join(".ralph/agent/tasks.jsonl"), SAMPLE).unwrap();
    let both = ["task-1795660762-921a", "task-1795660762-887a"];
    let (status, out, stderr) = task(
        &ws,
        &[
            "add",
            "Commas",
            "--blocked-by",
            "921a,887a",
            "--format",
            "quiet",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(blockers(&ws, out.trim()), both);
    let (status, out, stderr) = task(
        &ws,
        &[
            "add",
            "--blocked-by",
            "921a",
            "--blocked-by",
            "887a, ",
            "Repeated",
            "--format",
            "quiet",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(blockers(&ws, out.trim()), both);
    let (_, shown, _) = task(&ws, &["show", out.trim(), "--format", "json"]);
    assert_eq!(
        serde_json::from_str::<Value>(&shown).unwrap()["title"],
        "Repeated"
    );
    let (status, out, stderr) = task(
        &ws,
        &[
            "ensure",
            "--blocked-by",
            "921a,887a",
            "Keyed",
            "--key",
            "k",
            "--format",
            "quiet",
        ],
    );
    assert_eq!(status, 0, "{stderr}");
    assert_eq!(blockers(&ws, out.trim()), both);
}

#[test]
fn task_takes_the_options_of_every_tools_command() {
    let ws = Workspace::new("", "");
    task(&ws, &["add", "one"]);
    for args in [
        &[
            "-c",
            "ralph.yml",
            "-H",
            "builtin:code-assist",
            "-v",
            "--color",
            "never",
            "list",
        ][..],
        &[
            "list",
            "--config",
            "ralph.yml",
            "--hats",
            "x.yml",
            "--verbose",
            "--color",
            "always",
        ][..],
        &["ready", "-v", "--root", "."][..],
    ] {
        let (status, out, stderr) = task(&ws, args);
        assert_eq!(
            (status, out.contains("one")),
            (0, true),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn format_quiet_prints_the_ids_alone() {
    let ws = Workspace::new("", "");
    let (status, first, stderr) = task(&ws, &["add", "first", "-p", "1", "--format", "quiet"]);
    assert_eq!(status, 0, "{stderr}");
    let first = first.trim().to_owned();
    assert!(
        first.starts_with("task-") && !first.contains(' '),
        "{first}"
    );
    let (_, second, _) = task(
        &ws,
        &["ensure", "second", "--key", "s", "--format", "quiet"],
    );
    let second = second.trim().to_owned();
    let (_, listed, _) = task(&ws, &["list", "--format", "quiet"]);
    assert_eq!(ids(&listed), [first.as_str(), second.as_str()]);
    let (_, ready, _) = task(&ws, &["--format", "quiet", "ready"]);
    assert_eq!(ids(&ready), [first.as_str(), second.as_str()]);
    let (_, shown, _) = task(&ws, &["show", "s", "--format", "quiet"]);
    assert_eq!(shown, format!("{second}\n"));
    let (_, closed, _) = task(&ws, &["close", &first, "--format", "quiet"]);
    assert_eq!(closed, format!("{first}\n"));
    let (status, none, _) = task(&ws, &["list", "-s", "failed", "--format", "quiet"]);
    assert_eq!((status, none.as_str()), (0, ""));
}

#[test]
fn list_takes_the_incumbents_filters() {
    let ws = Workspace::new("", "");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).unwrap();
    let now = std::time::SystemTime::now();
    let ago = |days: u64| {
        ralph_core::time_text::rfc3339_nanos(now - std::time::Duration::from_secs(days * 86_400))
    };
    // Created long ago except `new`; `old-closed` was closed yesterday.
    let line = |id: &str, status: &str, priority: u8, created: &str, closed: Option<&str>| {
        let mut task = json!({"id": id, "title": id, "status": status, "priority": priority,
                              "blocked_by": [], "created": created});
        if let Some(closed) = closed {
            task["closed"] = json!(closed);
        }
        task.to_string()
    };
    let file = [
        line("old-open", "open", 3, &ago(30), None),
        line("old-closed", "closed", 1, &ago(30), Some(&ago(1))),
        line("old-failed", "failed", 1, &ago(30), Some(&ago(20))),
        line("new", "open", 2, &ago(2), None),
        line("doing", "in_progress", 4, &ago(40), None),
    ]
    .join("\n");
    std::fs::write(ws.path().join(".ralph/agent/tasks.jsonl"), file + "\n").unwrap();
    for (args, expected) in [
        // In progress, then open, closed, failed; most urgent first within each.
        (&["list"][..], &["doing", "new", "old-open"][..]),
        (
            &["list", "-a"][..],
            &["doing", "new", "old-open", "old-closed", "old-failed"][..],
        ),
        (&["list", "--all", "-l", "2"][..], &["doing", "new"][..]),
        (&["list", "-a", "-d", "7"][..], &["new", "old-closed"][..]),
        (&["list", "--days", "7", "--limit", "1"][..], &["new"][..]),
        (&["list", "-s", "inprogress"][..], &["doing"][..]),
        (&["list", "--status", "In_Progress"][..], &["doing"][..]),
        (&["list", "-s", "in-progress"][..], &["doing"][..]),
        (
            &["list", "-s", "closed", "-d", "7"][..],
            &["old-closed"][..],
        ),
    ] {
        let mut all = args.to_vec();
        all.extend(["--format", "quiet"]);
        let (status, out, stderr) = task(&ws, &all);
        assert_eq!(
            (status, ids(&out)),
            (0, expected.to_vec()),
            "{args:?}: {stderr}"
        );
    }
}

#[test]
fn ready_inside_a_run_shows_its_tasks_and_all_shows_every_runs() {
    let ws = Workspace::new("", "");
    let add = |title: &str, run: Option<&str>| {
        let mut cmd = ws.command(&["tools", "task", "add", title, "--format", "quiet"]);
        cmd.env_remove("RALPH_RUN_ID");
        if let Some(run) = run {
            cmd.env("RALPH_RUN_ID", run);
        }
        let out = cmd.output().unwrap();
        assert_eq!(code(out.status), 0);
        String::from_utf8(out.stdout).unwrap().trim().to_owned()
    };
    let mine = add("mine", Some("run-a"));
    let theirs = add("theirs", Some("run-b"));
    let nobodys = add("nobody's", None);
    let ready = |args: &[&str], run: Option<&str>| {
        let mut all = vec!["tools", "task", "ready", "--format", "quiet"];
        all.extend_from_slice(args);
        let mut cmd = ws.command(&all);
        cmd.env_remove("RALPH_RUN_ID");
        if let Some(run) = run {
            cmd.env("RALPH_RUN_ID", run);
        }
        let out = cmd.output().unwrap();
        assert_eq!(code(out.status), 0);
        String::from_utf8(out.stdout).unwrap()
    };
    assert_eq!(
        ids(&ready(&[], Some("run-a"))),
        [mine.as_str(), nobodys.as_str()]
    );
    let every = [mine.as_str(), theirs.as_str(), nobodys.as_str()];
    assert_eq!(ids(&ready(&["-a"], Some("run-a"))), every);
    assert_eq!(ids(&ready(&["--all"], Some("run-a"))), every);
    assert_eq!(ids(&ready(&[], None)), every);
}

#[test]
fn a_second_task_of_one_key_is_refused_naming_the_first() {
    let ws = Workspace::new("", "");
    let (status, first, _) = task(&ws, &["add", "T", "--key", "k1", "--format", "quiet"]);
    assert_eq!(status, 0);
    let (status, _, stderr) = task(&ws, &["add", "U", "--key", "k1"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(&format!(
            "task `{}` (open) already has the key `k1`",
            first.trim()
        )),
        "{stderr}"
    );
    assert_eq!(tasks_file(&ws).lines().count(), 1);
    // `ensure` is how a key is asked for again: it finds the task.
    let (status, found, _) = task(&ws, &["ensure", "U", "--key", "k1", "--format", "quiet"]);
    assert_eq!((status, found), (0, first));
}

#[test]
fn the_table_shows_a_newline_in_a_key_or_title_as_an_escape_and_json_keeps_it() {
    let ws = Workspace::new("", "");
    task(&ws, &["add", "two\nlines", "--key", "k\n1"]);
    task(&ws, &["add", "tab\there", "--key", "k2"]);
    let (status, table, _) = task(&ws, &["list"]);
    assert_eq!(status, 0);
    assert_eq!(table.lines().count(), 3, "{table}");
    assert!(table.contains("two\\nlines  [k\\n1]"), "{table}");
    assert!(table.contains("tab\\there  [k2]"), "{table}");
    let (_, json, _) = task(&ws, &["list", "--format", "json"]);
    let tasks: Value = serde_json::from_str(&json).unwrap();
    assert_eq!(
        (&tasks[0]["title"], &tasks[0]["key"]),
        (&json!("two\nlines"), &json!("k\n1"))
    );
    let (_, shown, _) = task(&ws, &["show", "k2"]);
    assert!(shown.contains("tab\\there"), "{shown}");
}

#[test]
fn a_lock_that_cannot_be_taken_is_named_not_the_list() {
    let ws = Workspace::new("", "");
    let lock = ws.path().join(".ralph/agent/tasks.jsonl.lock");
    std::fs::create_dir_all(&lock).unwrap();
    let (status, _, stderr) = task(&ws, &["add", "x"]);
    assert_eq!(status, 1);
    assert!(
        stderr.contains(&format!(
            "cannot take the task list's lock `{}`: ",
            lock.display()
        )),
        "{stderr}"
    );
}

#[test]
fn from_a_subdirectory_the_tools_find_the_workspace_above() {
    let ws = Workspace::new("", "");
    assert_eq!(task(&ws, &["add", "at the top"]).0, 0);
    let deep = ws.path().join("src/deep");
    std::fs::create_dir_all(&deep).unwrap();
    let out = ws
        .command(&["tools", "task", "add", "from deep inside"])
        .current_dir(&deep)
        .output()
        .expect("ralph tools");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert!(
        tasks_file(&ws).contains("from deep inside"),
        "{}",
        tasks_file(&ws)
    );
    assert!(
        !deep.join(".ralph").exists(),
        "no store of its own down there"
    );
    let out = ws
        .command(&["tools", "memory", "add", "kept at the top", "-t", "fix"])
        .current_dir(&deep)
        .output()
        .expect("ralph tools");
    assert_eq!(code(out.status), 0, "{out:?}");
    assert!(
        !deep.join(".ralph").exists(),
        "no store of its own down there"
    );
}

#[test]
fn a_task_list_that_cannot_be_read_is_warned_of_once_an_iteration_with_gates_too() {
    // The list is read before the gates and again after them: its warning is said once.
    let config = "cli:\n  backend: pi\ngates:\n  - name: check\n    run: \"true\"\n";
    let ws = Workspace::new(config, "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n");
    // A directory where the list's file belongs cannot be read as one.
    std::fs::create_dir_all(ws.path().join(".ralph/agent/tasks.jsonl")).unwrap();
    let (_, _, stderr) = ws.run_json(&["-p", "do it", "--max-iterations", "1"]);
    let warned = stderr
        .matches("completion is not held back by tasks")
        .count();
    assert_eq!(warned, 1, "{stderr}");
}
