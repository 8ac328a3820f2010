//! What the worktree commands say on stdout is said once their work is done: a reader
//! that went away loses the line, never the command its exit code.

use super::common::code;
use super::{repo_with, stderr, tree};

/// A `custom` agent that completes the loop at once.
const DONE: &str = "cli:\n  backend: custom\n  command: sh\n  \
    args: [\"-c\", \"cat >/dev/null; echo LOOP_COMPLETE\"]\n";

#[test]
fn removing_a_loop_with_nobody_reading_stdout_exits_0_not_a_panic() {
    let ws = repo_with(DONE, "");
    let out = ws.run(&["run", "--worktree=gone", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    // `ralph runs rm gone --force | true`: the line saying it is done finds no reader.
    let (read, write) = nix::unistd::pipe().expect("a pipe");
    drop(read);
    let out = ws
        .command(&["runs", "rm", "gone", "--force"])
        .stdout(std::process::Stdio::from(write))
        .output()
        .expect("ralph runs");
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(!tree(&ws, "gone").exists());
}
