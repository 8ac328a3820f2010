//! Two figures of the line view that come from adding up events: the per-hat table after
//! the verdict, and an iteration's context use (the input of its last model call).

use ralph_core::run_event::format_usd;
use ralph_core::summary::thousands;
use ralph_core::token_count::TokenCount;
use ralph_stream::AgentEvent;
use ralph_stream::CostKind;

use super::figures::count;
use crate::view::columns::{columns, pad_left, pad_right};

/// Context windows of model families, by name prefix, in tokens: what a model's last
/// input is shown against. A model not listed shows its input alone.
const CONTEXT_WINDOWS: &[(&str, u64)] = &[
    ("claude-", 200_000),
    ("gpt-5", 400_000),
    ("gemini-2.5", 1_048_576),
];

/// The context window of `model`, when ralph knows it.
pub(crate) fn context_window(model: &str) -> Option<u64> {
    // Providers prefix names (`anthropic/claude-…`): the family is the last part.
    let name = model.rsplit('/').next().unwrap_or(model);
    CONTEXT_WINDOWS
        .iter()
        .find(|(prefix, _)| name.starts_with(prefix))
        .map(|(_, window)| *window)
}

/// What the model read in the iteration's last call: its prompt, cached or not.
#[derive(Debug, Default)]
pub(crate) struct ContextUse {
    last_input: Option<u64>,
    model: Option<String>,
}

impl ContextUse {
    /// Follows the agent's turns.
    pub(crate) fn track(&mut self, event: &AgentEvent<'_>) {
        if let AgentEvent::TurnFinished { usage, .. } = event {
            let t = &usage.tokens;
            let input = t.input + t.cache_read + t.cache_write;
            // A turn that reports no input (a failed call) says nothing about the context.
            if input > 0 {
                self.last_input = Some(input);
            }
            if let Some(model) = &usage.model {
                self.model = Some(model.to_string());
            }
        }
    }

    /// `context 45,210 of 200,000 (23%)`, `context 45,210 tokens`, or nothing when the
    /// agent reported no turn's input.
    pub(crate) fn shown(&self, model: Option<&str>) -> Option<String> {
        let input = self.last_input?;
        let window = model.or(self.model.as_deref()).and_then(context_window);
        Some(match window {
            Some(window) => format!(
                "context {} of {} ({}%)",
                thousands(input),
                thousands(window),
                input * 100 / window
            ),
            None => format!("context {}", count(input, "token", "tokens")),
        })
    }
}

/// One hat's share of the run, as the closing table shows it.
#[derive(Debug)]
struct HatRow {
    hat: String,
    iterations: u32,
    cost_usd: f64,
    /// Some iteration of the hat reported no cost.
    cost_unknown: bool,
    /// Some iteration of the hat reported a cost: without one, `cost_usd` is no lower
    /// bound worth showing (`≥$0.0000` would read as nearly free).
    cost_reported: bool,
    /// Some iteration's cost is ralph's estimate: so is the hat's sum.
    cost_estimated: bool,
    tokens: u64,
    /// Some iteration of the hat had tokens nobody counted (Copilot's).
    tokens_uncounted: bool,
}

/// The per-hat totals of the iterations this view showed.
#[derive(Debug, Default)]
pub(crate) struct HatTable {
    rows: Vec<HatRow>,
}

impl HatTable {
    /// Adds an attempt of `hat`; `counted` says whether the run counted it as an
    /// iteration (an attempt limited by its provider and run again is not one, though
    /// what it spent is).
    pub(crate) fn add(
        &mut self,
        hat: &str,
        counted: bool,
        cost_usd: Option<f64>,
        cost_kind: CostKind,
        tokens: TokenCount,
    ) {
        let index = match self.rows.iter().position(|r| r.hat == hat) {
            Some(index) => index,
            None => {
                self.rows.push(HatRow {
                    hat: hat.to_owned(),
                    iterations: 0,
                    cost_usd: 0.0,
                    cost_unknown: false,
                    cost_reported: false,
                    cost_estimated: false,
                    tokens: 0,
                    tokens_uncounted: false,
                });
                self.rows.len() - 1
            }
        };
        let row = &mut self.rows[index];
        row.iterations += u32::from(counted);
        row.cost_usd += cost_usd.unwrap_or(0.0);
        row.cost_unknown |= cost_usd.is_none();
        row.cost_reported |= cost_usd.is_some();
        row.cost_estimated |= cost_kind == CostKind::Estimated;
        match tokens {
            TokenCount::Counted(n) => row.tokens += n,
            TokenCount::AtLeast(n) => {
                row.tokens += n;
                row.tokens_uncounted = true;
            }
            TokenCount::Unknown => row.tokens_uncounted = true,
        }
    }

    /// The table's lines (header first), or none when no hat ran.
    pub(crate) fn lines(&self) -> Vec<String> {
        if self.rows.is_empty() {
            return Vec::new();
        }
        let header = ["hat", "iterations", "cost", "tokens"].map(str::to_owned);
        let cells: Vec<[String; 4]> = self
            .rows
            .iter()
            .map(|r| {
                let mark = if r.cost_estimated { "~" } else { "" };
                let cost = match (r.cost_unknown, r.cost_reported) {
                    (true, false) => "unknown".to_owned(),
                    (true, true) => format!("≥{mark}{}", format_usd(r.cost_usd)),
                    (false, _) => format!("{mark}{}", format_usd(r.cost_usd)),
                };
                [
                    r.hat.clone(),
                    r.iterations.to_string(),
                    cost,
                    TokenCount::of(r.tokens, !r.tokens_uncounted).cell(thousands),
                ]
            })
            .collect();
        // Hat names may be CJK: columns line up by the terminal columns a cell takes.
        let mut widths = header.clone().map(|h| columns(&h));
        for row in &cells {
            for (width, cell) in widths.iter_mut().zip(row) {
                *width = (*width).max(columns(cell));
            }
        }
        std::iter::once(header)
            .chain(cells)
            .map(|row| {
                let [hat, iterations, cost, tokens] = row;
                let [w0, w1, w2, w3] = widths;
                format!(
                    "  {}  {}  {}  {}",
                    pad_right(&hat, w0),
                    pad_left(&iterations, w1),
                    pad_left(&cost, w2),
                    pad_left(&tokens, w3)
                )
            })
            .collect()
    }
}

#[cfg(test)]
#[path = "closing_tests.rs"]
mod tests;
