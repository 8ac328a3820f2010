//! The agent's stdout pipe is raised to 1 MiB: the default 64 KiB pipe caps throughput
//! below what the parser can take.

mod common;

use common::agent;
use common::short;
use ralph_agent::supervise::DiscardOutput;
use ralph_agent::supervise::STDOUT_PIPE_BYTES;
use ralph_agent::supervise::StopRequests;
use ralph_agent::supervise::Termination;
use ralph_agent::supervise::run;

#[tokio::test]
async fn the_agent_writes_into_a_1_mib_pipe() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("pipe-size");
    let outcome = run(
        agent("pipe-size.py", &out),
        short(),
        &mut DiscardOutput,
        StopRequests::never(),
    )
    .await;
    assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    let size: usize = std::fs::read_to_string(&out).unwrap().parse().unwrap();
    assert_eq!(size, STDOUT_PIPE_BYTES);
}
