//! Who holds a workspace lock, as the holder wrote it into the lock file: its pid, its
//! host, and, when it is not a loop, which command holds it.
//!
//! ```text
//! 41237 devbox          a loop (what every ralph wrote before the second line)
//! 41290 devbox
//! land                  `ralph runs land`, landing the worktree
//! ```
//!
//! The other words: `rm` (`ralph runs rm`, removing the worktree) and `land-base`
//! (`ralph runs land` fast-forwarding the branch checked out in this checkout, its base;
//! a ralph older than that word counts it as a loop).
//!
//! `ralph runs land` and `ralph runs rm` hold a worktree's locks while they work (a
//! landing's check can last an hour): without the second line, `ralph runs` showed the
//! worktree as running and a loop started there was refused as beside "another ralph
//! loop", naming a process that is no loop. The file is in the workspace (or in the
//! user's own directory): anything can be written there, so only the first
//! [`HOLDER_BYTES`] are read, never through a link or from anything but a regular file
//! (`fsafe`), and a second line that is not one of the words below counts as a loop.

use std::io::Read;
use std::path::Path;

/// The most of the lock file read for its holder: a pid (10 digits), a host name (at
/// most 64 bytes on Linux), the command's word and the separators fit with room.
pub(super) const HOLDER_BYTES: u64 = 128;

/// What holds a workspace lock.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HeldBy {
    /// A loop runs in the workspace (`ralph run`, `ralph plan`).
    Loop,
    /// `ralph runs land` is rebasing and checking the worktree.
    Land,
    /// `ralph runs land` is fast-forwarding the branch checked out in this checkout (the
    /// landing's base, in the main checkout or another worktree) to the loop it lands.
    /// Told apart from [`HeldBy::Land`] so that a loop refused meanwhile is not told its
    /// checkout is being landed.
    LandBase,
    /// `ralph runs rm` is deleting the worktree.
    Remove,
}

impl HeldBy {
    /// The word on the lock file's second line; a loop writes none.
    fn word(self) -> Option<&'static str> {
        match self {
            HeldBy::Loop => None,
            HeldBy::Land => Some("land"),
            HeldBy::LandBase => Some("land-base"),
            HeldBy::Remove => Some("rm"),
        }
    }

    /// The command that holds the lock, as a user types it (`None` for a loop).
    pub fn command(self) -> Option<&'static str> {
        match self {
            HeldBy::Loop => None,
            HeldBy::Land | HeldBy::LandBase => Some("ralph runs land"),
            HeldBy::Remove => Some("ralph runs rm"),
        }
    }

    /// What the command is doing to a checkout, after its name and before the
    /// checkout's path: "is landing".
    pub fn doing(self) -> &'static str {
        match self {
            HeldBy::Loop => "is running in",
            HeldBy::Land => "is landing",
            HeldBy::LandBase => "is fast-forwarding the branch checked out in",
            HeldBy::Remove => "is removing",
        }
    }

    /// What the command is doing to the checkout a refused loop was started in, after
    /// its name: "is landing this worktree".
    pub fn doing_here(self) -> &'static str {
        match self {
            HeldBy::Loop => "is running in this workspace",
            HeldBy::Land => "is landing this worktree",
            HeldBy::LandBase => {
                "is fast-forwarding the branch checked out here to the worktree loop it lands"
            }
            HeldBy::Remove => "is removing this worktree",
        }
    }
}

/// Who holds (or last held) a lock, as its file says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct LockHolder {
    pub pid: u32,
    /// The holder's host name; `None` in a file written before ralph recorded it.
    pub host: Option<String>,
    /// What holds it; a loop when the file names no command (or one this ralph does not
    /// know: text in the workspace is never shown as it is).
    pub by: HeldBy,
}

impl LockHolder {
    /// Parses `<pid> [<host>]`, then the optional command's word on the next line;
    /// `None` when the first line names no pid.
    pub fn parse(text: &str) -> Option<LockHolder> {
        let mut lines = text.lines();
        let mut words = lines.next()?.split_whitespace();
        let pid = words.next()?.parse().ok()?;
        let host = words.next().map(str::to_owned);
        let second = lines.next().map(str::trim);
        let by = [HeldBy::Land, HeldBy::LandBase, HeldBy::Remove]
            .into_iter()
            .find(|by| by.word() == second)
            .unwrap_or(HeldBy::Loop);
        Some(LockHolder { pid, host, by })
    }

    /// The file's text naming this process, on `host`, as holder for `by`.
    pub(super) fn record(by: HeldBy, host: Option<&str>) -> String {
        let mut text = std::process::id().to_string();
        if let Some(host) = host {
            text.push(' ');
            text.push_str(host);
        }
        text.push('\n');
        if let Some(word) = by.word() {
            text.push_str(word);
            text.push('\n');
        }
        text
    }

    /// Whether the holder ran on this machine, so that its pid may be looked up here. A
    /// file without a host (an older ralph) is taken to be this machine's, as before.
    pub fn on_this_host(&self) -> bool {
        match (&self.host, this_host()) {
            (Some(theirs), Some(ours)) => *theirs == ours,
            _ => true,
        }
    }
}

/// This machine's host name (a pod's name under Kubernetes, the runner's on CI); `None`
/// when it has none that is one word of text.
pub fn this_host() -> Option<String> {
    let name = nix::unistd::gethostname().ok()?.into_string().ok()?;
    (!name.is_empty() && !name.contains(char::is_whitespace)).then_some(name)
}

/// The holder named by the first bytes of `reader` (a lock file); `None` when they name
/// none.
pub(super) fn read_from(reader: impl Read) -> Option<LockHolder> {
    let mut bytes = Vec::new();
    // A pid and a host name are short: never read a planted huge file whole.
    reader.take(HOLDER_BYTES).read_to_end(&mut bytes).ok()?;
    LockHolder::parse(&String::from_utf8_lossy(&bytes))
}

/// Reads the holder recorded in the lock file at `path`; `None` when there is no file or
/// it names no holder.
pub fn read_holder(path: &Path) -> Option<LockHolder> {
    let file = crate::fsafe::open_read(path, crate::fsafe::Links::Refuse).ok()?;
    read_from(file)
}

#[cfg(test)]
#[path = "lock_holder_tests.rs"]
mod tests;
