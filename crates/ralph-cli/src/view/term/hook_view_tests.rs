use ralph_core::hooks::policy::{HookAction, HookFailure};

use super::*;

fn finished(passed: bool, action: HookAction) -> RunEvent<'static> {
    RunEvent::HookFinished {
        phase: "pre.loop.start",
        hook: "guard",
        iteration: None,
        attempt: 1,
        passed,
        failure: (!passed).then_some(HookFailure::Exit),
        exit_code: Some(if passed { 0 } else { 3 }),
        message: (!passed).then_some("exited with code 3"),
        duration_ms: 1200,
        action,
        output_tail: (!passed).then_some("no token\n\x1b[31mbad\x1b[0m"),
        log_path: ".ralph/runs/r/hooks/1-pre.loop.start-guard.log",
    }
}

fn shown(event: &RunEvent<'_>, detail: Detail) -> String {
    let mut out = String::new();
    render(event, detail, &mut out);
    anstream::adapter::strip_str(&out).to_string()
}

#[test]
fn a_passing_hook_is_one_quiet_line() {
    assert_eq!(
        shown(&finished(true, HookAction::Continue), Detail::Normal),
        "✓ hook guard · pre.loop.start · 1.2s\n"
    );
}

#[test]
fn a_failing_hook_says_what_happens_next_and_shows_its_output() {
    let text = shown(&finished(false, HookAction::Block), Detail::Normal);
    // An escape sequence in the output is shown, never sent to the terminal.
    assert_eq!(
        text,
        "✗ hook guard · pre.loop.start · exited with code 3 · the loop stops\n  no token\n  \
         \\u{1b}[31mbad\\u{1b}[0m\n  log: .ralph/runs/r/hooks/1-pre.loop.start-guard.log\n"
    );
    assert!(
        shown(&finished(false, HookAction::Suspend), Detail::Normal)
            .contains("run `ralph hooks resume` to go on")
    );
}

#[test]
fn starts_are_shown_with_verbose_only() {
    let started = RunEvent::HookStarted {
        phase: "post.loop.complete",
        hook: "notify",
        iteration: Some(2),
        attempt: 2,
        command: "./notify.sh",
    };
    assert_eq!(shown(&started, Detail::Normal), "");
    assert_eq!(
        shown(&started, Detail::Verbose),
        "▸ hook notify · post.loop.complete (attempt 2)\n"
    );
}

#[test]
fn a_hook_stopped_by_ctrl_c_says_so_once() {
    let event = RunEvent::HookFinished {
        phase: "pre.loop.complete",
        hook: "approve",
        iteration: None,
        attempt: 1,
        passed: false,
        failure: Some(HookFailure::Interrupted),
        exit_code: None,
        message: Some("interrupted"),
        duration_ms: 1200,
        action: HookAction::Stop,
        output_tail: None,
        log_path: "approve.log",
    };
    let text = shown(&event, Detail::Normal);
    assert!(
        text.starts_with("✗ hook approve · pre.loop.complete · interrupted · the run ends\n"),
        "{text}"
    );
}
