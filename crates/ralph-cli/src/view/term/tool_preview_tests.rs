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
fn a_failure_shows_the_last_lines_where_the_cause_is() {
    let traceback = "Traceback (most recent call last):\n  File \"t.py\", line 3, in <module>\n    main()\n  File \"t.py\", line 1, in main\n    raise ValueError(\"boom\")\nValueError: boom\n\nCommand exited with code 1\n";
    assert_eq!(
        failure_preview(traceback),
        "ValueError: boom · Command exited with code 1"
    );
    assert_eq!(failure_preview("only one line"), "only one line");
    assert_eq!(failure_preview(""), "");
    let long = format!("{}\n", "x".repeat(300));
    assert_eq!(failure_preview(&long).chars().count(), PREVIEW_CHARS);
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
