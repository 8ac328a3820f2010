//! A long iteration scrolled: what a frame lays out wherever the window is, the window
//! staying where it is while the agent writes, and search landing on each matching line.

use ralph_stream::AgentEvent;

use super::*;

/// The transcript's rows on an 80×24 screen: less the header, the title and the status.
const ROWS: usize = 24 - 4;

/// What one frame may lay out: the rows it shows, the rows of the end it may look at
/// when asked past it, and the few of the lines it starts or ends in the middle of.
const FRAME_WORK: usize = 3 * ROWS;

fn write(model: &mut RunModel, iteration: u32, text: &str) {
    feed(
        model,
        &RunEvent::Agent {
            iteration,
            event: &AgentEvent::TextDelta { text: text.into() },
        },
    );
}

/// A running iteration 1 whose agent wrote `rows` lines, `row 1` to `row <rows>`.
fn long_iteration(rows: usize) -> RunModel {
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    let text: String = (1..=rows).map(|n| format!("row {n}\n")).collect();
    write(&mut model, 1, &text);
    model
}

/// The transcript's first row on screen (the row under its title).
fn top_row(shown: &str) -> String {
    let row = shown.lines().nth(3).unwrap_or_default();
    // Past the iteration list, when it is shown.
    row.chars()
        .skip(30)
        .collect::<String>()
        .trim_end()
        .to_owned()
}

#[test]
fn a_frame_lays_out_what_is_on_screen_wherever_the_window_is() {
    let mut model = long_iteration(200_000);
    let mut app = App::new(true);
    let shown = screen(&model, &mut app, 80, 24);
    assert!(shown.contains("row 200000"), "{shown}");
    assert!(app.laid_out <= FRAME_WORK, "{}", app.laid_out);

    key(&mut app, &mut model, KeyCode::Char('g'));
    let shown = screen(&model, &mut app, 80, 24);
    assert_eq!(top_row(&shown), "row 1");
    assert!(app.laid_out <= FRAME_WORK, "at the top: {}", app.laid_out);

    for _ in 0..3 {
        key(&mut app, &mut model, KeyCode::PageDown);
    }
    key(&mut app, &mut model, KeyCode::Char('k'));
    let shown = screen(&model, &mut app, 80, 24);
    // Three pages of a line less than the window, then a line back.
    let expected = format!("row {}", 1 + 3 * (ROWS - 1) - 1);
    assert_eq!(top_row(&shown), expected);
    assert!(app.laid_out <= FRAME_WORK, "paged down: {}", app.laid_out);

    // The clock's redraw a second later lays out as little.
    screen(&model, &mut app, 80, 24);
    assert!(app.laid_out <= FRAME_WORK, "redrawn: {}", app.laid_out);
}

#[test]
fn with_follow_off_the_lines_on_screen_stay_put_as_the_agent_writes() {
    let mut model = long_iteration(100);
    let mut app = App::new(true);
    screen(&model, &mut app, 80, 24);
    for _ in 0..5 {
        key(&mut app, &mut model, KeyCode::Char('k'));
    }
    let before = screen(&model, &mut app, 80, 24);
    assert_eq!(top_row(&before), format!("row {}", 100 - ROWS + 1 - 5));
    write(&mut model, 1, "row 101\nrow 102\nrow 103\n");
    assert_eq!(screen(&model, &mut app, 80, 24), before);

    // At the end with follow off (G), the end shown then stays too.
    key(&mut app, &mut model, KeyCode::Char('G'));
    let end = screen(&model, &mut app, 80, 24);
    assert!(end.contains("row 103"), "{end}");
    write(&mut model, 1, "row 104\n");
    assert_eq!(screen(&model, &mut app, 80, 24), end);

    // Following again, the end is kept in view.
    key(&mut app, &mut model, KeyCode::Char('f'));
    assert!(screen(&model, &mut app, 80, 24).contains("row 104"));
}

#[test]
fn search_finds_counts_and_shows_each_matching_line() {
    let mut model = RunModel::default();
    loop_started(&mut model, "custom");
    iteration_started(&mut model, 1, "builder", "custom");
    let text: String = (1..=500)
        .map(|n| match n {
            100 | 200 | 450 => format!("row {n} NEEDLE\n"),
            n => format!("row {n}\n"),
        })
        .collect();
    write(&mut model, 1, &text);
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    iteration_started(&mut model, 2, "builder", "custom");
    write(&mut model, 2, "one more needle\n");
    let mut app = App::new(true);
    screen(&model, &mut app, 80, 24);
    key(&mut app, &mut model, KeyCode::Up);
    key(&mut app, &mut model, KeyCode::Char('/'));
    for c in "needle".chars() {
        key(&mut app, &mut model, KeyCode::Char(c));
    }
    key(&mut app, &mut model, KeyCode::Enter);
    let mut seen = Vec::new();
    for _ in 0..5 {
        let shown = screen(&model, &mut app, 80, 24);
        seen.push((app.message.clone().unwrap_or_default(), top_row(&shown)));
        key(&mut app, &mut model, KeyCode::Char('n'));
    }
    let expected = [
        ("match 1/4 in iteration 1", "row 100 NEEDLE"),
        ("match 2/4 in iteration 1", "row 200 NEEDLE"),
        ("match 3/4 in iteration 1", "row 450 NEEDLE"),
        ("match 4/4 in iteration 2", "one more needle"),
        ("match 1/4 in iteration 1", "row 100 NEEDLE"),
    ];
    let expected: Vec<(String, String)> = expected
        .iter()
        .map(|(m, r)| ((*m).to_owned(), (*r).to_owned()))
        .collect();
    assert_eq!(seen, expected);
    // Back from the second: the first, around to the last, then the third.
    for _ in 0..3 {
        key(&mut app, &mut model, KeyCode::Char('N'));
    }
    let shown = screen(&model, &mut app, 80, 24);
    assert_eq!(app.message.as_deref(), Some("match 3/4 in iteration 1"));
    assert_eq!(top_row(&shown), "row 450 NEEDLE");
}

#[test]
fn a_match_in_a_folded_tool_output_unfolds_it_on_screen() {
    let mut model = long_iteration(100);
    bash_call(&mut model, "t1", "make");
    let output: String = (1..=60).map(|n| format!("out {n}\n")).collect();
    feed(
        &mut model,
        &RunEvent::Agent {
            iteration: 1,
            event: &AgentEvent::ToolCallFinished {
                id: "t1".into(),
                name: None,
                output: format!("{output}the HIDDEN cause\n").into(),
                is_error: false,
            },
        },
    );
    write(&mut model, 1, "after the tool\n");
    let mut app = App::new(true);
    key(&mut app, &mut model, KeyCode::Char('/'));
    for c in "hidden".chars() {
        key(&mut app, &mut model, KeyCode::Char(c));
    }
    key(&mut app, &mut model, KeyCode::Enter);
    let shown = screen(&model, &mut app, 80, 24);
    assert_eq!(app.message.as_deref(), Some("match 1/1 in iteration 1"));
    assert!(shown.contains("│ the HIDDEN cause"), "{shown}");
}

#[test]
fn the_search_being_typed_shows_its_end_on_a_narrow_screen() {
    let mut model = long_iteration(3);
    let mut app = App::new(true);
    key(&mut app, &mut model, KeyCode::Char('/'));
    let typed = "the beginning of a long search that ends here";
    for c in typed.chars() {
        key(&mut app, &mut model, KeyCode::Char(c));
    }
    let status = |shown: String| shown.lines().last().unwrap().trim_end().to_owned();
    // Room for it all: all of it.
    assert_eq!(
        status(screen(&model, &mut app, 80, 10)),
        format!("/{typed}")
    );
    // Not: its end, where the typing is, after a mark that the start is cut.
    let narrow = status(screen(&model, &mut app, 20, 10));
    assert_eq!(narrow, "/…rch that ends here");
    assert_eq!(narrow.chars().count(), 20);
}
