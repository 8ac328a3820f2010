//! `summary.md`: what a run did and why it stopped, for a person reading it afterwards.
//! Built from the loop state alone (pure), so it says the same whether the run ended
//! normally, hit a limit or was interrupted.

use std::fmt::Write as _;
use std::time::Duration;

use ralph_stream::Tokens;

use crate::machine::{DEFAULT_HAT, LoopState, StopReason, format_duration};

/// What the summary is written from.
#[derive(Clone, Debug)]
pub struct SummaryInput<'a> {
    pub run_id: &'a str,
    pub objective: &'a str,
    pub reason: &'a StopReason,
    pub state: &'a LoopState,
    pub max_iterations: u32,
    /// Configured hats as `(id, name)`, in config order.
    pub hats: &'a [(&'a str, &'a str)],
}

/// How many lines of the task the summary quotes.
const OBJECTIVE_LINES: usize = 3;

/// The text of `summary.md`.
pub fn render_summary(input: &SummaryInput<'_>) -> String {
    let s = input.state;
    let mut out = String::new();
    let _ = writeln!(out, "# ralph run {}\n", input.run_id);
    let _ = writeln!(out, "**Stopped:** {}\n", input.reason);
    out.push_str("| | |\n|---|---|\n");
    let _ = writeln!(
        out,
        "| Iterations | {} of {} |",
        s.iterations, input.max_iterations
    );
    let _ = writeln!(
        out,
        "| Time | {} |",
        format_duration(Duration::from_millis(s.runtime_ms))
    );
    let _ = writeln!(
        out,
        "| Cost | {} |",
        cost(s.cost_usd, s.unpriced_iterations, s.iterations)
    );
    let _ = writeln!(out, "| Tokens | {} |", tokens_detail(&s.tokens));

    let objective: Vec<&str> = input
        .objective
        .lines()
        .filter(|l| !l.trim().is_empty())
        .collect();
    if !objective.is_empty() {
        out.push_str("\n## Task\n\n");
        for line in objective.iter().take(OBJECTIVE_LINES) {
            let _ = writeln!(out, "> {}", line.trim_end());
        }
        if objective.len() > OBJECTIVE_LINES {
            out.push_str("> …\n");
        }
    }

    out.push_str(
        "\n## Hats\n\n| Hat | Iterations | Failed | Time | Cost | Tokens |\n\
         |---|---:|---:|---:|---:|---:|\n",
    );
    let mut rows: Vec<(&str, &str)> = input.hats.to_vec();
    if s.hats.contains_key(DEFAULT_HAT) && !rows.iter().any(|(id, _)| *id == DEFAULT_HAT) {
        rows.push((DEFAULT_HAT, DEFAULT_HAT));
    }
    for (id, name) in rows {
        let Some(h) = s.hats.get(id) else {
            let _ = writeln!(out, "| {name} | 0 | 0 | - | - | - |");
            continue;
        };
        let _ = writeln!(
            out,
            "| {name} | {} | {} | {} | {} | {} |",
            h.iterations,
            h.failures,
            format_duration(Duration::from_millis(h.duration_ms)),
            cost(h.cost_usd, h.unpriced_iterations, h.iterations),
            thousands(h.tokens.total()),
        );
    }

    if !s.pending.is_empty() {
        out.push_str("\n## Pending events\n\n");
        for event in &s.pending {
            match event.payload_text() {
                Some(p) => {
                    let first = p.lines().next().unwrap_or_default();
                    let _ = writeln!(out, "- `{}`: {first}", event.topic);
                }
                None => {
                    let _ = writeln!(out, "- `{}`", event.topic);
                }
            }
        }
    }
    out.push_str(
        "\nEvery iteration is recorded in `history.jsonl` next to this file; \
         `ralph run --continue` resumes the run.\n",
    );
    out
}

/// `$0.0123`, with a note when some iterations reported no cost.
pub fn cost(usd: f64, unpriced: u32, iterations: u32) -> String {
    match (unpriced, iterations) {
        (0, _) => format!("${usd:.4}"),
        (u, n) if u >= n => "unknown (the agent reported no cost)".to_owned(),
        (u, _) => format!("at least ${usd:.4} ({u} iterations reported no cost)"),
    }
}

fn tokens_detail(t: &Tokens) -> String {
    format!(
        "{} (input {}, output {}, cache read {}, cache write {})",
        thousands(t.total()),
        thousands(t.input),
        thousands(t.output),
        thousands(t.cache_read),
        thousands(t.cache_write)
    )
}

/// `12,345`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::event::Event;
    use crate::machine::{CompletionSignal, HatTotals};

    #[test]
    fn numbers_get_thousands_separators() {
        let shown: Vec<_> = [0, 999, 1000, 1_234_567].map(thousands).to_vec();
        assert_eq!(shown, vec!["0", "999", "1,000", "1,234,567"]);
    }

    #[test]
    fn a_summary_says_why_the_run_stopped_and_what_each_hat_did() {
        let tokens = Tokens {
            input: 12_000,
            output: 800,
            cache_read: 4000,
            cache_write: 200,
        };
        let state = LoopState {
            iterations: 3,
            runtime_ms: 133_000,
            cost_usd: 0.0423,
            tokens,
            pending: [Event::with_text("review.rejected", "tests fail\nsee log")].into(),
            hats: BTreeMap::from([
                (
                    "planner".to_owned(),
                    HatTotals {
                        iterations: 1,
                        failures: 0,
                        duration_ms: 12_000,
                        cost_usd: 0.01,
                        unpriced_iterations: 0,
                        tokens,
                    },
                ),
                (
                    "builder".to_owned(),
                    HatTotals {
                        iterations: 2,
                        failures: 1,
                        duration_ms: 121_000,
                        cost_usd: 0.0323,
                        unpriced_iterations: 1,
                        tokens,
                    },
                ),
            ]),
            ..LoopState::default()
        };
        let reason = StopReason::Completed {
            promise: "LOOP_COMPLETE".into(),
            signal: CompletionSignal::Event,
        };
        let text = render_summary(&SummaryInput {
            run_id: "20261126T101500Z",
            objective: "Add a flag.\n\nDetails:\n- one\n- two\n",
            reason: &reason,
            state: &state,
            max_iterations: 100,
            hats: &[
                ("planner", "Planner"),
                ("builder", "Builder"),
                ("reviewer", "Reviewer"),
            ],
        });
        assert_eq!(
            text,
            "# ralph run 20261126T101500Z

**Stopped:** completed: the agent emitted LOOP_COMPLETE

| | |
|---|---|
| Iterations | 3 of 100 |
| Time | 2m 13s |
| Cost | $0.0423 |
| Tokens | 17,000 (input 12,000, output 800, cache read 4,000, cache write 200) |

## Task

> Add a flag.
> Details:
> - one
> …

## Hats

| Hat | Iterations | Failed | Time | Cost | Tokens |
|---|---:|---:|---:|---:|---:|
| Planner | 1 | 0 | 12.0s | $0.0100 | 17,000 |
| Builder | 2 | 1 | 2m 01s | at least $0.0323 (1 iterations reported no cost) | 17,000 |
| Reviewer | 0 | 0 | - | - | - |

## Pending events

- `review.rejected`: tests fail

Every iteration is recorded in `history.jsonl` next to this file; `ralph run --continue` resumes the run.
"
        );
    }
}
