//! `ralph run` when a file it reads or writes is not what it expects: a FIFO, a device,
//! a huge file, or a symbolic link planted under `.ralph/` by a cloned repository or by
//! the agent (issue 11, items 1 and 2). Nothing may block (signals keep working) and
//! nothing outside the workspace may be written.

mod common;

use std::os::unix::fs::symlink;
use std::path::Path;
use std::process::{Output, Stdio};
use std::time::Duration;

use common::{Workspace, code, finished};
use nix::sys::signal::{Signal, kill};
use nix::sys::stat::Mode;
use nix::unistd::{Pid, mkfifo};
use pretty_assertions::assert_eq;
use serde_json::json;

/// Long enough for any of these runs; a ralph blocked on a FIFO is killed after it, and
/// the test then fails on its exit code instead of hanging the suite.
const HANG_GUARD: Duration = Duration::from_secs(20);

const PI: &str = "cli:\n  backend: pi\n";
const ONE_STEP: &str = "pi/anthropic/text.jsonl | step=one |\n";
const COMPLETES: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

fn fifo(path: &Path) {
    mkfifo(path, Mode::S_IRWXU).expect("mkfifo");
}

/// `ralph <args>` to the end, killed after [`HANG_GUARD`].
fn run(ws: &Workspace, args: &[&str]) -> (i32, String) {
    let child = ws
        .command(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn ralph");
    let out: Output = ralph_test_support::wait_output(child, HANG_GUARD);
    (
        code(out.status),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn a_fifo_as_the_prompt_file_is_refused_at_once() {
    let ws = Workspace::new(PI, COMPLETES);
    fifo(&ws.path().join("task.md"));
    let (code, stderr) = run(&ws, &["run", "-P", "task.md"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("FIFO (named pipe), not a regular file"),
        "{stderr}"
    );
    // The refusal says what to do; "create it" would be wrong advice here.
    assert!(!stderr.contains("Create it"), "{stderr}");
    assert!(ws.agent_log().is_empty());
}

#[test]
fn an_empty_or_non_utf8_prompt_file_is_named_with_what_is_wrong() {
    let ws = Workspace::new(PI, COMPLETES);
    std::fs::write(ws.path().join("task.md"), " \n\n").expect("write");
    let (code, stderr) = run(&ws, &["run", "-P", "task.md"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("the prompt file `task.md` holds no task"),
        "{stderr}"
    );
    std::fs::write(ws.path().join("task.md"), b"fix \xff").expect("write");
    let (code, stderr) = run(&ws, &["run", "-P", "task.md"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("Save it as UTF-8 text"), "{stderr}");
    assert!(!stderr.contains("Create it"), "{stderr}");
    assert!(ws.agent_log().is_empty());
}

#[test]
fn dev_zero_as_the_prompt_file_is_refused_without_reading_it() {
    let ws = Workspace::new(PI, COMPLETES);
    let (code, stderr) = run(&ws, &["run", "-P", "/dev/zero"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("a character device, not a regular file"),
        "{stderr}"
    );
}

#[test]
fn a_prompt_file_over_the_bound_is_refused_with_the_limit() {
    let ws = Workspace::new(PI, COMPLETES);
    let limit = ralph_core::fsafe::MAX_PROMPT_FILE_BYTES;
    let big = vec![b'x'; usize::try_from(limit + 1).expect("size")];
    std::fs::write(ws.path().join("big.md"), big).expect("write");
    let (code, stderr) = run(&ws, &["run", "-P", "big.md"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains(&format!("over the {limit}-byte limit")),
        "{stderr}"
    );
}

#[test]
fn a_fifo_or_dev_zero_as_the_config_file_is_refused_at_once() {
    let ws = Workspace::new("", COMPLETES);
    fifo(&ws.path().join("pipe.yml"));
    let (code, stderr) = run(&ws, &["run", "-c", "pipe.yml", "-p", "task"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("pipe.yml"), "{stderr}");
    assert!(stderr.contains("not a regular file"), "{stderr}");
    let (code, stderr) = run(&ws, &["run", "-c", "/dev/zero", "-p", "task"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("a character device, not a regular file"),
        "{stderr}"
    );
}

#[test]
fn init_force_refuses_a_fifo_or_a_device_and_writes_through_a_link_whole() {
    let ws = Workspace::new("", "");
    fs_remove(&ws.path().join("ralph.yml"));
    fifo(&ws.path().join("ralph.yml"));
    let (code, stderr) = run(&ws, &["init", "--force"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("a FIFO (named pipe), not a regular file"),
        "{stderr}"
    );
    let (code, stderr) = run(&ws, &["init", "--force", "-c", "/dev/null"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("a character device, not a regular file"),
        "{stderr}"
    );

    // A config kept elsewhere and linked in: the file it names is replaced, the link
    // stays.
    fs_remove(&ws.path().join("ralph.yml"));
    std::fs::create_dir(ws.path().join("shared")).expect("mkdir");
    std::fs::write(ws.path().join("shared/ralph.yml"), "cli:\n  backend: pi\n").expect("write");
    symlink("shared/ralph.yml", ws.path().join("ralph.yml")).expect("symlink");
    let (code, stderr) = run(&ws, &["init", "--force", "--backend", "claude"]);
    assert_eq!(code, 0, "{stderr}");
    let link = std::fs::symlink_metadata(ws.path().join("ralph.yml")).expect("lstat");
    assert!(link.file_type().is_symlink());
    let text = std::fs::read_to_string(ws.path().join("shared/ralph.yml")).expect("read");
    assert!(text.contains("backend: claude\n"), "{text}");
}

#[test]
fn watch_refuses_a_fifo_as_the_runs_events_and_says_when_there_is_no_run() {
    let ws = Workspace::new("", "");
    let (code, stderr) = run(&ws, &["watch"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("no run to show in"), "{stderr}");
    let run_dir = ws.path().join(".ralph/runs/20261127T070000Z");
    std::fs::create_dir_all(&run_dir).expect("mkdir");
    fifo(&run_dir.join("run-events.jsonl"));
    let (code, stderr) = run(&ws, &["watch", "20261127T070000Z"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("a FIFO (named pipe), not a regular file"),
        "{stderr}"
    );
}

fn fs_remove(path: &Path) {
    match std::fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => panic!("remove: {e}"),
        _ => {}
    }
}

#[test]
fn a_fifo_at_the_scratchpad_is_warned_about_and_ctrl_c_still_stops_the_run() {
    fifo_at_the_scratchpad_then(Signal::SIGINT);
}

#[test]
fn a_fifo_at_the_scratchpad_is_warned_about_and_sigterm_still_stops_the_run() {
    fifo_at_the_scratchpad_then(Signal::SIGTERM);
}

fn fifo_at_the_scratchpad_then(signal: Signal) {
    let ws = Workspace::new(PI, "pi/anthropic/text.jsonl | | hang=60\n");
    std::fs::create_dir_all(ws.path().join(".ralph/agent")).expect("mkdir");
    fifo(&ws.path().join(".ralph/agent/scratchpad.md"));
    let child = ws.start(&["run", "-p", "task"]);
    let pid = Pid::from_raw(i32::try_from(child.id()).expect("pid"));
    // Blocked on the FIFO, ralph would never start the agent: the guard ends the wait.
    let started = wait_for(|| !ws.agent_log().is_empty());
    kill(pid, signal).expect("signal ralph");
    let out = ralph_test_support::wait_output(child, HANG_GUARD);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(started, "the agent never started: {stderr}");
    assert_eq!(code(out.status), 130, "{stderr}");
    assert!(
        stderr.contains("warning: the scratchpad is left out of this prompt")
            && stderr.contains("FIFO"),
        "{stderr}"
    );
}

#[test]
fn a_fifo_at_the_inbox_is_an_error_not_a_hang() {
    let ws = Workspace::new(PI, &format!("{ONE_STEP}{COMPLETES}"));
    let (first, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(first, 2);
    let inbox = ws.run_files().dir().join("inbox.jsonl");
    std::fs::remove_file(&inbox).expect("rm inbox");
    fifo(&inbox);
    let (code, stderr) = run(&ws, &["run", "--continue", "--max-iterations", "3"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("inbox.jsonl"), "{stderr}");
    assert!(
        stderr.contains("FIFO (named pipe), not a regular file"),
        "{stderr}"
    );
}

#[test]
fn a_lock_file_linked_outside_is_refused_and_its_target_untouched() {
    let ws = Workspace::new(PI, COMPLETES);
    let outside = tempfile::tempdir().expect("tempdir");
    let target = outside.path().join("precious");
    std::fs::write(&target, "keep me").expect("write");
    std::fs::create_dir(ws.path().join(".ralph")).expect("mkdir");
    symlink(&target, ws.path().join(".ralph/loop.lock")).expect("symlink");
    let (code, stderr) = run(&ws, &["run", "-p", "task"]);
    assert_ne!(code, 0, "{stderr}");
    assert!(stderr.contains("loop.lock` is a symbolic link"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "keep me");
    assert!(ws.agent_log().is_empty());
}

#[test]
fn a_dangling_gitignore_link_creates_no_file_outside() {
    let ws = Workspace::new(PI, COMPLETES);
    let outside = tempfile::tempdir().expect("tempdir");
    let target = outside.path().join("created-by-ralph");
    std::fs::create_dir(ws.path().join(".ralph")).expect("mkdir");
    symlink(&target, ws.path().join(".ralph/.gitignore")).expect("symlink");
    let (code, events, stderr) = ws.run_json(&["-p", "task"]);
    assert_eq!(code, 0, "{stderr}");
    assert_eq!(finished(&events)["reason"], json!("completed"));
    assert!(!target.exists(), "ralph wrote through the link");
}

#[test]
fn a_history_linked_outside_is_not_appended_to() {
    let ws = Workspace::new(PI, &format!("{ONE_STEP}{COMPLETES}"));
    let (first, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(first, 2);
    let outside = tempfile::tempdir().expect("tempdir");
    let target = outside.path().join("log");
    std::fs::write(&target, "outside\n").expect("write");
    let history = ws.run_files().dir().join("history.jsonl");
    std::fs::remove_file(&history).expect("rm history");
    symlink(&target, &history).expect("symlink");
    let (code, stderr) = run(&ws, &["run", "--continue", "--max-iterations", "3"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(
        stderr.contains("history.jsonl` is a symbolic link"),
        "{stderr}"
    );
    assert_eq!(std::fs::read_to_string(&target).expect("read"), "outside\n");
}

#[test]
fn a_run_directory_linked_outside_is_refused_and_nothing_is_written_there() {
    let ws = Workspace::new(PI, &format!("{ONE_STEP}{COMPLETES}"));
    let (first, _, _) = ws.run_json(&["-p", "task", "--max-iterations", "1"]);
    assert_eq!(first, 2);
    let run_dir = ws.run_files().dir().to_path_buf();
    let outside = tempfile::tempdir().expect("tempdir");
    let moved = outside.path().join("run");
    std::fs::rename(&run_dir, &moved).expect("move the run out");
    symlink(&moved, &run_dir).expect("symlink");
    let before = listing(&moved);
    let (code, stderr) = run(&ws, &["run", "--continue", "--max-iterations", "3"]);
    assert_eq!(code, 1, "{stderr}");
    assert!(stderr.contains("is a symbolic link"), "{stderr}");
    assert_eq!(listing(&moved), before);
}

/// Every file's path (relative to `dir`) and content under `dir`, subdirectories
/// included.
fn listing(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut files = Vec::new();
    for e in std::fs::read_dir(dir).expect("read_dir") {
        let e = e.expect("entry");
        let name = e.file_name().to_string_lossy().into_owned();
        if e.file_type().expect("file type").is_dir() {
            files.extend(
                listing(&e.path())
                    .into_iter()
                    .map(|(inner, bytes)| (format!("{name}/{inner}"), bytes)),
            );
        } else {
            files.push((name, std::fs::read(e.path()).expect("read")));
        }
    }
    files.sort();
    files
}

/// Polls `done` until it holds or [`HANG_GUARD`] passes.
fn wait_for(done: impl Fn() -> bool) -> bool {
    let deadline = std::time::Instant::now() + HANG_GUARD;
    while std::time::Instant::now() < deadline {
        if done() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}
