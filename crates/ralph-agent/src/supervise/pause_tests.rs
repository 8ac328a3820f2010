use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

use super::*;
use crate::supervise::tree::MARKER_VAR;

/// How long a process's state is waited for: a signal is delivered in microseconds; the
/// rest is room for a loaded machine.
const SETTLE: Duration = Duration::from_secs(5);

/// A `sleep` in a process group of its own, killed when dropped.
struct Sleeper(Child);

impl Sleeper {
    fn start() -> Sleeper {
        let child =
            crate::supervise::own_children::spawn(Command::new("sleep").arg("60").process_group(0))
                .expect("start sleep");
        Sleeper(child)
    }

    fn pgid(&self) -> i32 {
        i32::try_from(self.0.id()).expect("pid fits")
    }

    /// Its tree as a run enrolls it.
    fn tree(&self) -> AgentTree {
        AgentTree::new(self.pgid(), self.pgid(), "test-run")
    }

    fn becomes(&self, stopped: bool) -> bool {
        becomes(self.pgid(), stopped)
    }
}

/// Waits until the state of `pid` (`/proc/PID/stat`) is `stopped` (`T`) or not; false
/// when it did not come.
fn becomes(pid: i32, stopped: bool) -> bool {
    let until = Instant::now() + SETTLE;
    while Instant::now() < until {
        if is_stopped(pid) == stopped {
            return true;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    false
}

fn is_stopped(pid: i32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).expect("read /proc/PID/stat");
    // The state follows the command name, which is in parentheses.
    let after_name = &stat[stat.rfind(')').expect("stat has a name") + 1..];
    after_name.split_whitespace().next() == Some("T")
}

impl Drop for Sleeper {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

#[test]
fn a_pause_stops_the_enrolled_groups_and_the_last_resume_continues_them() {
    let pauses = Pauses::new();
    let sleeper = Sleeper::start();
    let _enrolled = pauses.enroll(sleeper.tree());
    let t0 = Instant::now();
    assert_eq!(pauses.pause(t0), 1);
    assert!(sleeper.becomes(true), "not stopped by the pause");
    // A second pause (a read from the background during Ctrl-Z) and its resume.
    pauses.pause(t0);
    pauses.resume(t0 + Duration::from_secs(1));
    assert!(sleeper.becomes(true), "continued before the last resume");
    assert!(pauses.watch().borrow().paused);
    pauses.resume(t0 + Duration::from_secs(3));
    assert!(sleeper.becomes(false), "not continued by the last resume");
    assert_eq!(
        *pauses.watch().borrow(),
        PauseState {
            paused: false,
            total: Duration::from_secs(3)
        }
    );
}

#[test]
fn a_group_that_starts_during_a_pause_is_stopped_at_once_and_continued_with_the_rest() {
    let pauses = Pauses::new();
    pauses.pause(Instant::now());
    let sleeper = Sleeper::start();
    let enrolled = pauses.enroll(sleeper.tree());
    assert!(
        sleeper.becomes(true),
        "started during the pause and not stopped"
    );
    // A run that ends during the pause leaves nothing stopped behind.
    drop(enrolled);
    assert!(sleeper.becomes(false), "left stopped by a run that ended");
    pauses.resume(Instant::now());
}

#[test]
fn a_resume_without_a_pause_changes_nothing() {
    let pauses = Pauses::new();
    pauses.resume(Instant::now());
    assert_eq!(*pauses.watch().borrow(), PauseState::default());
}

/// An agent as pi and Claude Code are: a shell in a group of its own whose tool command
/// (a `sleep`) runs in a session of its own (`setsid`), the run's marker in both.
struct Agent {
    shell: Child,
    tool: i32,
    token: &'static str,
}

impl Agent {
    fn start(dir: &std::path::Path) -> Agent {
        let token = "pause-test-run";
        let pid_file = dir.join("tool.pid");
        // In the background of a shell without job control `setsid` is no group leader:
        // it makes its session without forking, so `$!` is the tool itself.
        let shell = crate::supervise::own_children::spawn(
            Command::new("sh")
                .arg("-c")
                .arg("setsid sleep 60 & echo $! > \"$0\"; wait")
                .arg(&pid_file)
                .env(MARKER_VAR, token)
                .process_group(0),
        )
        .expect("start sh");
        let until = Instant::now() + SETTLE;
        let tool = loop {
            if let Some(pid) = std::fs::read_to_string(&pid_file)
                .ok()
                .and_then(|t| t.trim().parse().ok())
            {
                break pid;
            }
            assert!(Instant::now() < until, "the tool never started");
            std::thread::sleep(Duration::from_millis(5));
        };
        // Once the tool has its own session, it has left the shell's group.
        while read_session(tool) != Some(tool) {
            assert!(Instant::now() < until, "the tool never left the group");
            std::thread::sleep(Duration::from_millis(5));
        }
        Agent { shell, tool, token }
    }

    fn pid(&self) -> i32 {
        i32::try_from(self.shell.id()).expect("pid fits")
    }

    fn tree(&self) -> AgentTree {
        AgentTree::new(self.pid(), self.pid(), self.token)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        let _ = nix::sys::signal::kill(nix::unistd::Pid::from_raw(self.tool), Signal::SIGKILL);
        let _ = self.shell.kill();
        let _ = self.shell.wait();
    }
}

/// The session of `pid` (field 6 of `/proc/PID/stat`).
fn read_session(pid: i32) -> Option<i32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat[stat.rfind(')')? + 1..]
        .split_whitespace()
        .nth(3)?
        .parse()
        .ok()
}

#[test]
fn a_pause_stops_a_tool_command_in_a_session_of_its_own_and_the_resume_continues_it() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = Agent::start(dir.path());
    let pauses = Pauses::new();
    let _enrolled = pauses.enroll(agent.tree());
    pauses.pause(Instant::now());
    assert!(becomes(agent.pid(), true), "the agent was not stopped");
    assert!(
        becomes(agent.tool, true),
        "its tool command was not stopped"
    );
    pauses.resume(Instant::now());
    assert!(becomes(agent.pid(), false), "the agent was not continued");
    assert!(
        becomes(agent.tool, false),
        "its tool command was not continued"
    );
}

#[test]
fn a_run_that_starts_or_ends_during_a_pause_leaves_no_tool_command_stopped() {
    let dir = tempfile::tempdir().expect("tempdir");
    let agent = Agent::start(dir.path());
    let pauses = Pauses::new();
    pauses.pause(Instant::now());
    let enrolled = pauses.enroll(agent.tree());
    assert!(
        becomes(agent.tool, true),
        "enrolled during a pause, not stopped"
    );
    drop(enrolled);
    assert!(becomes(agent.pid(), false), "the agent was left stopped");
    assert!(
        becomes(agent.tool, false),
        "its tool command was left stopped"
    );
    pauses.resume(Instant::now());
}

#[test]
fn the_time_paused_since_an_instant_counts_only_the_pauses_after_it() {
    let pauses = Pauses::new();
    let t0 = Instant::now();
    let at = |s: u64| t0 + Duration::from_secs(s);
    pauses.pause(at(0));
    pauses.resume(at(3));
    pauses.pause(at(10));
    pauses.resume(at(11));
    assert_eq!(pauses.paused_since(at(0)), Duration::from_secs(4));
    // A pause going on at the start counts from the start only.
    assert_eq!(pauses.paused_since(at(1)), Duration::from_secs(3));
    assert_eq!(pauses.paused_since(at(20)), Duration::ZERO);
}
