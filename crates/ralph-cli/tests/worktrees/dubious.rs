//! A repository git refuses for its owner (`safe.directory`, common in containers and
//! CI where the checkout belongs to another user): git's own message, which names the
//! fix, is passed on, not taken for "no repository".

use super::common::{Workspace, code};
use super::{repo, stderr};

/// A fake agent's plan line that completes and changes nothing.
const DO_NOTHING: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE | | true\n";

/// `ralph <args>` as if the repository belonged to another user: git's test switch for
/// its ownership check, since tests cannot change a directory's owner.
fn as_stranger(ws: &Workspace, args: &[&str]) -> std::process::Output {
    ws.command(args)
        .env("GIT_TEST_ASSUME_DIFFERENT_OWNER", "1")
        .output()
        .expect("ralph")
}

#[test]
fn git_refusing_the_repository_is_said_with_its_fix() {
    let ws = repo(DO_NOTHING);
    let out = ws.run(&["run", "--worktree=pre", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));

    let out = as_stranger(&ws, &["run", "--worktree=new", "-q", "-p", "x"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(err.contains("safe.directory"), "{err}");
    assert!(!err.contains("not in a git repository"), "{err}");

    // The workspace's own runs are still listed, and the loops' absence is explained.
    let out = as_stranger(&ws, &["runs"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(stderr(&out).contains("safe.directory"), "{}", stderr(&out));

    let out = as_stranger(&ws, &["run", "-q", "-p", "x"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 0, "{err}");
    assert!(err.contains("safe.directory"), "{err}");
}
