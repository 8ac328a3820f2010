//! `PROMPT.md`, the task file read when no task is configured: there or not, and when it is
//! there but cannot be used, a message that names it for what it is. No `-p`, `-P` or
//! `event_loop.prompt` was written, so no position in a file is to blame: the file is.

use std::io;
use std::path::Path;
use std::sync::Arc;

use super::error::{ConfigError, ConfigErrorKind};
use super::load::dangling_link;
use super::origin::Origin;

/// The default task file's text (`Ok(None)` when there is nothing at its name), or what
/// stops it from being read. A link there that leads nowhere is said to be one, as for
/// `ralph.yml`: whoever made it meant a task to be read.
pub(super) fn read_default_prompt(
    cwd: &Path,
    path: &Path,
) -> Result<Option<String>, Box<ConfigError>> {
    let on_disk = cwd.join(path);
    let source = match super::resolve::read_prompt(cwd, path) {
        Ok(text) => return Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match dangling_link(&on_disk) {
            Some(link) => link,
            None => return Ok(None),
        },
        Err(e) => e,
    };
    Err(Box::new(ConfigError::new(
        Origin::WholeFile(Arc::from(path)),
        ConfigErrorKind::DefaultPromptFile {
            path: path.to_path_buf(),
            source,
        },
    )))
}
