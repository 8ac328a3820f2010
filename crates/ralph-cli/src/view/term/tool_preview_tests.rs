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
