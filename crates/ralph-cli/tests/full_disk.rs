//! `ralph run` on a full disk: a small tmpfs, filled at the moment that matters. The tmpfs
//! is mounted as root, else through `sudo -n`, else in a user namespace of the test's own
//! (the test runs again in it); where the machine allows none of these, each test says so
//! on stderr and passes without running.

mod common;

use std::io::Write;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

use common::{Workspace, code};
use pretty_assertions::assert_eq;

/// The tmpfs's size: room for a few runs' files, filled in an instant.
const TMPFS_KIB: u32 = 1024;

/// How the tmpfs was mounted, hence how it is unmounted.
enum Mounter {
    Direct,
    Sudo,
}

/// A tmpfs of [`TMPFS_KIB`] mounted on a fresh directory, unmounted (lazily, if busy) and
/// removed when dropped, whether the test passed or not.
struct Tmpfs {
    dir: tempfile::TempDir,
    mounter: Mounter,
}

fn quiet(cmd: &mut Command) -> Result<(), String> {
    let out = cmd
        .stdin(Stdio::null())
        .output()
        .map_err(|e| format!("{cmd:?}: {e}"))?;
    if out.status.success() {
        Ok(())
    } else {
        Err(format!(
            "{cmd:?}: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ))
    }
}

impl Tmpfs {
    /// Mounts one: with `mount(8)` directly (root, or CAP_SYS_ADMIN), else through
    /// `sudo -n` (a CI runner's passwordless sudo); the error says why neither worked.
    fn mount() -> Result<Tmpfs, String> {
        let dir = tempfile::tempdir().map_err(|e| e.to_string())?;
        // Owned by whoever runs the tests, also when sudo mounts it.
        let owner = std::fs::metadata(dir.path()).map_err(|e| e.to_string())?;
        let options = format!(
            "size={TMPFS_KIB}k,mode=0700,uid={},gid={}",
            owner.uid(),
            owner.gid()
        );
        let args = ["-t", "tmpfs", "-o", &options, "tmpfs"];
        let direct = quiet(Command::new("mount").args(args).arg(dir.path()));
        if direct.is_ok() {
            return Ok(Tmpfs {
                dir,
                mounter: Mounter::Direct,
            });
        }
        let sudo = quiet(
            Command::new("sudo")
                .args(["-n", "mount"])
                .args(args)
                .arg(dir.path()),
        );
        match sudo {
            Ok(()) => Ok(Tmpfs {
                dir,
                mounter: Mounter::Sudo,
            }),
            Err(sudo) => Err(format!("{}; {sudo}", direct.unwrap_err())),
        }
    }

    fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Fills the file system to the last byte with a file of zeros; returns its path.
    fn fill(&self) -> PathBuf {
        let path = self.path().join("filler");
        let mut file = std::fs::File::create(&path).expect("create the filler");
        let chunk = [0u8; 4096];
        loop {
            match file.write(&chunk) {
                Ok(0) => break,
                Ok(_) => {}
                Err(e) => {
                    assert_eq!(e.kind(), std::io::ErrorKind::StorageFull, "{e}");
                    break;
                }
            }
        }
        path
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let mut umount = match self.mounter {
            Mounter::Direct => Command::new("umount"),
            Mounter::Sudo => {
                let mut cmd = Command::new("sudo");
                cmd.args(["-n", "umount"]);
                cmd
            }
        };
        // Lazy: a process the test left could still hold a file there.
        let _ = quiet(umount.arg("-l").arg(self.dir.path()));
    }
}

/// Set in a test's own run inside a user namespace (see [`tmpfs_or_skip`]).
const IN_USERNS_VAR: &str = "RALPH_TEST_IN_USERNS";

/// Printed by a test run inside a user namespace once its tmpfs is mounted: a failure
/// after it is the test's, not the namespace's.
const MOUNTED_IN_USERNS: &str = "ralph-test: tmpfs mounted in a user namespace";

/// The tmpfs, or `None` when the test must not go on here: either it already ran (and
/// passed) in a user namespace of its own, where an unprivileged user may mount a tmpfs,
/// or the machine allows no mount at all, which is said on stderr.
fn tmpfs_or_skip(test: &str) -> Option<Tmpfs> {
    let why = match Tmpfs::mount() {
        Ok(tmpfs) => {
            if std::env::var_os(IN_USERNS_VAR).is_some() {
                println!("{MOUNTED_IN_USERNS}");
            }
            return Some(tmpfs);
        }
        Err(why) => why,
    };
    if std::env::var_os(IN_USERNS_VAR).is_some() {
        return None;
    }
    // Run this test again, alone, as root of a new user and mount namespace.
    let exe = std::env::current_exe().expect("the test binary");
    let rerun = Command::new("unshare")
        .args(["--user", "--map-root-user", "--mount", "--"])
        .arg(exe)
        .args(["--exact", test, "--nocapture", "--test-threads=1"])
        .env(IN_USERNS_VAR, "1")
        .stdin(Stdio::null())
        .output();
    match rerun {
        Ok(out) if String::from_utf8_lossy(&out.stdout).contains(MOUNTED_IN_USERNS) => {
            assert!(
                out.status.success(),
                "{test} failed in its user namespace:\n{}\n{}",
                String::from_utf8_lossy(&out.stdout),
                String::from_utf8_lossy(&out.stderr)
            );
            eprintln!("{test}: ran and passed in a user namespace (no mount allowed here)");
        }
        Ok(out) => eprintln!(
            "SKIPPED {test}: this machine allows no tmpfs mount here ({why}; in a user \
             namespace: {})",
            String::from_utf8_lossy(&out.stderr).trim()
        ),
        Err(e) => eprintln!(
            "SKIPPED {test}: this machine allows no tmpfs mount here ({why}; unshare: {e})"
        ),
    }
    None
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

fn runs(ws: &Workspace) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(ws.path().join(".ralph/runs"))
        .map(|dir| {
            dir.map(|e| e.expect("entry").file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

#[test]
fn a_full_disk_at_start_fails_clearly_and_leaves_no_empty_run_directory() {
    let Some(tmpfs) =
        tmpfs_or_skip("a_full_disk_at_start_fails_clearly_and_leaves_no_empty_run_directory")
    else {
        return;
    };
    let ws = Workspace::new_in(
        tmpfs.path(),
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | |\n",
    );
    let first = ws.run(&["run", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code(first.status), 2, "{}", stderr(&first));
    let before = runs(&ws);
    assert_eq!(before.len(), 1);
    let current = std::fs::read_to_string(ws.path().join(".ralph/current-run")).expect("marker");

    let filler = tmpfs.fill();
    let out = ws.run(&["run", "-p", "another task"]);
    let message = stderr(&out);
    assert_eq!(code(out.status), 1, "{message}");
    assert!(message.contains("No space left on device"), "{message}");
    assert!(message.contains("run directory"), "{message}");
    assert_eq!(runs(&ws), before, "{message}");
    assert_eq!(
        std::fs::read_to_string(ws.path().join(".ralph/current-run")).expect("marker"),
        current
    );
    // The last run is still the one to continue once there is room again.
    std::fs::remove_file(filler).expect("free the disk");
    let out = ws.run(&["run", "--continue", "--max-iterations", "2"]);
    assert_eq!(code(out.status), 2, "{}", stderr(&out));
    assert_eq!(runs(&ws), before);
}

/// A task long enough that the saved state takes several pages of the tmpfs: when the
/// disk fills during an iteration, the page freed by removing the agent record cannot
/// hold it, while the history line still fits in the history's last page.
fn long_task() -> String {
    "Write the report, section by section. ".repeat(400)
}

#[test]
fn a_disk_that_fills_between_the_history_and_the_state_does_not_duplicate_the_iteration() {
    let Some(tmpfs) = tmpfs_or_skip(
        "a_disk_that_fills_between_the_history_and_the_state_does_not_duplicate_the_iteration",
    ) else {
        return;
    };
    let ws = Workspace::new_in(
        tmpfs.path(),
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | step=one |\n\
         pi/anthropic/text.jsonl | step=two | fill=../filler\n\
         pi/anthropic/text.jsonl | LOOP_COMPLETE |\n",
    );
    let task = long_task();
    let out = ws.run(&["run", "-p", &task, "--max-iterations", "5"]);
    let message = stderr(&out);
    assert_eq!(code(out.status), 1, "{message}");
    assert!(
        message.contains("cannot save the run state to")
            && message.contains("No space left on device"),
        "{message}"
    );
    let iterations = |ws: &Workspace| -> Vec<u64> {
        ws.history()
            .iter()
            .map(|r| r["iteration"].as_u64().expect("iteration"))
            .collect()
    };
    // The moment the test is about: the history has iteration 2, the state does not.
    assert_eq!(iterations(&ws), [1, 2]);
    assert_eq!(ws.saved_state()["state"]["iterations"], 1);

    std::fs::remove_file(tmpfs.path().join("filler")).expect("free the disk");
    let out = ws.run(&["run", "--continue"]);
    let message = stderr(&out);
    assert_eq!(code(out.status), 0, "{message}");
    assert!(message.contains("dropped, to run again"), "{message}");
    // Iteration 2 ran again, and is in the history once: history and state agree.
    assert_eq!(iterations(&ws), [1, 2]);
    assert_eq!(ws.saved_state()["state"]["iterations"], 2);
    assert_eq!(ws.agent_log().len(), 3);
    // The record is the re-run's: it completed. What the lost attempt had emitted is
    // not lost either (the inbox is read again from the saved offset).
    let history = ws.history();
    let topics: Vec<&str> = history[1]["events"]
        .as_array()
        .expect("events")
        .iter()
        .map(|e| e["topic"].as_str().expect("topic"))
        .collect();
    assert_eq!(topics, ["step", "LOOP_COMPLETE"], "{history:?}");
    assert_eq!(history[1]["completion"], "event");
}
