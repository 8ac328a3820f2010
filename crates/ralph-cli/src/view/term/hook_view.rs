//! How hooks look in the text view: a line when one ends (passed quietly, failed with
//! what ralph does about it and the end of its output), and with `-v` a line when one
//! starts.

use ralph_core::hooks::policy::HookAction;
use ralph_core::run_event::RunEvent;

use super::figures::duration_ms;
use super::palette;
use super::run_view::{Detail, line};
use super::tool_preview::one_line;

/// Renders a `hook_started` or `hook_finished` event; other events add nothing.
pub(super) fn render(event: &RunEvent<'_>, detail: Detail, out: &mut String) {
    match event {
        RunEvent::HookStarted {
            phase,
            hook,
            attempt,
            ..
        } if detail == Detail::Verbose => {
            let again = if *attempt > 1 {
                format!(" (attempt {attempt})")
            } else {
                String::new()
            };
            line(
                out,
                palette::DIM,
                &format!("▸ hook {hook} · {phase}{again}"),
            );
        }
        RunEvent::HookFinished {
            phase,
            hook,
            passed,
            message,
            duration_ms: ms,
            action,
            output_tail,
            log_path,
            ..
        } => {
            if *passed {
                line(
                    out,
                    palette::DIM,
                    &format!("✓ hook {hook} · {phase} · {}", duration_ms(*ms)),
                );
                return;
            }
            let (style, then) = match action {
                HookAction::Warn => (palette::NOTICE, "going on"),
                HookAction::Block => (palette::ERROR, "the loop stops"),
                HookAction::Retry => (palette::NOTICE, "retrying"),
                HookAction::Suspend => (
                    palette::NOTICE,
                    "the loop waits: run `ralph hooks resume` to go on",
                ),
                // Ctrl-C stopped it; its message already says "interrupted".
                HookAction::Stop => (palette::NOTICE, "the run ends"),
                HookAction::Continue => (palette::NOTICE, "going on"),
            };
            let why = message.unwrap_or("failed");
            line(
                out,
                style,
                &format!("✗ hook {hook} · {phase} · {why} · {then}"),
            );
            for l in output_tail.unwrap_or_default().lines() {
                line(out, palette::DIM, &format!("  {}", one_line(l)));
            }
            line(out, palette::DIM, &format!("  log: {log_path}"));
        }
        _ => {}
    }
}

#[cfg(test)]
#[path = "hook_view_tests.rs"]
mod tests;
