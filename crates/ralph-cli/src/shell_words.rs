//! Command lines as a person would type them: each word quoted for a POSIX shell only
//! when it needs it, so what `ralph doctor` and `ralph plan --dry-run` print can be
//! pasted into a terminal.

use std::ffi::OsStr;

/// `program args…`, shell-quoted. Words that are not UTF-8 are shown lossily.
pub(crate) fn shell_line<'a>(
    program: &OsStr,
    args: impl IntoIterator<Item = &'a std::ffi::OsString>,
) -> String {
    std::iter::once(program)
        .chain(args.into_iter().map(|a| a.as_os_str()))
        .map(|word| quote(&word.to_string_lossy()))
        .collect::<Vec<_>>()
        .join(" ")
}

/// One word, quoted when the shell would otherwise split or expand it.
pub(crate) fn quote(word: &str) -> String {
    match shlex::try_quote(word) {
        Ok(quoted) => quoted.into_owned(),
        // Only a NUL byte cannot be quoted; no argument can hold one anyway.
        Err(_) => word.replace('\0', "\\0"),
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::OsString;

    use super::*;

    #[test]
    fn words_are_quoted_only_when_needed() {
        let args: Vec<OsString> = ["-p", "--mode", "json", "it's a <prompt>"]
            .map(OsString::from)
            .to_vec();
        assert_eq!(
            shell_line(OsStr::new("/usr/bin/pi"), &args),
            r#"/usr/bin/pi -p --mode json "it's a <prompt>""#
        );
    }
}
