use super::*;

#[test]
fn the_telling_argument_of_each_agent_s_tools() {
    let cases = [
        (
            r#"{"command":"echo hello > out.txt && cat out.txt"}"#,
            "echo hello > out.txt && cat out.txt",
        ),
        (r#"{"command":"ls","description":"List files"}"#, "ls"),
        (
            r#"{"cmd":"/bin/bash -lc 'cargo test'"}"#,
            "/bin/bash -lc 'cargo test'",
        ),
        (
            r#"{"file_path":"/w/notes.txt","content":"a\nb"}"#,
            "/w/notes.txt",
        ),
        (r#"{"filePath":"src/lib.rs"}"#, "src/lib.rs"),
        (r#"{"path":"big.txt","content":"xxxx"}"#, "big.txt"),
        (r#"{"pattern":"TODO","path":"src"}"#, "TODO in src"),
        (r#"{"weird":{"nested":1},"name":"x"}"#, "x"),
        (r#"{}"#, ""),
        ("not json at all", "not json at all"),
    ];
    for (args, want) in cases {
        assert_eq!(preview(args), want, "{args}");
    }
}

#[test]
fn previews_are_one_bounded_line() {
    let long = format!(r#"{{"command":"{}\nsecond line"}}"#, "x".repeat(300));
    let p = preview(&long);
    assert_eq!(p.chars().count(), PREVIEW_CHARS);
    assert!(p.ends_with('…') && !p.contains('\n'));
}

#[test]
fn output_previews_keep_the_first_lines_and_count_the_rest() {
    assert_eq!(
        output_preview("a\n\nb\nc\nd\n", 2),
        vec!["a".to_owned(), "b".to_owned(), "… 2 more lines".to_owned()]
    );
}

#[test]
fn a_failure_shows_its_first_line_and_its_last_that_says_something() {
    assert_eq!(
        failure_preview("Exit code 2\nls: cannot access 'x': No such file or directory\n"),
        "Exit code 2 · ls: cannot access 'x': No such file or directory"
    );
    // Claude Code's input validation error: its name first, a JSON list of issues after,
    // whose last lines are only the list's closing brackets.
    let invalid = "<tool_use_error>InputValidationError: [\n  {\n    \"code\": \"custom\",\n    \"path\": [\n      \"command\"\n    ],\n    \"message\": \"command contains control characters\"\n  }\n]</tool_use_error>";
    assert_eq!(
        failure_preview(invalid),
        "<tool_use_error>InputValidationError: [ · … · \"message\": \"command contains control \
         characters\""
    );
    // A Python traceback says why on its last line.
    let traceback = "Traceback (most recent call last):\n  File \"x.py\", line 3, in <module>\n    main()\nValueError: the port must be a number\n";
    assert_eq!(
        failure_preview(traceback),
        "Traceback (most recent call last): · … · ValueError: the port must be a number"
    );
    assert_eq!(failure_preview("\n\nonly one line\n"), "only one line");
    assert_eq!(failure_preview("failed\n}\n]\n"), "failed");
    assert_eq!(failure_preview(""), "");
    // Both ends show, within the one line.
    let long = format!("{}\n{}\n", "x".repeat(300), "y".repeat(300));
    let shown = failure_preview(&long);
    assert_eq!(shown.chars().count(), PREVIEW_CHARS);
    assert!(shown.starts_with('x') && shown.contains(" · y"), "{shown}");
    let many = "line\n".repeat(10_000);
    assert_eq!(failure_preview(&many), "line · … · line");
}

#[test]
fn pi_s_exit_status_after_a_failed_command_does_not_hide_why() {
    // pi's bash tool: the command's output, then its status.
    let traceback = "Traceback (most recent call last):\n  File \"<string>\", line 1, in <module>\njson.decoder.JSONDecodeError: Expecting property name: line 1 column 2\n\nCommand exited with code 1";
    assert_eq!(
        failure_preview(traceback),
        "Traceback (most recent call last): · … · json.decoder.JSONDecodeError: Expecting \
         property … · exit 1"
    );
    assert_eq!(
        failure_preview(
            "start\nls: cannot access '/x': No such file or directory\n\nCommand exited with code 2"
        ),
        "start · ls: cannot access '/x': No such file or directory · exit 2"
    );
    // Alone, the status is all there is to say.
    assert_eq!(
        failure_preview("Command exited with code 127"),
        "Command exited with code 127"
    );
    let long = format!("{}\nCommand exited with code 3", "y".repeat(300));
    let shown = failure_preview(&long);
    assert_eq!(shown.chars().count(), PREVIEW_CHARS);
    assert!(shown.ends_with("… · exit 3"), "{shown}");
}

#[test]
fn output_tails_keep_the_last_lines_and_count_the_rest() {
    assert_eq!(
        output_tail("a\n\nb\nc\nd\n", 2),
        vec![
            "… 2 earlier lines".to_owned(),
            "c".to_owned(),
            "d".to_owned()
        ]
    );
    assert_eq!(
        output_tail("a\nb\n", 3),
        vec!["a".to_owned(), "b".to_owned()]
    );
}
