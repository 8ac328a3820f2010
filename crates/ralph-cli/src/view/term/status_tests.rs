use super::*;

#[test]
fn the_spinner_turns_and_the_clock_counts() {
    let lines: Vec<String> = [0, 150, 12_050]
        .map(|ms| status_line("iteration 2", Duration::from_millis(ms), "thinking", 80))
        .to_vec();
    assert_eq!(
        lines,
        vec![
            "⠋ iteration 2 · 0:00 · thinking",
            "⠙ iteration 2 · 0:00 · thinking",
            "⠋ iteration 2 · 0:12 · thinking",
        ]
    );
}

#[test]
fn the_status_line_never_wraps() {
    let line = status_line(
        "iteration 1",
        Duration::ZERO,
        "running bash  cargo test --all",
        20,
    );
    assert_eq!(line, "⠋ iteration 1 · 0:…");
    assert_eq!(line.chars().count(), 19);
}

#[test]
fn wide_characters_count_as_the_columns_they_take() {
    // An agent's command in CJK and emoji: each takes two columns, so a line of 51
    // characters can take 59 and wrap on a 52-column terminal.
    let doing = "running bash  echo 日本語日本語日本語日本語日本語 🦀🦀";
    for columns in 2..80 {
        let line = status_line("iteration 1", Duration::from_secs(2), doing, columns);
        let taken = crate::view::columns::columns(&line);
        assert!(taken < columns, "{columns}: {line:?} takes {taken}");
    }
    let line = status_line("iteration 1", Duration::from_secs(2), doing, 52);
    assert_eq!(line, "⠋ iteration 1 · 0:02 · running bash  echo 日本語日…");
}
