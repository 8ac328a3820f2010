//! No process the agent started survives any stop, whatever it did to escape.

mod common;

use std::time::{Duration, Instant};

use common::*;
use ralph_agent::supervise::{
    ChildStatus, Flow, ORPHAN_REAP_INTERVAL, OutputSink, RunDeadlines, SpawnSpec, StopRequests,
    Termination, run,
};

const MS: Duration = Duration::from_millis(1);

fn idle_stop() -> RunDeadlines {
    RunDeadlines {
        idle: Some(400 * MS),
        ..short()
    }
}

#[tokio::test]
async fn grandchild_that_ignores_sigterm_is_killed_with_the_agent() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let outcome = supervise(
        agent("term-ignoring-grandchild.sh", out.path()),
        idle_stop(),
        &mut sink,
    )
    .await;
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    assert_eq!(
        (outcome.termination.clone(), sink.stdout.as_slice()),
        (Termination::IdleTimeout, b"started\n".as_slice())
    );
    assert!(outcome.leftovers_signalled >= 1, "{outcome:?}");
    assert_pid_gone(grandchild);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn sigterm_ignoring_leftover_of_an_agent_that_exited_is_killed_and_its_exit_code_kept() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let spec = agent("term-ignoring-grandchild.sh", out.path()).args(["4"]);
    let outcome = supervise(spec, short(), &mut sink).await;
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    assert_eq!(
        (outcome.termination.clone(), outcome.child_status),
        (Termination::Exited { code: 4 }, Some(ChildStatus::Code(4)))
    );
    assert_pid_gone(grandchild);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn setsid_grandchild_is_killed_when_the_agent_is_stopped() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let outcome = supervise(
        agent("setsid-grandchild.sh", out.path()),
        idle_stop(),
        &mut sink,
    )
    .await;
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    assert_eq!(outcome.termination, Termination::IdleTimeout);
    assert!(outcome.leftovers_signalled >= 1, "{outcome:?}");
    assert_pid_gone(grandchild);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn setsid_grandchild_orphaned_by_an_agent_that_exited_is_found_and_killed() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let spec = agent("setsid-grandchild.sh", out.path()).args(["0"]);
    let outcome = supervise(spec, short(), &mut sink).await;
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    assert_eq!(
        (outcome.termination.clone(), sink.stdout.as_slice()),
        (Termination::Exited { code: 0 }, b"started\n".as_slice())
    );
    assert!(outcome.leftovers_signalled >= 1, "{outcome:?}");
    assert_pid_gone(grandchild);
}

/// An agent that exits at once, leaving jobs that ignore SIGTERM and keep starting
/// children (each in a session of its own, or in a subshell, also ignoring SIGTERM).
/// Several of them, so that one is surely starting a child as the SIGKILL goes out.
const SPAWNERS: &str = r#"for job in 1 2 3 4 5 6; do
    (trap "" TERM INT HUP; while :; do
        setsid sh -c 'trap "" TERM HUP; sleep 60' </dev/null >/dev/null 2>&1 &
        (trap "" TERM; sleep 60) &
        sleep 0.01
    done) </dev/null >/dev/null 2>&1 &
done
echo started"#;

#[tokio::test]
async fn a_job_that_keeps_starting_detached_children_leaves_none_of_them_running() {
    let mut sink = Collect::default();
    let spec = SpawnSpec::new("sh").args(["-c", SPAWNERS]);
    let outcome = supervise(spec, short(), &mut sink).await;
    let token = outcome
        .agent_run
        .clone()
        .expect("a supervised run has a token");
    let left = marked_alive(&token);
    kill_all(&left);
    assert_eq!(
        (outcome.termination, left),
        (Termination::Exited { code: 0 }, Vec::new())
    );
}

#[tokio::test]
async fn an_orphan_that_cleared_its_environment_is_found_and_killed() {
    let out = tempfile::tempdir().unwrap();
    // No marker left: the daemon is known only as a child of ralph it did not start.
    let script = r#"env -i FAKE_OUT="$FAKE_OUT" setsid sh -c 'sleep 60 </dev/null >/dev/null 2>&1 &
            echo $! > "$FAKE_OUT/o.tmp"; mv "$FAKE_OUT/o.tmp" "$FAKE_OUT/o.pid"'
        while [ ! -s "$FAKE_OUT/o.pid" ]; do sleep 0.01; done; echo started"#;
    let spec = SpawnSpec::new("sh")
        .args(["-c", script])
        .env("FAKE_OUT", out.path());
    let mut sink = Collect::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    let orphan = read_pid_file(&out.path().join("o.pid")).await;
    let left = !not_running(orphan);
    kill_all(&[orphan]);
    // Not how many this run signalled: an unmarked orphan goes to whichever supervised
    // run looks first, and the other tests of this binary supervise at the same time.
    // Without the adoption no run takes it, and it is left.
    assert_eq!(
        (outcome.termination, left),
        (Termination::Exited { code: 0 }, false)
    );
}

/// How many detached jobs the agent of the zombie tests starts.
const SHORT_JOBS: usize = 20;

/// An agent that starts [`SHORT_JOBS`] jobs, each orphaned to ralph at once (its
/// subshell exits) and exiting soon after (a zombie only ralph can reap), waits until
/// all of them wrote their pid to `out/pids`, then runs `then`.
fn short_jobs_then(out: &std::path::Path, then: &str) -> SpawnSpec {
    let script = format!(
        r#"i=0; while [ $i -lt {SHORT_JOBS} ]; do
            (setsid sh -c 'echo $$ >> "$FAKE_OUT/pids"; exec true' </dev/null >/dev/null 2>&1 &)
            i=$((i+1))
        done
        while [ "$(wc -l < "$FAKE_OUT/pids")" -lt {SHORT_JOBS} ]; do sleep 0.01; done
        {then}"#
    );
    std::fs::write(out.join("pids"), "").unwrap();
    SpawnSpec::new("sh")
        .args(["-c", &script])
        .env("FAKE_OUT", out)
}

#[tokio::test]
async fn orphans_that_exited_before_the_teardown_are_reaped() {
    let out = tempfile::tempdir().unwrap();
    // Each job is orphaned to ralph at once (its subshell exits) and exits soon after,
    // before anything looks at it: a zombie that only ralph can reap.
    let spec = short_jobs_then(out.path(), "sleep 0.3; echo done");
    let outcome = supervise(spec, short(), &mut Collect::default()).await;
    let pids: Vec<i32> = std::fs::read_to_string(out.path().join("pids"))
        .unwrap()
        .lines()
        .map(|l| l.parse().unwrap())
        .collect();
    let zombies: Vec<i32> = pids.iter().copied().filter(|&p| exists(p)).collect();
    assert_eq!(
        (outcome.termination, pids.len(), zombies),
        (Termination::Exited { code: 0 }, SHORT_JOBS, Vec::new())
    );
}

#[tokio::test]
async fn orphans_that_exit_while_the_agent_runs_are_reaped_before_it_ends() {
    let out = tempfile::tempdir().unwrap();
    // The agent itself watches its short jobs go: each is a zombie of ralph's until ralph
    // reaps it. It waits a few reaping rounds at most.
    let rounds = 5 * ORPHAN_REAP_INTERVAL.as_millis() / 10;
    let then = format!(
        r#"round=0
        while [ $round -lt {rounds} ]; do
            left=0
            for pid in $(cat "$FAKE_OUT/pids"); do kill -0 $pid 2>/dev/null && left=1; done
            if [ $left = 0 ]; then echo reaped; exit 0; fi
            sleep 0.01; round=$((round+1))
        done
        echo zombies left"#
    );
    let spec = short_jobs_then(out.path(), &then);
    let mut sink = Collect::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (outcome.termination, String::from_utf8_lossy(&sink.stdout)),
        (Termination::Exited { code: 0 }, "reaped\n".into())
    );
}

#[tokio::test]
async fn dropping_the_run_kills_the_agent_and_its_grandchildren() {
    let out = tempfile::tempdir().unwrap();
    let spec = agent("setsid-grandchild.sh", out.path());
    let task = tokio::spawn(async move {
        let mut sink = Collect::default();
        run(spec, short(), &mut sink, StopRequests::never()).await
    });
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    task.abort();
    assert!(task.await.is_err_and(|e| e.is_cancelled()));
    // SIGKILL was sent synchronously by the drop guard; the kernel finishes the job.
    let until = Instant::now() + OUTER_TIMEOUT;
    while !not_running(grandchild) {
        assert!(
            Instant::now() < until,
            "grandchild {grandchild} survived the drop"
        );
        tokio::time::sleep(10 * MS).await;
    }
}

/// Panics on the first output, like a bug in the parser would.
struct PanickingSink;

impl OutputSink for PanickingSink {
    fn on_stdout(&mut self, _bytes: &[u8]) -> Flow {
        panic!("parser bug");
    }
}

#[tokio::test]
async fn panic_during_the_run_kills_the_agent_and_its_grandchildren() {
    let out = tempfile::tempdir().unwrap();
    let spec = agent("setsid-grandchild.sh", out.path());
    let task =
        tokio::spawn(
            async move { run(spec, short(), &mut PanickingSink, StopRequests::never()).await },
        );
    assert!(task.await.is_err_and(|e| e.is_panic()));
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    let until = Instant::now() + OUTER_TIMEOUT;
    while !not_running(grandchild) {
        assert!(
            Instant::now() < until,
            "grandchild {grandchild} survived the panic"
        );
        tokio::time::sleep(10 * MS).await;
    }
}

#[tokio::test]
async fn output_written_before_a_stop_reaches_the_sink() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let outcome = supervise(
        agent("term-says-bye.sh", out.path()),
        idle_stop(),
        &mut sink,
    )
    .await;
    assert_eq!(
        (
            outcome.termination,
            outcome.child_status,
            String::from_utf8_lossy(&sink.stdout).into_owned()
        ),
        (
            Termination::IdleTimeout,
            Some(ChildStatus::Code(0)),
            "working\nbye after term\n".to_owned()
        )
    );
}

/// Counts bytes and asks for a stop after a threshold, like a cost limit would.
struct StopAfter {
    limit: u64,
    bytes: u64,
    pattern_ok: bool,
}

impl OutputSink for StopAfter {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let pattern = b"0123456789abcdef";
        for (i, b) in bytes.iter().enumerate() {
            if *b != pattern[((self.bytes + i as u64) % 16) as usize] {
                self.pattern_ok = false;
            }
        }
        self.bytes += bytes.len() as u64;
        if self.bytes >= self.limit {
            Flow::Stop
        } else {
            Flow::Continue
        }
    }
}

#[tokio::test]
async fn every_byte_written_before_a_kill_reaches_the_sink_in_order() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = StopAfter {
        limit: 8 << 20,
        bytes: 0,
        pattern_ok: true,
    };
    let outcome = supervise(agent("counted-writer.py", out.path()), short(), &mut sink).await;
    let written: u64 = std::fs::read_to_string(out.path().join("written"))
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(outcome.termination, Termination::StoppedByCaller);
    assert!(sink.pattern_ok, "bytes arrived out of order or corrupted");
    assert_eq!(sink.bytes, outcome.stdout_bytes);
    // The writer records a chunk only after it is fully written, and may die mid-chunk.
    assert!(
        sink.bytes >= written && sink.bytes < written + 2 * 65536,
        "sink saw {} bytes, writer had written at least {written}",
        sink.bytes
    );
    assert_group_gone(pid_of(&outcome));
}
