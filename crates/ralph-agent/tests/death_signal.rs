//! If ralph itself is SIGKILLed mid-run, the agent dies with it (`PR_SET_PDEATHSIG`).

mod common;

use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use common::*;
use ralph_agent::supervise::{SpawnSpec, StopRequests, run};

const HELPER_ENV: &str = "RALPH_AGENT_TEST_PDEATHSIG_DIR";

#[test]
fn agent_dies_when_ralph_is_killed() {
    if let Some(dir) = std::env::var_os(HELPER_ENV) {
        // Helper mode: play ralph, supervising an agent that records its pid and hangs.
        let rt = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let spec = SpawnSpec::new("sh")
            .args(["-c", "echo $$ > \"$0/agent.pid\"; exec sleep 1000"])
            .args([dir]);
        rt.block_on(run(
            spec,
            short(),
            &mut Collect::default(),
            StopRequests::never(),
        ));
        return;
    }
    let out = tempfile::tempdir().unwrap();
    let mut helper = Command::new(std::env::current_exe().unwrap())
        .args(["--exact", "agent_dies_when_ralph_is_killed", "--nocapture"])
        .env(HELPER_ENV, out.path())
        .stdout(Stdio::null())
        .spawn()
        .unwrap();
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let agent = rt.block_on(read_pid_file(&out.path().join("agent.pid")));
    helper.kill().unwrap();
    helper.wait().unwrap();
    let until = Instant::now() + OUTER_TIMEOUT;
    while !not_running(agent) {
        assert!(Instant::now() < until, "agent {agent} outlived ralph");
        std::thread::sleep(Duration::from_millis(10));
    }
}
