//! `summary.md`: what a run did and why it stopped, for a person reading it afterwards.
//! Built from the loop state alone (pure), so it says the same whether the run ended
//! normally, hit a limit or was interrupted.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::time::Duration;

use ralph_stream::Tokens;

use crate::count_text::count;
use crate::machine::{
    DEFAULT_HAT, GateEnd, LoopState, RateLimitTally, Spend, StopReason, format_duration, verdict,
};
use crate::run_event::format_usd;
use crate::steer::SteerTally;
use crate::token_count::TokenCount;
use crate::visible::visible;

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
    /// What `ralph steer` sent the run.
    pub steering: SteerTally,
}

/// How many lines of the task the summary quotes.
const OBJECTIVE_LINES: usize = 3;
/// The most pending events the summary lists (a queue can hold thousands).
const PENDING_SHOWN: usize = 20;
/// Characters of a pending event's payload shown (its first line).
const PAYLOAD_SHOWN_CHARS: usize = 120;

/// The text of `summary.md`.
pub fn render_summary(input: &SummaryInput<'_>) -> String {
    let s = input.state;
    let mut out = String::new();
    let _ = writeln!(out, "# ralph run {}\n", input.run_id);
    let _ = writeln!(out, "**Stopped:** {}\n", verdict(input.reason, s));
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
    let _ = writeln!(out, "| Cost | {} |", spent(&s.spend, s.iterations));
    let _ = writeln!(
        out,
        "| Tokens | {} |",
        tokens_detail(&s.spend.tokens, s.spend.tokens_complete())
    );
    if !s.rate_limit_tally.is_empty() {
        let _ = writeln!(
            out,
            "| Rate limits | {} |",
            rate_limits(&s.rate_limit_tally)
        );
    }
    if input.steering.received > 0 {
        let _ = writeln!(out, "| Steering | {} |", steering(&input.steering));
    }

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

    let mut hat_ids: Vec<(&str, &str)> = input.hats.to_vec();
    if s.hats.contains_key(DEFAULT_HAT) && !hat_ids.iter().any(|(id, _)| *id == DEFAULT_HAT) {
        hat_ids.push((DEFAULT_HAT, DEFAULT_HAT));
    }
    let hat_rows = hat_ids.into_iter().map(|(id, name)| match s.hats.get(id) {
        None => vec![
            name.to_owned(),
            "0".into(),
            "0".into(),
            "-".into(),
            "-".into(),
            "-".into(),
        ],
        Some(h) => vec![
            name.to_owned(),
            h.iterations.to_string(),
            h.failures.to_string(),
            format_duration(Duration::from_millis(h.duration_ms)),
            spent(&h.spend, h.iterations),
            TokenCount::of(h.spend.tokens.total(), h.spend.tokens_complete()).cell(thousands),
        ],
    });
    table(
        &mut out,
        "Hats",
        &["Hat", "Iterations", "Failed", "Time", "Cost", "Tokens"],
        hat_rows,
    );
    if !s.gates.is_empty() {
        let gate_rows = s.gates.iter().map(|(name, g)| {
            let last = match g.last {
                Some(GateEnd::Passed) => "passed",
                Some(GateEnd::Exit) => "failed",
                Some(GateEnd::Timeout) => "timed out",
                Some(GateEnd::Spawn) => "could not start",
                Some(GateEnd::Interrupted) => "interrupted",
                Some(GateEnd::RuntimeLimit) => "stopped at the runtime limit",
                None => "-",
            };
            vec![
                name.clone(),
                g.runs.to_string(),
                g.passed.to_string(),
                format_duration(Duration::from_millis(g.duration_ms)),
                format!("{last} (iteration {})", g.last_iteration),
            ]
        });
        table(
            &mut out,
            "Gates",
            &["Gate", "Runs", "Passed", "Time", "Last result"],
            gate_rows,
        );
    }

    // A completed run is over: what is left in its queue will never run, and
    // `--continue` refuses it; still listed, so that work dropped at the end is seen.
    let completed = matches!(input.reason, StopReason::Completed { .. });
    if !s.pending.is_empty() {
        out.push_str(if completed {
            "\n## Left in the queue\n\nThe task was declared complete while these events \
             still waited for a hat; no iteration handled them.\n\n"
        } else {
            "\n## Pending events\n\n"
        });
        for event in s.pending.iter().take(PENDING_SHOWN) {
            match event.payload_text() {
                Some(p) => {
                    let first = p.lines().next().unwrap_or_default();
                    let shown = crate::inbox::excerpt(first, PAYLOAD_SHOWN_CHARS);
                    let _ = writeln!(out, "- `{}`: {shown}", event.topic);
                }
                None => {
                    let _ = writeln!(out, "- `{}`", event.topic);
                }
            }
        }
        if let Some(more) = s
            .pending
            .len()
            .checked_sub(PENDING_SHOWN)
            .filter(|n| *n > 0)
        {
            let _ = writeln!(
                out,
                "- and {more} more ({}`state.json` has them all)",
                if completed {
                    ""
                } else {
                    "`ralph run --continue` hands them on; "
                }
            );
        }
    }
    out.push_str(if completed {
        "\nEvery iteration is recorded in `history.jsonl` next to this file. The task is \
         complete; `ralph run` starts a new run.\n"
    } else {
        "\nEvery iteration is recorded in `history.jsonl` next to this file; \
         `ralph run --continue` resumes the run.\n"
    });
    // Hat names, topics, payloads and the task are other people's text; read with `cat`,
    // the file must not act on the terminal.
    match visible(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(shown) => shown,
    }
}

/// A Markdown section holding a table: the first column is text, the others figures
/// (right-aligned).
fn table(
    out: &mut String,
    heading: &str,
    columns: &[&str],
    rows: impl Iterator<Item = Vec<String>>,
) {
    let _ = write!(out, "\n## {heading}\n\n| {} |\n|---|", columns.join(" | "));
    out.push_str(&"---:|".repeat(columns.len().saturating_sub(1)));
    out.push('\n');
    for row in rows {
        let _ = writeln!(out, "| {} |", row.join(" | "));
    }
}

/// `3 messages: 1 delivered mid-turn, 1 in a prompt, 1 still queued`.
pub fn steering(t: &SteerTally) -> String {
    let mut parts = Vec::new();
    if t.mid_turn > 0 {
        parts.push(format!(
            "{} mid-turn",
            count(u64::from(t.mid_turn), "delivered", "delivered")
        ));
    }
    if t.in_prompt > 0 {
        parts.push(count(u64::from(t.in_prompt), "in a prompt", "in prompts"));
    }
    if t.pending > 0 {
        parts.push(format!("{} still queued", t.pending));
    }
    format!(
        "{}: {}",
        count(u64::from(t.received), "message", "messages"),
        parts.join(", ")
    )
}

/// `2 waits, 4m 12s in all; 1 failover`: what provider limits cost the run.
pub fn rate_limits(t: &RateLimitTally) -> String {
    let waited = format_duration(Duration::from_millis(t.waited_ms));
    let mut parts = Vec::new();
    match t.waits {
        0 => {}
        1 => parts.push(format!("1 wait of {waited}")),
        n => parts.push(format!("{n} waits, {waited} in all")),
    }
    match t.failovers {
        0 => {}
        1 => parts.push("1 failover".to_owned()),
        n => parts.push(format!("{n} failovers")),
    }
    parts.join("; ")
}

/// What is known of a cost of `usd` over `iterations`, `unpriced` of which reported
/// none: the cost and whether it is complete (else a lower bound), or `None` when
/// nothing was priced.
///
/// `unpriced` counts attempts that ended on a provider's limit too, which `iterations`
/// does not: more unpriced than iterations is not "nothing priced" while a cost was
/// reported (a limited Claude attempt's, say).
pub fn known_cost(usd: f64, unpriced: u32, iterations: u32) -> (Option<f64>, bool) {
    match unpriced {
        0 => (Some(usd), true),
        u if u >= iterations && usd == 0.0 => (None, false),
        _ => (Some(usd), false),
    }
}

/// What `iterations` iterations spent, in words: `$0.0123`, with a note when some of
/// them did not report all of their cost ([`known_cost`]). The note tells those that
/// reported none from those that reported a part (a stream cut in a model call), whose
/// part the amount holds, and counts attempts when some of the unpriced were attempts a
/// provider's limit ended and that ran again (not iterations), or when there are more of
/// them than iterations (a run's files from before attempts were told apart). When some
/// of the cost is ralph's estimate, the amount is marked `~` and the note says so: an
/// estimate added to reported costs makes the sum an estimate.
pub fn spent(spend: &Spend, iterations: u32) -> String {
    let unpriced = spend.unpriced_iterations;
    let (usd, complete) = match known_cost(spend.cost_usd, unpriced, iterations) {
        (None, _) => return "unknown (the agent reported no cost)".to_owned(),
        (Some(usd), complete) => (usd, complete),
    };
    let some_attempts = spend.unpriced_attempts > 0 || unpriced > iterations;
    let (one, many) = if some_attempts {
        ("attempt", "attempts")
    } else {
        ("iteration", "iterations")
    };
    let partly = spend.partly_priced_iterations.min(unpriced);
    let mut notes = Vec::new();
    if !complete {
        match unpriced - partly {
            0 => {}
            1 => notes.push(format!("1 {one} reported no cost")),
            n => notes.push(format!("{n} {many} reported no cost")),
        }
        match partly {
            0 => {}
            1 => notes.push(format!("1 {one} reported only part of its cost")),
            n => notes.push(format!("{n} {many} reported only part of their cost")),
        }
    }
    if spend.cost_estimated() {
        notes.push(ESTIMATES_NOTE.to_owned());
    }
    let lower_bound = if complete { "" } else { "at least " };
    let mark = if spend.cost_estimated() { "~" } else { "" };
    let amount = format!("{lower_bound}{mark}{}", format_usd(usd));
    if notes.is_empty() {
        amount
    } else {
        format!("{amount} ({})", notes.join("; "))
    }
}

/// What a run's cost says when some of it is ralph's estimate.
pub const ESTIMATES_NOTE: &str = "includes estimates";

/// The run's tokens with their parts; `unknown` when no agent counted any, `at least …`
/// when some did not.
fn tokens_detail(t: &Tokens, complete: bool) -> String {
    let total = match TokenCount::of(t.total(), complete) {
        TokenCount::Unknown => return "unknown".to_owned(),
        TokenCount::Counted(n) => thousands(n),
        TokenCount::AtLeast(n) => format!("at least {}", thousands(n)),
    };
    format!(
        "{total} (input {}, output {}, cache read {}, cache write {})",
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
#[path = "summary_tests.rs"]
mod tests;
