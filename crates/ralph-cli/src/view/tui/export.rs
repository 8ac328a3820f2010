//! `e`: the selected iteration as Markdown, written beside the run's other files
//! (`.ralph/runs/<id>/exports/iteration-<n>.md`), so it can be read, pasted or attached
//! after the run.

use std::borrow::Cow;
use std::fmt::Write as _;
use std::io;
use std::path::{Path, PathBuf};

use ralph_core::fsafe;
use ralph_core::store::{Durability, replace};
use ralph_core::token_count::TokenCount;
use ralph_core::visible::visible;

use super::model::{Entry, Iteration, RunModel};
use crate::view::term::figures::{duration_ms, iteration_cost};

/// The directory under the run's directory that exports go to.
pub(crate) const EXPORTS_DIR: &str = "exports";

/// Writes iteration `index` of `model` and says where.
pub(crate) fn write(model: &RunModel, index: usize, run_dir: &Path) -> io::Result<PathBuf> {
    let it = &model.iterations[index];
    let dir = run_dir.join(EXPORTS_DIR);
    // The run's directory is the agent's to write in too: a link it planted at either
    // name must not carry the export out of the workspace (see `fsafe`).
    fsafe::create_dir(&dir)?;
    let path = dir.join(format!("iteration-{}.md", it.number));
    replace(&path, markdown(model, it).as_bytes(), Durability::Atomic)?;
    Ok(path)
}

/// The iteration as Markdown: a heading with its figures, then its transcript in order.
///
/// Almost all of it is text ralph did not write (the model's words and thinking, tool
/// arguments and output, payloads, a hat's name), and people `cat` an export: each
/// control and bidirectional character is written as its escape, as every on-screen view
/// shows it, so the file cannot retitle, clear or reorder the terminal it is read in.
pub(crate) fn markdown(model: &RunModel, it: &Iteration) -> String {
    let out = transcript(model, it);
    match visible(&out) {
        Cow::Borrowed(_) => out,
        Cow::Owned(safe) => safe,
    }
}

/// [`markdown`] before its text is made safe to show.
fn transcript(model: &RunModel, it: &Iteration) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "# Run {} · iteration {} · {}\n",
        model.run_id, it.number, it.hat
    );
    let _ = writeln!(out, "- backend: {}", it.backend);
    let _ = writeln!(out, "- model: {}", it.model.as_deref().unwrap_or("unknown"));
    let _ = writeln!(
        out,
        "- outcome: {}",
        it.outcome
            .as_ref()
            .map_or_else(|| "running".to_owned(), |o| o.words())
    );
    if let Some(ms) = it.duration_ms {
        let _ = writeln!(out, "- duration: {}", duration_ms(ms));
    }
    if it.cost_usd.is_some() {
        let _ = writeln!(out, "- cost: {}", iteration_cost(it.cost_usd, it.cost_kind));
    }
    let tokens = TokenCount::of(it.tokens.sum(), !it.tokens_uncounted);
    let _ = writeln!(out, "- tokens: {}", tokens.cell(|n| n.to_string()));
    let _ = writeln!(out, "- events emitted: {}\n", it.events_emitted);
    for entry in &it.entries {
        match entry {
            Entry::Text(text) => {
                let _ = writeln!(out, "{}\n", text.trim_end());
            }
            Entry::Thinking(text) => {
                let _ = writeln!(out, "*Thinking:*\n");
                for line in text.trim_end().lines() {
                    let _ = writeln!(out, "> {line}");
                }
                out.push('\n');
            }
            Entry::Tool(call) => {
                let status = match call.failed {
                    None => "running",
                    Some(false) => "ok",
                    Some(true) => "failed",
                };
                let _ = writeln!(
                    out,
                    "**Tool `{}`** ({status}): `{}`\n",
                    call.name, call.preview
                );
                if !call.output.is_empty() {
                    let fence = fence_for(&call.output);
                    let _ = writeln!(out, "{fence}\n{}\n{fence}\n", call.output.trim_end());
                }
            }
            Entry::Events(events) => {
                let _ = writeln!(out, "**Events emitted:**\n");
                for (topic, payload) in events {
                    let _ = writeln!(out, "- `{topic}` {payload}");
                }
                out.push('\n');
            }
            Entry::Gate(gate) => {
                // A finished gate's detail ends with its verdict in the line view's words.
                let running = if gate.passed.is_none() {
                    " running"
                } else {
                    ""
                };
                let _ = writeln!(out, "**Gate `{}`**{running}: {}\n", gate.name, gate.detail);
                if let Some(output) = &gate.output {
                    let fence = fence_for(output);
                    let _ = writeln!(out, "{fence}\n{}\n{fence}\n", output.trim_end());
                }
            }
            Entry::Note(text) if text.is_empty() => {}
            Entry::Note(text) => {
                let _ = writeln!(out, "*{}*\n", text.trim());
            }
        }
    }
    out
}

/// A code fence longer than any run of backticks in `text`.
fn fence_for(text: &str) -> String {
    let mut longest = 0;
    let mut run = 0;
    for c in text.chars() {
        run = if c == '`' { run + 1 } else { 0 };
        longest = longest.max(run);
    }
    "`".repeat((longest + 1).max(3))
}
