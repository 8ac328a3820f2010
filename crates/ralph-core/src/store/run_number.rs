//! The number a new run takes among the runs started in the same second: `<time>`,
//! `<time>-2`, `<time>-3`, …
//!
//! A new run takes the number after the highest one taken, never a lower one left free:
//! `ralph runs prune` deletes the oldest runs first, so `<time>` can be gone while
//! `<time>-2` is kept, and a new run named `<time>` would then sort as older than the
//! runs it follows (`ralph runs` would list it last, and the next prune delete it before
//! them).

use std::path::Path;
use std::{fs, io};

/// The names in `runs/` that start with `base`, the time of a run about to start.
pub(super) fn names_of_second(runs: &Path, base: &str) -> io::Result<Vec<String>> {
    let mut names = Vec::new();
    for entry in fs::read_dir(runs)? {
        if let Some(name) = entry?.file_name().to_str()
            && name.starts_with(base)
        {
            names.push(name.to_owned());
        }
    }
    Ok(names)
}

/// The number after the highest of `base`'s second among `names` (`base` alone is 1);
/// 1 when none is taken. `None` when the highest number is the largest there is.
pub(super) fn next_run_number<'a>(
    base: &str,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<u32> {
    let highest = names
        .into_iter()
        .filter_map(|name| number_in(base, name))
        .max()
        .unwrap_or(0);
    highest.checked_add(1)
}

/// The id of run `n` of `base`'s second: `base` for the first, `base-n` after it.
pub(super) fn numbered(base: &str, n: u32) -> String {
    match n {
        0 | 1 => base.to_owned(),
        n => format!("{base}-{n}"),
    }
}

/// `name`'s number if it is a run of `base`'s second.
fn number_in(base: &str, name: &str) -> Option<u32> {
    let rest = name.strip_prefix(base)?;
    if rest.is_empty() {
        return Some(1);
    }
    let n = rest.strip_prefix('-')?;
    // `parse` alone would take a `+`: only the digits ralph writes.
    if n.is_empty() || !n.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    n.parse().ok()
}

#[cfg(test)]
#[path = "run_number_tests.rs"]
mod tests;
