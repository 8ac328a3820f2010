//! Commands ralph runs for itself (gates, hooks): exit codes, stdin, output to a log
//! with bounded memory, timeouts and stops that leave nothing behind.

mod common;

use std::path::Path;
use std::time::Duration;

use common::*;
use ralph_agent::command::{CommandRequest, CommandResult, run_command};
use ralph_agent::supervise::Termination;
use ralph_agent::{StopController, StopLevel};
use ralph_types::Invocation;

fn shell(line: &str, cwd: &Path) -> CommandRequest {
    CommandRequest {
        invocation: Invocation::Shell(line.into()),
        cwd: cwd.to_path_buf(),
        env: Vec::new(),
        stdin: None,
        timeout: Duration::from_secs(30),
        keep_stdout: 0,
        own_session: false,
    }
}

async fn run(request: CommandRequest, log: &mut Vec<u8>) -> CommandResult {
    let (_stop, requests) = StopController::new();
    tokio::time::timeout(OUTER_TIMEOUT, run_command(request, Some(log), requests))
        .await
        .expect("the command run ended")
}

#[tokio::test]
async fn exit_codes_output_and_the_working_directory_are_reported() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("here.txt"), "x").unwrap();
    let mut log = Vec::new();
    let ok = run(
        shell("test -f here.txt && echo found", dir.path()),
        &mut log,
    )
    .await;
    assert!(ok.passed(), "{ok:?}");
    assert_eq!(log, b"found\n");

    let mut log = Vec::new();
    let failed = run(
        shell("echo out; echo err >&2; exit 3", dir.path()),
        &mut log,
    )
    .await;
    assert_eq!((failed.passed(), failed.exit_code()), (false, Some(3)));
    assert_eq!(failed.tail_text(10, 1000), "out\nerr");
    assert_eq!(failed.output_bytes, 8);
}

#[tokio::test]
async fn a_log_holds_stdout_and_stderr_in_the_order_they_were_written() {
    let dir = tempfile::tempdir().unwrap();
    let mut log = Vec::new();
    let result = run(
        shell(
            "i=0; while [ $i -lt 50 ]; do echo out$i; echo err$i >&2; i=$((i+1)); done",
            dir.path(),
        ),
        &mut log,
    )
    .await;
    assert!(result.passed(), "{result:?}");
    let expected: String = (0..50).map(|i| format!("out{i}\nerr{i}\n")).collect();
    assert_eq!(String::from_utf8(log).unwrap(), expected);
}

#[tokio::test]
async fn an_argv_command_gets_no_shell_and_its_stdin_is_delivered_and_closed() {
    let dir = tempfile::tempdir().unwrap();
    let mut request = CommandRequest {
        invocation: Invocation::Argv(vec!["cat".into()]),
        stdin: Some(b"{\"phase\":\"x\"}".to_vec()),
        keep_stdout: 5,
        ..shell("", dir.path())
    };
    let mut log = Vec::new();
    let result = run(request.clone(), &mut log).await;
    assert!(result.passed(), "{result:?}");
    assert_eq!(log, b"{\"phase\":\"x\"}");
    assert_eq!(
        (result.stdout.as_slice(), result.stdout_truncated),
        (b"{\"pha".as_slice(), true)
    );

    request.invocation = Invocation::Argv(vec!["echo".into(), "$HOME && x".into()]);
    let mut log = Vec::new();
    run(request, &mut log).await;
    assert_eq!(log, b"$HOME && x\n", "words reach the program as written");
}

#[tokio::test]
async fn a_missing_program_and_an_empty_command_fail_to_start() {
    let dir = tempfile::tempdir().unwrap();
    for invocation in [
        Invocation::Argv(vec!["ralph-no-such-program-xyz".into()]),
        Invocation::Argv(vec![]),
    ] {
        let request = CommandRequest {
            invocation,
            ..shell("", dir.path())
        };
        let result = run(request, &mut Vec::new()).await;
        assert!(
            matches!(result.termination, Termination::FailedToStart { .. }),
            "{result:?}"
        );
        assert_eq!(result.exit_code(), None);
    }
}

#[tokio::test]
async fn a_command_past_its_timeout_is_stopped_with_its_grandchildren() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let line = format!(
        "sh -c 'trap \"\" TERM; echo $$ > {}; exec sleep 300' & wait",
        pid_file.display()
    );
    let request = CommandRequest {
        timeout: Duration::from_millis(500),
        ..shell(&line, dir.path())
    };
    let result = run(request, &mut Vec::new()).await;
    let grandchild = read_pid_file(&pid_file).await;
    assert_eq!(result.termination, Termination::WallClockTimeout);
    assert_pid_gone(grandchild);
}

#[tokio::test]
async fn a_stop_request_ends_the_command_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let (stop, requests) = StopController::new();
    let started = std::time::Instant::now();
    let (result, ()) = tokio::join!(
        run_command(shell("sleep 300", dir.path()), None, requests),
        async {
            tokio::time::sleep(Duration::from_millis(300)).await;
            stop.request(StopLevel::Graceful);
        }
    );
    assert_eq!(result.termination, Termination::Interrupted);
    assert!(started.elapsed() < Duration::from_secs(20));
}

/// A writer that only counts, standing in for a log file.
#[derive(Default)]
struct Counter(u64);

impl std::io::Write for Counter {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        self.0 += buf.len() as u64;
        Ok(buf.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_flood_goes_to_the_log_and_only_a_bounded_tail_stays_in_memory() {
    let dir = tempfile::tempdir().unwrap();
    let (_stop, requests) = StopController::new();
    let mut counter = Counter::default();
    // 256 MiB: enough that holding it would show, small enough for a debug build.
    let request = shell(
        "head -c 268435456 /dev/zero | tr '\\0' 'x'; echo; echo last",
        dir.path(),
    );
    let result = tokio::time::timeout(
        OUTER_TIMEOUT,
        run_command(request, Some(&mut counter), requests),
    )
    .await
    .unwrap();
    assert!(result.passed(), "{result:?}");
    assert_eq!(counter.0, 268_435_456 + 1 + 5);
    assert_eq!(result.output_bytes, counter.0);
    assert!(result.stdout.is_empty());
    assert!(result.tail_text(1, 100).ends_with("last"));
}

/// A log that fails like a full disk.
struct FullDisk;

impl std::io::Write for FullDisk {
    fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
        Err(std::io::Error::from_raw_os_error(libc::ENOSPC))
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

#[tokio::test]
async fn a_log_that_cannot_be_written_is_reported_and_the_command_still_runs() {
    let dir = tempfile::tempdir().unwrap();
    let (_stop, requests) = StopController::new();
    let result = run_command(
        shell("echo one; exit 4", dir.path()),
        Some(&mut FullDisk),
        requests,
    )
    .await;
    assert_eq!(result.exit_code(), Some(4));
    assert!(result.log_error.is_some(), "{result:?}");
    assert_eq!(result.tail_text(5, 100), "one");
}

#[tokio::test]
async fn a_command_in_its_own_session_has_no_terminal_and_is_still_stopped_whole() {
    let dir = tempfile::tempdir().unwrap();
    let pid_file = dir.path().join("grandchild.pid");
    let line = format!(
        "if (: < /dev/tty) 2> /dev/null; then echo has-tty; else echo no-tty; fi; \
         sh -c 'trap \"\" TERM; echo $$ > {}; exec sleep 300' & wait",
        pid_file.display()
    );
    let request = CommandRequest {
        timeout: Duration::from_millis(500),
        own_session: true,
        ..shell(&line, dir.path())
    };
    let mut log = Vec::new();
    let result = run(request, &mut log).await;
    let grandchild = read_pid_file(&pid_file).await;
    assert_eq!(result.termination, Termination::WallClockTimeout);
    assert_pid_gone(grandchild);
    assert!(String::from_utf8_lossy(&log).contains("no-tty"), "{log:?}");
}

#[tokio::test]
async fn the_time_a_command_was_paused_is_not_its_duration() {
    const PAUSED: Duration = Duration::from_secs(1);
    let dir = tempfile::tempdir().unwrap();
    let (stop, requests) = StopController::new();
    let mut log = Vec::new();
    // Ctrl-Z while the command sleeps, `fg` a second later: `sleep` counts the time it
    // was stopped, so it ends right after; the command ran far less than `PAUSED`.
    let pauser = tokio::spawn(async move {
        tokio::time::sleep(Duration::from_millis(100)).await;
        stop.pause(std::time::Instant::now());
        tokio::time::sleep(PAUSED).await;
        stop.resume(std::time::Instant::now());
    });
    let result = tokio::time::timeout(
        OUTER_TIMEOUT,
        run_command(shell("sleep 0.5", dir.path()), Some(&mut log), requests),
    )
    .await
    .expect("the command run ended");
    pauser.await.unwrap();
    assert!(result.passed(), "{result:?}");
    assert!(result.duration < PAUSED, "{result:?}");
}
