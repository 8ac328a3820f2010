//! Prompts reach pi and Claude byte-exact on stdin, whatever their size or first
//! character, and stdin never deadlocks or stays open.

mod common;

use std::ffi::OsString;
use std::path::Path;

use common::*;
use ralph_agent::supervise::{StdinSource, Termination};
use ralph_agent::{BackendKind, BackendProfile, CommandBuilder};

fn prompts() -> Vec<(&'static str, String)> {
    let mut big = String::with_capacity(2 << 20);
    while big.len() < 2 << 20 {
        big.push_str("Implement the next task → résumé 世界 🎉\n");
    }
    vec![
        ("two megabytes", big),
        (
            "leading dash",
            "-rf / is not an option, it is the task".to_owned(),
        ),
        (
            "leading at",
            "@README.md is text, not a file to attach".to_owned(),
        ),
        (
            "leading slash",
            "/skill:review is text, not a command".to_owned(),
        ),
    ]
}

fn recorded_argv(out: &Path) -> Vec<OsString> {
    use std::os::unix::ffi::OsStringExt;
    let raw = std::fs::read(out.join("argv")).unwrap();
    raw.split(|b| *b == 0)
        .filter(|a| !a.is_empty())
        .map(|a| OsString::from_vec(a.to_vec()))
        .collect()
}

async fn deliver(kind: BackendKind, expected_args: &[&str]) {
    let fake = fake("record.sh");
    let fake = fake.to_str().unwrap();
    for (name, prompt) in prompts() {
        let out = tempfile::tempdir().unwrap();
        let line = CommandBuilder::new(kind)
            .command_override(Some(fake))
            .headless(&prompt)
            .unwrap();
        let spec = line.into_spawn_spec(vec![("FAKE_OUT".into(), out.path().into())], None);
        let mut sink = Collect::default();
        let outcome = supervise(spec, short(), &mut sink).await;
        let expected: Vec<OsString> = expected_args.iter().map(OsString::from).collect();
        assert_eq!(
            (
                outcome.termination,
                outcome.stdin_complete,
                recorded_argv(out.path())
            ),
            (Termination::Exited { code: 0 }, true, expected),
            "{kind}, {name}"
        );
        let stdin = std::fs::read(out.path().join("stdin")).unwrap();
        assert!(stdin == prompt.as_bytes(), "{kind}, {name}: stdin differs");
    }
}

#[tokio::test]
async fn pi_gets_every_prompt_byte_exact_on_stdin() {
    deliver(BackendKind::Pi, &["-p", "--mode", "json", "--no-session"]).await;
}

#[tokio::test]
async fn claude_gets_every_prompt_byte_exact_on_stdin() {
    // The arguments are the profile's (their spelling is command_tests' concern): what
    // matters here is the prompt on stdin after them.
    let args = BackendProfile::of(BackendKind::Claude).headless_args;
    deliver(BackendKind::Claude, args).await;
}

#[tokio::test]
async fn prompt_write_does_not_deadlock_against_an_agent_that_prints_before_reading() {
    let out = tempfile::tempdir().unwrap();
    let prompt = vec![b'p'; 2 << 20];
    let spec = agent("write-before-read.sh", out.path())
        .args(["4000000"])
        .stdin(StdinSource::Bytes(prompt.clone()));
    let mut sink = CountZeros::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (outcome.termination, outcome.stdin_complete, sink.bytes),
        (Termination::Exited { code: 0 }, true, 4_000_000)
    );
    assert!(std::fs::read(out.path().join("stdin")).unwrap() == prompt);
}

#[tokio::test]
async fn agent_that_exits_without_reading_its_prompt_is_not_an_error() {
    let out = tempfile::tempdir().unwrap();
    let spec = agent("exit-code.sh", out.path())
        .args(["0"])
        .stdin(StdinSource::Bytes(vec![b'x'; 2 << 20]));
    let mut sink = Collect::default();
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            outcome.stdin_complete,
            sink.stdout.as_slice()
        ),
        (Termination::Exited { code: 0 }, false, b"out\n".as_slice())
    );
}

#[tokio::test]
async fn null_stdin_is_at_end_of_file() {
    let mut sink = Collect::default();
    // `cat` would hang on an open pipe; on /dev/null it exits at once.
    let spec = ralph_agent::supervise::SpawnSpec::new("cat");
    let outcome = supervise(spec, short(), &mut sink).await;
    assert_eq!(
        (
            outcome.termination,
            outcome.stdin_complete,
            outcome.stdout_bytes
        ),
        (Termination::Exited { code: 0 }, true, 0)
    );
}
