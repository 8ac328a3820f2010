use super::*;

#[test]
fn short_lines_are_kept_as_they_come() {
    let mut kept = String::new();
    for piece in ["one\ntw", "o\n", "", "three"] {
        append_capped(&mut kept, piece);
    }
    assert_eq!(kept, "one\ntwo\nthree");
}

#[test]
fn a_long_line_is_cut_once_however_it_arrives_and_the_next_line_is_kept() {
    for chunk in [1, 7, 4096, 100_000] {
        let mut kept = String::from("before\n");
        let long = "é".repeat(LINE_MAX_BYTES); // two bytes a character
        let text = format!("{long}\nafter\n");
        // Deltas arrive as whole characters.
        let chars: Vec<char> = text.chars().collect();
        for piece in chars.chunks(chunk) {
            append_capped(&mut kept, &piece.iter().collect::<String>());
        }
        let lines: Vec<&str> = kept.lines().collect();
        assert_eq!(lines.len(), 3, "chunk {chunk}");
        assert_eq!(lines[0], "before");
        assert!(lines[1].ends_with(CUT_MARK), "chunk {chunk}");
        assert!(
            lines[1].len() <= LINE_MAX_BYTES + CUT_MARK.len(),
            "chunk {chunk}"
        );
        assert!(lines[1].starts_with("éé"), "chunk {chunk}");
        assert_eq!(lines[2], "after", "chunk {chunk}");
    }
}
