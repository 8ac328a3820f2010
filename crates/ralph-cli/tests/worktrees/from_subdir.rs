//! `ralph run --worktree` typed in a package of a monorepo with its own ralph.yml and
//! PROMPT.md: the loop runs at the top of the worktree, where those are not read, so it
//! is refused before anything is made, with the command line that uses them.

use super::common::{Workspace, code};
use super::{COMMIT_OWN_FILE, git, ralph_branches, repo, stderr, tree};

fn run_in(ws: &Workspace, dir: &std::path::Path, args: &[&str]) -> std::process::Output {
    ws.command(args).current_dir(dir).output().expect("ralph")
}

#[test]
fn a_package_with_its_own_config_is_refused_before_the_worktree_is_made() {
    let ws = repo(COMMIT_OWN_FILE);
    let api = ws.path().join("packages/api");
    std::fs::create_dir_all(&api).expect("packages/api");
    std::fs::write(api.join("ralph.yml"), "cli:\n  backend: pi\n").expect("ralph.yml");
    std::fs::write(api.join("PROMPT.md"), "the package's task\n").expect("PROMPT.md");
    git(ws.path(), &["add", "."]);
    git(ws.path(), &["commit", "-qm", "api"]);

    let out = run_in(&ws, &api, &["run", "--worktree=h", "-q"]);
    let err = stderr(&out);
    assert_eq!(code(out.status), 1, "{err}");
    assert!(
        err.contains("runs its loop at the top of the checkout (`")
            && err.contains(
                "so `packages/api/ralph.yml` and `packages/api/PROMPT.md` here would not be read; \
             to use them, pass `-c ralph.yml` (its task is then the PROMPT.md beside it)"
            ),
        "{err}"
    );
    assert!(!tree(&ws, "h").exists(), "{err}");
    assert_eq!(ralph_branches(&ws), Vec::<String>::new());
    assert!(ws.agent_log().is_empty(), "{err}");

    // What it says works: the package's config, and its task.
    let out = run_in(&ws, &api, &["run", "--worktree=h", "-q", "-c", "ralph.yml"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(
        ws.prompt(1).contains("the package's task"),
        "{}",
        ws.prompt(1)
    );

    // With a task of its own and no ralph.yml here, there is nothing to refuse.
    std::fs::remove_file(api.join("ralph.yml")).expect("rm");
    let out = run_in(&ws, &api, &["run", "--worktree=i", "-q", "-p", "x"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
}
