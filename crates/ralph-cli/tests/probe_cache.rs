//! `ralph run` remembers a successful `--version` probe in the user's cache directory:
//! a second run does not probe again, a changed binary or a damaged cache entry does,
//! and a backend the run cannot use is never probed.

mod common;

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use common::{Workspace, code};
use pretty_assertions::assert_eq;

const ONE_ITERATION: &str = "pi/anthropic/text.jsonl | LOOP_COMPLETE |\n";

/// Copies of the fake agents in a directory of the workspace's own, so a test can change
/// a binary without touching the shared ones.
fn private_agents(ws: &Workspace) -> PathBuf {
    let bin = ws.path().join(".fake/bin");
    std::fs::create_dir_all(&bin).unwrap();
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fake-agents/fake-agent");
    for name in ["pi", "claude"] {
        std::fs::copy(&source, bin.join(name)).unwrap();
    }
    bin
}

fn run(ws: &Workspace, bin: &Path) -> i32 {
    let path = format!("{}:/usr/bin:/bin", bin.display());
    let out = ws
        .command(&["run", "-p", "task"])
        .env("PATH", path)
        .output()
        .expect("run ralph");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "ralph run failed: {stderr}");
    code(out.status)
}

fn cache_entries(ws: &Workspace) -> Vec<PathBuf> {
    std::fs::read_dir(ws.cache_dir().join("ralph/probes"))
        .map(|dir| dir.map(|e| e.unwrap().path()).collect())
        .unwrap_or_default()
}

#[test]
fn a_second_run_does_not_probe_again() {
    let ws = Workspace::new("cli:\n  backend: pi\n", ONE_ITERATION);
    let bin = private_agents(&ws);
    run(&ws, &bin);
    assert_eq!(ws.version_log(), vec!["pi --version"]);
    run(&ws, &bin);
    assert_eq!(ws.version_log(), vec!["pi --version"], "probed again");
    assert_eq!(ws.agent_log().len(), 2, "both runs ran the agent");
    assert_eq!(cache_entries(&ws).len(), 1);
    assert!(
        !ws.path().join(".ralph").read_dir().unwrap().any(|e| {
            let name = e.unwrap().file_name();
            name.to_string_lossy().contains("probe")
        }),
        "nothing cached in the workspace"
    );
}

#[test]
fn a_changed_binary_is_probed_again() {
    let ws = Workspace::new("cli:\n  backend: pi\n", ONE_ITERATION);
    let bin = private_agents(&ws);
    run(&ws, &bin);

    // Same content, new modification time (a reinstall of the same version).
    let later = SystemTime::now() + Duration::from_secs(60);
    let file = std::fs::File::options()
        .write(true)
        .open(bin.join("pi"))
        .unwrap();
    file.set_modified(later).unwrap();
    drop(file);
    run(&ws, &bin);
    assert_eq!(ws.version_log().len(), 2, "mtime change not noticed");

    // A different size (an upgrade).
    let mut script = std::fs::read_to_string(bin.join("pi")).unwrap();
    script.push_str("# upgraded\n");
    std::fs::write(bin.join("pi"), script).unwrap();
    run(&ws, &bin);
    assert_eq!(ws.version_log().len(), 3, "size change not noticed");
    run(&ws, &bin);
    assert_eq!(
        ws.version_log().len(),
        3,
        "the new binary's result is cached"
    );
}

#[test]
fn a_damaged_or_hostile_cache_entry_is_a_miss_not_an_error() {
    let ws = Workspace::new("cli:\n  backend: pi\n", ONE_ITERATION);
    let bin = private_agents(&ws);
    run(&ws, &bin);
    let [entry] = cache_entries(&ws).try_into().unwrap();

    std::fs::write(&entry, b"\xff\xfenot an entry\0").unwrap();
    run(&ws, &bin);
    assert_eq!(ws.version_log().len(), 2, "garbage taken as a hit");

    // A FIFO must neither block the run nor be taken as a hit.
    std::fs::remove_file(&entry).unwrap();
    nix::unistd::mkfifo(&entry, nix::sys::stat::Mode::from_bits_truncate(0o600)).unwrap();
    run(&ws, &bin);
    assert_eq!(ws.version_log().len(), 3, "a FIFO taken as a hit");
}

#[test]
fn a_hat_that_can_never_run_does_not_have_its_backend_probed() {
    let config = "\
cli:
  backend: pi
event_loop:
  starting_event: work.start
hats:
  worker:
    description: Works
    triggers: [work.start]
  dormant:
    description: Triggers on nothing, so it never runs
    backend: claude
";
    let ws = Workspace::new(config, ONE_ITERATION);
    let bin = private_agents(&ws);
    run(&ws, &bin);
    assert_eq!(ws.version_log(), vec!["pi --version"]);
}
