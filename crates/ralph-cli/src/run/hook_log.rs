//! Where a hook's output goes: a log file of its own per run of it, under the run's
//! directory.

use std::io;
use std::path::PathBuf;

use ralph_core::fsafe::{self, Access, Links};
use ralph_core::hooks::HookPhase;
use ralph_core::store::RunDir;

/// The run directory's folder for hook logs.
const HOOKS_DIR: &str = "hooks";
/// The longest hook name kept in a log file's name.
const LOG_NAME_CHARS: usize = 40;

/// `.ralph/runs/<id>/hooks/<n>-<phase>-<name>.log`, created new (never through a link),
/// `runs` counting the logs of this session. A name taken by an earlier session of the
/// run gets the next number.
pub(super) fn open(
    run_dir: &RunDir,
    runs: &mut u32,
    phase: HookPhase,
    name: &str,
) -> Result<(PathBuf, Option<std::fs::File>), (PathBuf, io::Error)> {
    let dir = run_dir.path().join(HOOKS_DIR);
    fsafe::create_dir(&dir).map_err(|e| (dir.clone(), e))?;
    let name: String = name
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.') {
                c
            } else {
                '_'
            }
        })
        .take(LOG_NAME_CHARS)
        .collect();
    loop {
        *runs += 1;
        let path = dir.join(format!("{}-{}-{name}.log", *runs, phase.name()));
        let opened = fsafe::open(
            &path,
            Access::new().write(true).create_new(true),
            Links::Refuse,
        );
        match opened {
            Ok(file) => return Ok((path, Some(file))),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err((path, e)),
        }
    }
}
