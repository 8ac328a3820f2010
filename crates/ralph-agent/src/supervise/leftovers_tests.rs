use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};

use super::*;
use crate::supervise::left_in::{Deleting, FoundThere};
use crate::supervise::tree::{MARKER_VAR, ProcStat, ancestors_of, read_stat};

/// A short grace: the test processes are `sleep`s, which die of SIGTERM at once.
const GRACE: Duration = Duration::from_millis(500);

/// A dead ralph as the record names it: a pid no process has (pid_max is below it) and a
/// start time of 0, so every process of this boot started after it. Each test has its
/// own (`n`), since the tests run at once and each stops whatever carries its marker.
const fn dead(n: i32) -> ProcessIdentity {
    ProcessIdentity {
        pid: i32::MAX - n,
        start_ticks: 0,
    }
}

/// Processes a test started, SIGKILLed when it ends, passed or not.
struct Started(Vec<i32>);

impl Drop for Started {
    fn drop(&mut self) {
        for &pid in &self.0 {
            let _ = nix::sys::signal::kill(
                nix::unistd::Pid::from_raw(pid),
                nix::sys::signal::Signal::SIGKILL,
            );
        }
    }
}

/// Runs `script` under `sh` in a new process group with `marker` (if any) as its
/// `RALPH_AGENT_RUN`; the script prints the pids the test tracks, one a line, then
/// `ready`. The shell itself is tracked too (first).
fn start(script: &str, marker: Option<&str>) -> Started {
    start_in(script, marker, None)
}

/// [`start`] in the directory `dir` (else the test's own).
fn start_in(script: &str, marker: Option<&str>, dir: Option<&std::path::Path>) -> Started {
    let mut cmd = Command::new("sh");
    if let Some(dir) = dir {
        cmd.current_dir(dir);
    }
    cmd.args(["-c", script])
        .process_group(0)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .env_remove(MARKER_VAR);
    if let Some(marker) = marker {
        cmd.env(MARKER_VAR, marker);
    }
    let mut child = crate::supervise::own_children::spawn(&mut cmd).expect("spawn sh");
    let mut pids = vec![i32::try_from(child.id()).expect("pid")];
    let stdout = child.stdout.take().expect("stdout");
    for line in BufReader::new(stdout).lines() {
        let line = line.expect("read");
        if line == "ready" {
            break;
        }
        pids.push(line.parse().expect("a pid"));
    }
    // The child is reaped by whoever its parent is; the guard only needs its pid.
    std::mem::forget(child);
    Started(pids)
}

fn alive(pid: i32) -> bool {
    !is_gone(pid)
}

fn owner_marker(owner: ProcessIdentity) -> String {
    format!("{}-7", agent_run_owner(owner))
}

fn stop(owner: ProcessIdentity, agent: Option<ProcessIdentity>) -> StoppedLeftovers {
    runtime().block_on(stop_leftovers(owner, agent, GRACE, None))
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .expect("runtime")
}

/// [`stop`], with `dir` about to be deleted: also what it was told of first, and whether
/// each process it named was still alive when it was told.
fn stop_deleting(
    owner: ProcessIdentity,
    agent: Option<ProcessIdentity>,
    dir: &std::path::Path,
) -> (StoppedLeftovers, Vec<(FoundThere, bool)>) {
    let mut told = Vec::new();
    let mut tell = |found: &FoundThere| {
        let all_alive = found.processes.iter().all(|&(pid, _)| alive(pid));
        told.push((found.clone(), all_alive));
    };
    let deleting = Deleting {
        dir,
        tell: &mut tell,
    };
    let found = runtime().block_on(stop_leftovers(owner, agent, GRACE, Some(deleting)));
    (found, told)
}

#[test]
fn a_process_with_the_dead_ralphs_marker_is_stopped() {
    const DEAD: ProcessIdentity = dead(0);
    let started = start(
        "sleep 60 & echo $!; echo ready; exec sleep 60",
        Some(&owner_marker(DEAD)),
    );
    assert!(started.0.iter().all(|&p| alive(p)));
    let found = stop(DEAD, None);
    assert!(started.0.iter().all(|&p| !alive(p)), "{found:?}");
    assert_eq!(
        found,
        StoppedLeftovers {
            stopped: 2,
            survivors: 0
        }
    );
}

#[test]
fn a_marked_process_older_than_the_dead_ralph_is_left_alone() {
    const DEAD: ProcessIdentity = dead(2);
    // The record names a ralph that started after this process (far in this boot's
    // future): whatever carries its marker now is not its, whatever the marker says.
    let owner = ProcessIdentity {
        pid: DEAD.pid,
        start_ticks: u64::MAX / 2,
    };
    let started = start("echo ready; exec sleep 60", Some(&owner_marker(owner)));
    assert_eq!(stop(owner, None), StoppedLeftovers::default());
    assert!(alive(started.0[0]));
}

#[test]
fn a_marked_process_of_another_ralph_is_left_alone() {
    const DEAD: ProcessIdentity = dead(4);
    let other = dead(5);
    let started = start("echo ready; exec sleep 60", Some(&owner_marker(other)));
    assert_eq!(stop(DEAD, None), StoppedLeftovers::default());
    assert!(alive(started.0[0]));
}

#[test]
fn a_recorded_group_whose_leader_started_at_another_time_is_left_alone() {
    const DEAD: ProcessIdentity = dead(6);
    // An unmarked group: only the recorded agent's identity could prove it ours.
    let started = start("sleep 60 & echo $!; echo ready; exec sleep 60", None);
    let leader = read_stat(started.0[0]).expect("stat");
    let reused = ProcessIdentity {
        pid: leader.pid,
        start_ticks: leader.start_ticks + 1,
    };
    assert_eq!(stop(DEAD, Some(reused)), StoppedLeftovers::default());
    assert!(started.0.iter().all(|&p| alive(p)));
    // The same group with the leader's true start time is the agent's: all of it stops.
    let agent = ProcessIdentity {
        pid: leader.pid,
        start_ticks: leader.start_ticks,
    };
    let found = stop(DEAD, Some(agent));
    assert_eq!(found.stopped, 2, "{found:?}");
    assert!(started.0.iter().all(|&p| !alive(p)));
}

#[test]
fn a_marked_member_proves_the_group_and_its_unmarked_members_stop_too() {
    const DEAD: ProcessIdentity = dead(8);
    // The agent (the group's leader) died; a marked job and an unmarked one remain.
    let started = start(
        &format!(
            "env -u {MARKER_VAR} sleep 60 & echo $!; sleep 60 & echo $!; echo ready; exec sleep 60"
        ),
        Some(&owner_marker(DEAD)),
    );
    let leader = read_stat(started.0[0]).expect("stat");
    // The leader's recorded start time is wrong (as if it were a reused pid): the proof
    // is the marked member.
    let recorded = ProcessIdentity {
        pid: leader.pid,
        start_ticks: leader.start_ticks + 1,
    };
    let found = stop(DEAD, Some(recorded));
    assert!(started.0.iter().all(|&p| !alive(p)), "{found:?}");
    assert_eq!(found.stopped, 3);
}

#[test]
fn own_identity_names_this_process() {
    let me = own_identity().expect("identity");
    assert_eq!(me.pid, nix::unistd::getpid().as_raw());
    assert_eq!(identity_of(me.pid), Some(me));
    assert!(boot_id().is_some_and(|id| !id.is_empty()));
}

#[test]
fn ancestors_reach_from_a_process_up_to_init() {
    let started = start("sleep 60 & echo $!; echo ready; wait", None);
    let (shell, sleep) = (started.0[0], started.0[1]);
    let stats: Vec<ProcStat> = [shell, std::process::id() as i32]
        .into_iter()
        .filter_map(read_stat)
        .collect();
    let ancestors = ancestors_of(sleep, &stats);
    assert!(ancestors.contains(&shell), "{ancestors:?}");
    assert!(
        ancestors.contains(&(std::process::id() as i32)),
        "{ancestors:?}"
    );
    assert!(!ancestors.contains(&sleep) && !ancestors.contains(&1));
}

/// A process that cleared its environment and left the group carries nothing of the
/// dead ralph: before the directory it works in is deleted, it is stopped all the same;
/// the same process working elsewhere is not.
#[test]
fn what_works_in_a_directory_being_deleted_is_stopped_though_unmarked() {
    const DEAD: ProcessIdentity = dead(10);
    let (deleted, kept) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    // The detached `sleep` prints its pid (then `ready`) before it becomes the sleep.
    let script = "env -i setsid sh -c 'echo $$; echo ready; exec sleep 60' </dev/null &\n\
                  exec sleep 60";
    let inside = start_in(script, None, Some(deleted.path()));
    let outside = start_in(script, None, Some(kept.path()));
    let (envless, elsewhere) = (inside.0[1], outside.0[1]);
    // One that carries the dead ralph's marker, working there too: found by its marker.
    let marked = start_in(
        "echo ready; exec sleep 60",
        Some(&owner_marker(DEAD)),
        Some(deleted.path()),
    );
    let marked = marked.0[0];
    assert!(alive(envless) && alive(elsewhere) && alive(marked));
    let (found, told) = stop_deleting(DEAD, None, deleted.path());
    assert!(!alive(envless), "{found:?}");
    assert!(found.stopped >= 1, "{found:?}");
    // Nothing but the directory led to it: it was named, while it still ran.
    let [(there, all_alive)] = &told[..] else {
        panic!("told {told:?}");
    };
    assert!(*all_alive, "named after it was stopped: {there:?}");
    assert_eq!(there.dir, deleted.path().canonicalize().unwrap());
    assert!(
        there.processes.contains(&(envless, "sleep".to_owned())),
        "{there:?}"
    );
    let said = there.to_string();
    assert!(said.contains(&format!("pid {envless} (sleep)")), "{said}");
    assert!(!said.contains(&format!("pid {elsewhere}")), "{said}");
    assert!(!alive(marked), "{found:?}");
    assert!(!said.contains(&format!("pid {marked}")), "{said}");
    assert!(alive(elsewhere), "a process working elsewhere was stopped");
    // Without the directory, nothing leads to it.
    let found = stop(DEAD, None);
    assert!(alive(elsewhere), "{found:?}");
}
