//! The name every file ralph writes through a temporary starts with, in whichever crate
//! writes it (ralph-core's atomic writes, ralph-agent's probe cache): one prefix, so that
//! a listing of ralph's files tells its half-written files from the user's the same way
//! everywhere.

/// How the name of a temporary file of an atomic write starts (hidden, `.tmp-…`).
pub const TEMPORARY_PREFIX: &str = ".tmp-";
