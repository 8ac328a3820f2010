//! A memories file past the size ralph reads it up to, and how to make room.
//!
//! The limit bounds what a runaway or hostile file makes ralph hold in memory. A file
//! that outgrew it costs every iteration its memories (the prompt leaves them out), so
//! ralph never makes one that large itself, and the refusal says how to make it smaller
//! again. The messages leave the path out: the caller's names the file.

use std::io;

/// Why a memories file was refused for its size.
#[derive(Debug, thiserror::Error)]
pub enum TooLarge {
    /// An `add` would have taken the file past the limit: nothing was written.
    #[error(
        "adding this memory ({adding} bytes as stored) would make the file {size} bytes, \
         over its {limit}-byte limit; make room first (`ralph tools memory list`, then \
         `ralph tools memory delete <id>` for what is no longer needed), or store a shorter \
         memory"
    )]
    Add { adding: u64, size: u64, limit: u64 },
    /// The file already is over the limit.
    #[error(
        "it is {size} bytes, over its {limit}-byte limit, so ralph does not read it (and the \
         prompt goes without memories); {}",
        how_to_shrink(*size, *repair)
    )]
    File { size: u64, limit: u64, repair: u64 },
}

impl TooLarge {
    pub(super) fn into_io(self) -> io::Error {
        io::Error::new(io::ErrorKind::InvalidInput, self)
    }
}

/// What a person can do about a file of `size` bytes: ralph's own commands up to
/// `repair`, an editor past it.
fn how_to_shrink(size: u64, repair: u64) -> String {
    let by_hand = "remove whole `### mem-…` entries from it in an editor, or move it \
                   aside and start a new one with `ralph tools memory init`";
    if size <= repair {
        format!(
            "make it smaller: `ralph tools memory list` and `ralph tools memory delete <id>` \
             still work on it up to {repair} bytes; or {by_hand}"
        )
    } else {
        format!("make it smaller: {by_hand}")
    }
}
