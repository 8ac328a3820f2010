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
