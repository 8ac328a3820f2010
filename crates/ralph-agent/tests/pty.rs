//! PTY mode: the child gets a terminal, output arrives unchanged (CRLF included), and end
//! of file (EIO) is normal.

mod common;

use common::*;
use ralph_agent::supervise::{StdinSource, Termination};

#[tokio::test]
async fn pty_child_sees_a_terminal_and_its_output_arrives_unchanged() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let spec = agent("tty-check.sh", out.path()).pty(true);
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            String::from_utf8_lossy(&sink.stdout).into_owned()
        ),
        (
            Termination::Exited { code: 3 },
            "tty yes\r\nline1\r\nline2\r\n".to_owned()
        )
    );
}

#[tokio::test]
async fn pipes_are_not_terminals() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let outcome = supervise(agent("tty-check.sh", out.path()), short(), &mut sink).await;
    assert_eq!(
        (outcome.termination, sink.stdout.as_slice()),
        (
            Termination::Exited { code: 3 },
            b"tty no\nline1\nline2\n".as_slice()
        )
    );
}

#[tokio::test]
async fn pty_child_is_stopped_with_its_session() {
    let out = tempfile::tempdir().unwrap();
    let mut sink = Collect::default();
    let deadlines = ralph_agent::supervise::RunDeadlines {
        idle: Some(std::time::Duration::from_millis(400)),
        ..short()
    };
    let spec = agent("term-ignoring-grandchild.sh", out.path()).pty(true);
    let outcome = supervise(spec, deadlines, &mut sink).await;
    let grandchild = read_pid_file(&out.path().join("grandchild.pid")).await;
    assert_eq!(
        (outcome.termination.clone(), sink.stdout.as_slice()),
        (Termination::IdleTimeout, b"started\r\n".as_slice())
    );
    assert_pid_gone(grandchild);
    assert_group_gone(pid_of(&outcome));
}

#[tokio::test]
async fn pty_refuses_a_prompt_on_stdin() {
    let mut sink = Collect::default();
    let spec = ralph_agent::supervise::SpawnSpec::new("cat")
        .pty(true)
        .stdin(StdinSource::Bytes(b"prompt".to_vec()));
    let outcome = supervise(spec, short(), &mut sink).await;
    let Termination::FailedToStart { error } = outcome.termination else {
        panic!("expected FailedToStart");
    };
    assert_eq!(error.kind, std::io::ErrorKind::InvalidInput);
}
