//! One word quoted for a POSIX shell only when it needs it, so that a command a message
//! suggests (a path with a space or a `'` in it) can be pasted into a terminal as shown.
//! The CLI quotes the command lines it prints with it too.

/// `word`, quoted when the shell would otherwise split or expand it.
pub fn quote(word: &str) -> String {
    match shlex::try_quote(word) {
        Ok(quoted) => quoted.into_owned(),
        // Only a NUL byte cannot be quoted; no argument can hold one anyway.
        Err(_) => word.replace('\0', "\\0"),
    }
}
