//! How gates look in the text view: a line when one starts, its verdict and duration
//! when it ends, and on failure the end of its output and where its log is.

use anstyle::Style;

use ralph_core::machine::{GateEnd, GateResult};
use ralph_core::summary::thousands;

use super::figures::duration_ms;
use super::palette;

/// How many lines of a failed gate's output the view shows (the agent gets more, in
/// `gate.failed`; the log has all of it).
pub(crate) const SHOWN_OUTPUT_LINES: usize = 12;

/// `▸ gate tests · cargo test · checks LOOP_COMPLETE`.
pub(crate) fn started(gate: &str, command: &str, event: Option<&str>) -> (Style, String) {
    let checks = event.map(|e| format!(" · checks {e}")).unwrap_or_default();
    (palette::DIM, format!("▸ gate {gate} · {command}{checks}"))
}

/// How a gate ended, in words: `passed`, `failed (exit code 101)`, `timed out, stopped`…
/// (the full-screen view says it the same way).
pub(crate) fn verdict(end: GateEnd, exit_code: Option<i32>) -> String {
    match (end, exit_code) {
        (GateEnd::Passed, _) => "passed".to_owned(),
        (GateEnd::Exit, Some(code)) => format!("failed (exit code {code})"),
        (GateEnd::Exit, None) => "failed (killed by a signal)".to_owned(),
        (GateEnd::Timeout, _) => "timed out, stopped".to_owned(),
        (GateEnd::Spawn, _) => "could not start".to_owned(),
        (GateEnd::Interrupted, _) => "interrupted".to_owned(),
        (GateEnd::RuntimeLimit, _) => "stopped at the runtime limit".to_owned(),
    }
}

/// The verdict line, then (on failure) the output's last lines and the log's path.
pub(crate) fn finished(result: &GateResult) -> Vec<(Style, String)> {
    let took = duration_ms(result.duration_ms);
    let verdict = verdict(result.end, result.exit_code);
    if result.end == GateEnd::Passed {
        return vec![(
            palette::SUCCESS,
            format!("✓ gate {} {verdict} · {took}", result.gate),
        )];
    }
    let withheld = if result.event.is_empty() {
        String::new()
    } else {
        format!(" · {} withheld", result.event)
    };
    let mut lines = vec![(
        palette::ERROR,
        format!("✗ gate {} {verdict} · {took}{withheld}", result.gate),
    )];
    let output: Vec<&str> = result.output.lines().collect();
    let from = output.len().saturating_sub(SHOWN_OUTPUT_LINES);
    if from > 0 {
        // `output` is only the end of what the gate printed, without its blank lines:
        // how many came before the lines shown is not known, the whole count is.
        let earlier = match result.output_lines {
            0 => "  │ … earlier lines left out".to_owned(),
            all => format!("  │ … the last of {} lines:", thousands(all)),
        };
        lines.push((palette::DIM, earlier));
    }
    for l in &output[from..] {
        lines.push((palette::DIM, format!("  │ {l}")));
    }
    if let Some(log) = &result.log {
        lines.push((palette::DIM, format!("  log: {log}")));
    }
    lines
}
