//! The task file a run reads when no task is given (`PROMPT.md`), got wrong in the ways
//! a newcomer gets it wrong: each is named for what it is.

mod common;

use std::process::Output;

use common::{Workspace, code};

fn refused(ws: &Workspace) -> String {
    let out: Output = ws.run(&["run"]);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(code(out.status), 1, "{stderr}");
    assert!(ws.agent_log().is_empty(), "an agent ran: {stderr}");
    stderr
}

#[test]
fn a_task_file_by_another_name_is_pointed_at() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    std::fs::write(ws.path().join("prompt.md"), "fix it\n").expect("prompt.md");
    let stderr = refused(&ws);
    assert!(
        stderr.contains(
            "or write it in PROMPT.md; `prompt.md` is there, but ralph reads PROMPT.md: \
             rename it, or pass `-P prompt.md`"
        ),
        "{stderr}"
    );
}

#[test]
fn a_directory_named_like_the_task_file_is_called_one_without_a_contradiction() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    std::fs::create_dir(ws.path().join("PROMPT.md")).expect("PROMPT.md/");
    let stderr = refused(&ws);
    assert!(
        stderr.contains(
            "ralph: PROMPT.md: read as the task (no `-p`, `-P` or `event_loop.prompt` given), but `"
        ) && stderr.contains(
            "PROMPT.md` is a directory, not a regular file; replace it with a regular file"
        ),
        "{stderr}"
    );
    assert!(
        !stderr.contains("regular files and directories"),
        "{stderr}"
    );
    assert!(!stderr.contains("built-in default"), "{stderr}");
}

#[test]
fn a_task_file_link_to_nothing_is_said_to_be_one() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    std::os::unix::fs::symlink("/nonexistent-task", ws.path().join("PROMPT.md")).expect("link");
    let stderr = refused(&ws);
    assert!(
        stderr.contains(
            "PROMPT.md: read as the task (no `-p`, `-P` or `event_loop.prompt` given), but it \
             is a symbolic link to `/nonexistent-task`, which does not exist; fix or remove \
             the link"
        ),
        "{stderr}"
    );
    assert!(!stderr.contains("Create it"), "{stderr}");
    // As `ralph doctor` says it.
    let out = ws.run(&["doctor"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(code(out.status), 1, "{text}");
    assert!(
        text.contains("symbolic link to `/nonexistent-task`"),
        "{text}"
    );
}
