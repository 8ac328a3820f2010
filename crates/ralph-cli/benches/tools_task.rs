//! How long `ralph tools task …` takes on a large task list (10,000 tasks: half closed,
//! a tenth blocked), beside `ralph --version` (the process's own start, the floor any
//! command pays) measured in the same rounds.
//!
//! Run: `cargo bench -p ralph-cli --bench tools_task`. `BENCH_ROUNDS` (default 15;
//! medians are printed) and `BENCH_TASKS` (default 10000). Prints each command's median,
//! its ratio to `--version`, and the target (issue 13: under 20 ms); asserts nothing
//! about time.

mod support;

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use support::{env_number, median};

/// The target for every `ralph tools` command on the large list.
const BUDGET: Duration = Duration::from_millis(20);

/// A task line in ralph-orchestrator's form.
fn line(i: u32, blocked_by: Option<u32>) -> String {
    let status = if i.is_multiple_of(2) {
        "closed"
    } else {
        "open"
    };
    let closed = if status == "closed" {
        ",\"closed\":\"2026-11-26T02:39:22.353859046+00:00\""
    } else {
        ""
    };
    let blockers = blocked_by.map_or_else(String::new, |b| format!("\"task-1795660762-{b:04x}\""));
    format!(
        "{{\"id\":\"task-1795660762-{i:04x}\",\"title\":\"Task number {i}: do the thing well\",\
         \"description\":\"Some words about task {i}\",\"status\":\"{status}\",\"priority\":{},\
         \"blocked_by\":[{blockers}],\"created\":\"2026-11-26T02:39:22.102945259+00:00\"{closed}}}\n",
        1 + i % 5
    )
}

fn time(ralph: &Path, dir: &Path, args: &[&str]) -> Duration {
    let started = Instant::now();
    let status = Command::new(ralph)
        .args(args)
        .current_dir(dir)
        .env_remove("RALPH_WORKSPACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .expect("run ralph");
    let took = started.elapsed();
    assert!(status.success(), "ralph {args:?} failed: {status}");
    took
}

fn main() {
    let rounds = env_number("BENCH_ROUNDS", 15).max(1);
    let count = env_number("BENCH_TASKS", 10_000).max(10);
    let ralph = Path::new(env!("CARGO_BIN_EXE_ralph"));
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = dir.path().join(".ralph/agent");
    std::fs::create_dir_all(&agent).expect("agent dir");
    let text: String = (0..count)
        .map(|i| line(i, (i % 10 == 1).then(|| i + 2)))
        .collect();
    std::fs::write(agent.join("tasks.jsonl"), &text).expect("tasks");
    let probe = "task-1795660762-0003";
    let commands: [(&str, Vec<&str>); 8] = [
        ("ralph --version (reference)", vec!["--version"]),
        ("tools task ready", vec!["tools", "task", "ready"]),
        ("tools task list", vec!["tools", "task", "list"]),
        (
            "tools task list --format json",
            vec!["tools", "task", "list", "--format", "json"],
        ),
        ("tools task show", vec!["tools", "task", "show", probe]),
        ("tools task add", vec!["tools", "task", "add", "One more"]),
        ("tools task start", vec!["tools", "task", "start", probe]),
        ("tools task close", vec!["tools", "task", "close", probe]),
    ];
    let mut samples: Vec<Vec<Duration>> = vec![Vec::new(); commands.len()];
    for _ in 0..rounds {
        for (i, (_, args)) in commands.iter().enumerate() {
            samples[i].push(time(ralph, dir.path(), args));
        }
        // `close` then `start` again next round: reopen, so each round does the same work.
        time(ralph, dir.path(), &["tools", "task", "reopen", probe]);
    }
    let reference = median(samples[0].clone());
    println!(
        "ralph tools task on {count} tasks ({} KiB), {rounds} rounds, medians:",
        text.len() / 1024
    );
    for ((name, _), runs) in commands.iter().zip(samples) {
        let m = median(runs);
        println!(
            "  {name:<32} {:>7.2} ms  {:>5.2}x --version  {}",
            m.as_secs_f64() * 1e3,
            m.as_secs_f64() / reference.as_secs_f64().max(f64::EPSILON),
            if m < BUDGET {
                "(under 20 ms)"
            } else {
                "(OVER 20 ms)"
            }
        );
    }
}
