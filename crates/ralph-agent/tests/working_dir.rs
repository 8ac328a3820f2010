//! The agent runs in the spec's directory, and `$PWD` says so: some agents (OpenCode) take
//! their working directory from `$PWD`, which ralph's own process may have inherited from
//! elsewhere. A directory that is gone fails the start naming the directory, not the
//! program.

mod common;

use common::{Collect, short, supervise};
use ralph_agent::supervise::{SpawnSpec, Termination};

#[tokio::test]
async fn the_agent_sees_its_working_directory_in_pwd() {
    let dir = tempfile::tempdir().unwrap();
    // `printenv`, not a shell: a shell would repair a wrong `$PWD` itself. The test
    // process's own `$PWD` is never this fresh directory.
    let spec = SpawnSpec::new("printenv").args(["PWD"]).cwd(dir.path());
    let mut sink = Collect::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(outcome.termination, Termination::Exited { code: 0 });
    assert_eq!(
        String::from_utf8(sink.stdout).unwrap(),
        format!("{}\n", dir.path().display())
    );
}

#[tokio::test]
async fn a_pwd_the_caller_sets_wins() {
    let dir = tempfile::tempdir().unwrap();
    let spec = SpawnSpec::new("printenv")
        .args(["PWD"])
        .cwd(dir.path())
        .env("PWD", "/caller/says");
    let mut sink = Collect::default();
    supervise(spec, short(), &mut sink).await;
    assert_eq!(String::from_utf8(sink.stdout).unwrap(), "/caller/says\n");
}

#[tokio::test]
async fn a_working_directory_that_is_gone_is_named_not_the_program() {
    let dir = tempfile::tempdir().unwrap();
    let gone = dir.path().join("removed");
    let spec = SpawnSpec::new("printenv").cwd(&gone);
    let mut sink = Collect::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    let Termination::FailedToStart { error } = &outcome.termination else {
        panic!("expected FailedToStart, got {:?}", outcome.termination);
    };
    let message = error.to_string();
    assert!(
        message.contains(&format!("`{}` does not exist", gone.display())),
        "{message}"
    );
    assert!(!message.contains("PATH"), "{message}");
}
