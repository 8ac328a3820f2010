//! How steering looks in the text view: a line when a `ralph steer` message reaches the
//! loop (where it went), with `-v` a line when a prompt carries it, and a count in the
//! closing lines.

use ralph_core::run_event::RunEvent;
use ralph_core::steer::SteerVia;

use super::figures::count;
use super::palette;
use super::run_view::{Detail, line};
use super::tool_preview::one_line;

/// The messages this view saw, for the closing lines.
#[derive(Debug, Default)]
pub(super) struct SteerCount {
    received: u64,
}

impl SteerCount {
    /// Renders a `steer_received` or `steer_delivered` event, counting what arrived.
    pub(super) fn render(&mut self, event: &RunEvent<'_>, detail: Detail, out: &mut String) {
        match event {
            RunEvent::SteerReceived { message, went, .. } => {
                self.received += 1;
                line(
                    out,
                    palette::EVENT,
                    &format!("✉ steer “{}” → {went}", one_line(message)),
                );
            }
            RunEvent::SteerDelivered {
                iteration,
                via: SteerVia::Prompt,
                ..
            } if detail == Detail::Verbose => {
                line(
                    out,
                    palette::DIM,
                    &format!("✉ a steering message goes into the prompt of iteration {iteration}"),
                );
            }
            _ => {}
        }
    }

    /// `  steering: 2 messages`, when there were any.
    pub(super) fn closing(&self, out: &mut String) {
        if self.received > 0 {
            let shown = count(self.received, "message", "messages");
            line(
                out,
                anstyle::Style::new(),
                &format!("  steering: {shown} (the run's steering.jsonl has them)"),
            );
        }
    }
}

#[cfg(test)]
#[path = "steer_view_tests.rs"]
mod tests;
