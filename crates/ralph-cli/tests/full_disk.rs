//! `ralph run` on a full disk: a small tmpfs, filled at the moment that matters. Where the
//! machine allows no mount (neither as root nor through `sudo -n`), each test says so on
//! stderr and passes without running.

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

/// The tmpfs, or `None` after saying on stderr why the test does not run.
fn tmpfs_or_skip(test: &str) -> Option<Tmpfs> {
    match Tmpfs::mount() {
        Ok(tmpfs) => Some(tmpfs),
        Err(why) => {
            eprintln!("SKIPPED {test}: this machine allows no tmpfs mount here ({why})");
            None
        }
    }
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
