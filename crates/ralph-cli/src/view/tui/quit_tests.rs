//! `q` under `ralph run --tui` asks whether to stop the loop; a loop that ends meanwhile
//! answers it: the question goes and the end is shown.

use ralph_core::machine::CompletionSignal;

use super::*;

/// The loop, started with one iteration running, ends completed.
fn finish(model: &mut RunModel) {
    let reason = StopReason::Completed {
        promise: "LOOP_COMPLETE".into(),
        signal: CompletionSignal::Event,
    };
    feed(
        model,
        &RunEvent::LoopFinished {
            reason: &reason,
            message: "completed".to_owned(),
            outcome: reason.class(),
            exit_code: 0,
            totals: totals(1, 0.0),
            summary_path: "s.md",
            git: None,
        },
    );
}

/// A running loop and the view's `q` question up.
fn asked() -> (RunModel, App) {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let mut app = App::new(true);
    assert_eq!(key(&mut app, &mut model, KeyCode::Char('q')), Request::None);
    assert!(screen(&model, &mut app, 80, 24).contains("stop the loop and quit? (y/n)"));
    (model, app)
}

#[test]
fn the_quit_question_goes_when_the_loop_ends_and_the_end_is_shown() {
    let (mut model, mut app) = asked();
    iteration_finished(&mut model, 1, "builder", &IterationOutcome::Succeeded);
    finish(&mut model);
    let shown = screen(&model, &mut app, 80, 24);
    assert!(!shown.contains("stop the loop"), "{shown}");
    let status = shown.lines().last().unwrap();
    assert!(status.contains("completed"), "{shown}");
    // `n` no longer answers anything, and `q` now leaves at once.
    key(&mut app, &mut model, KeyCode::Char('n'));
    assert_ne!(app.message.as_deref(), Some("the loop goes on"));
    assert_eq!(key(&mut app, &mut model, KeyCode::Char('q')), Request::Quit);
}

#[test]
fn no_answered_after_the_end_does_not_say_the_loop_goes_on() {
    let (mut model, mut app) = asked();
    // The loop ends between two frames; the answer comes first.
    finish(&mut model);
    assert_eq!(key(&mut app, &mut model, KeyCode::Char('n')), Request::None);
    assert_eq!(app.message, None);
    let shown = screen(&model, &mut app, 80, 24);
    assert!(!shown.contains("goes on"), "{shown}");
    assert!(
        shown.lines().last().unwrap().contains("completed"),
        "{shown}"
    );
}

/// Raw mode turns Ctrl-\ into a key, as it does Ctrl-C; both stop the loop as their
/// signals do outside the view. Older terminals report Ctrl-\ as Ctrl-4.
#[test]
fn ctrl_backslash_stops_the_loop_as_ctrl_c_does() {
    let mut model = RunModel::default();
    loop_started(&mut model, "pi");
    iteration_started(&mut model, 1, "builder", "pi");
    let mut app = App::new(true);
    for code in ['c', '\\', '4'].map(KeyCode::Char) {
        let request = app.key(KeyEvent::new(code, KeyModifiers::CONTROL), &mut model);
        assert_eq!(request, Request::Interrupt, "{code:?}");
    }
    assert_eq!(key(&mut app, &mut model, KeyCode::Char('4')), Request::None);
}
