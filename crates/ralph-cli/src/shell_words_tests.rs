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
