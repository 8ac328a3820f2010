//! Where ralph keeps what belongs to the user rather than to a workspace (the agents'
//! probe cache, the workspace locks): never in the workspace, which is untrusted.
//!
//! Only absolute directories count: the XDG specification says to ignore relative ones,
//! and a relative `HOME` would put the files inside whatever directory ralph runs in.

use std::path::PathBuf;

/// The user's cache directory: `$XDG_CACHE_HOME`, else `$HOME/.cache`; `None` when
/// neither names an absolute directory.
pub fn cache_dir() -> Option<PathBuf> {
    absolute("XDG_CACHE_HOME").or_else(|| absolute("HOME").map(|home| home.join(".cache")))
}

/// The user's runtime directory (`$XDG_RUNTIME_DIR`, emptied at logout), else the cache
/// directory.
pub fn runtime_dir() -> Option<PathBuf> {
    absolute("XDG_RUNTIME_DIR").or_else(cache_dir)
}

/// The directory the environment variable `var` names, when it is absolute.
fn absolute(var: &str) -> Option<PathBuf> {
    std::env::var_os(var)
        .map(PathBuf::from)
        .filter(|p| p.is_absolute())
}

/// FNV-1a, 64 bits: a file name for a path or a key, stable across Rust versions (unlike
/// `DefaultHasher`) and across runs. Not a defence: the directories are the user's own.
/// Eight lines instead of a hashing crate.
pub fn fnv1a(bytes: &[u8]) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET, |hash, &b| (hash ^ u64::from(b)).wrapping_mul(PRIME))
}

#[cfg(test)]
#[path = "user_dirs_tests.rs"]
mod tests;
