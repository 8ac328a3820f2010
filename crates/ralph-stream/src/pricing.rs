//! Model prices: estimating what a run cost when the agent reports tokens but no cost.
//!
//! Codex and Gemini CLI count tokens and never price them. Their parsers hand the tokens
//! to a [`Pricing`], which looks the model up in a [`PriceTable`] and returns a usage whose
//! cost is [`CostKind::Estimated`], or [`CostKind::Unknown`] when the model is not in the
//! table: an unknown model is never guessed at. Agents that report their own cost (pi,
//! Claude Code, OpenCode) are never repriced, and an agent that reports no tokens at all
//! (Copilot) cannot be priced. Only a cost budget uses prices for them: a call they report
//! without a cost (Claude Code's, until its session ends) counts at its estimate there
//! (`SessionSummary::cost_for_budget`).
//!
//! The built-in table holds list prices that go stale; the config layer overrides or
//! extends it with [`PriceTable::with_entries`] and passes the result to
//! [`crate::StreamDecoder::with_pricing`].

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;
use std::sync::LazyLock;

use serde::Deserialize;
use serde::Serialize;

use crate::event::Tokens;
use crate::event::Usage;

/// Prices are quoted per this many tokens.
pub const TOKENS_PER_PRICE_UNIT: f64 = 1_000_000.0;

/// What a model costs, in US dollars per million tokens of each kind.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ModelPrice {
    /// Input tokens that were not read from the cache.
    pub input: f64,
    /// Output tokens, reasoning included.
    pub output: f64,
    pub cache_read: f64,
    pub cache_write: f64,
}

impl ModelPrice {
    /// The cost of `tokens` at this price, in US dollars.
    pub fn cost_of(&self, tokens: &Tokens) -> f64 {
        (tokens.input as f64 * self.input
            + tokens.output as f64 * self.output
            + tokens.cache_read as f64 * self.cache_read
            + tokens.cache_write as f64 * self.cache_write)
            / TOKENS_PER_PRICE_UNIT
    }
}

/// Shorthand for the built-in table below.
const fn price(input: f64, output: f64, cache_read: f64, cache_write: f64) -> ModelPrice {
    ModelPrice {
        input,
        output,
        cache_read,
        cache_write,
    }
}

/// List prices in USD per million tokens (input, output, cache read, cache write), from
/// the vendors' public pricing pages as of late 2025: openai.com/api/pricing,
/// ai.google.dev/gemini-api/docs/pricing and docs.anthropic.com (models/pricing). Standard
/// tier, no batch discount; where a price depends on the prompt size (Gemini Pro above
/// 200k tokens) the lower tier is listed, so long prompts are underestimated. OpenAI and
/// Google charge no extra for writing their implicit caches: a cache write costs an input
/// token. Anthropic's cache write is the 5-minute one. These are list prices, not what a
/// given account pays: users override them in the config.
const BUILTIN: &[(&str, ModelPrice)] = &[
    // OpenAI
    ("gpt-5", price(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5-codex", price(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5.1", price(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5.1-codex", price(1.25, 10.0, 0.125, 1.25)),
    ("gpt-5.1-codex-mini", price(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5-mini", price(0.25, 2.0, 0.025, 0.25)),
    ("gpt-5-nano", price(0.05, 0.40, 0.005, 0.05)),
    ("gpt-4.1", price(2.0, 8.0, 0.50, 2.0)),
    ("gpt-4.1-mini", price(0.40, 1.60, 0.10, 0.40)),
    ("gpt-4.1-nano", price(0.10, 0.40, 0.025, 0.10)),
    ("gpt-4o", price(2.50, 10.0, 1.25, 2.50)),
    ("gpt-4o-mini", price(0.15, 0.60, 0.075, 0.15)),
    ("o3", price(2.0, 8.0, 0.50, 2.0)),
    ("o4-mini", price(1.10, 4.40, 0.275, 1.10)),
    ("codex-mini-latest", price(1.50, 6.0, 0.375, 1.50)),
    // Google
    ("gemini-3-pro-preview", price(2.0, 12.0, 0.20, 2.0)),
    ("gemini-2.5-pro", price(1.25, 10.0, 0.125, 1.25)),
    ("gemini-2.5-flash", price(0.30, 2.50, 0.03, 0.30)),
    ("gemini-2.5-flash-lite", price(0.10, 0.40, 0.01, 0.10)),
    ("gemini-2.0-flash", price(0.10, 0.40, 0.025, 0.10)),
    // Anthropic
    ("claude-opus-4-5", price(5.0, 25.0, 0.50, 6.25)),
    ("claude-opus-4-1", price(15.0, 75.0, 1.50, 18.75)),
    ("claude-opus-4", price(15.0, 75.0, 1.50, 18.75)),
    ("claude-sonnet-4-5", price(3.0, 15.0, 0.30, 3.75)),
    ("claude-sonnet-4", price(3.0, 15.0, 0.30, 3.75)),
    ("claude-3-7-sonnet", price(3.0, 15.0, 0.30, 3.75)),
    ("claude-haiku-4-5", price(1.0, 5.0, 0.10, 1.25)),
    ("claude-3-5-haiku", price(0.80, 4.0, 0.08, 1.0)),
];

/// Prices by model name.
///
/// Names are matched case-insensitively, first exactly, then without a provider prefix
/// (`openai/gpt-5`, `models/gemini-2.5-pro`) and a release-date or `-latest` suffix
/// (`claude-sonnet-4-5-20250929`, `gpt-4.1-2025-04-14`). Nothing looser: a model that
/// merely starts like a known one (`gpt-5.5`) is unknown, because a wrong price is worse
/// than none.
#[derive(Clone, Debug, PartialEq)]
pub struct PriceTable {
    prices: HashMap<String, ModelPrice>,
}

impl Default for PriceTable {
    fn default() -> Self {
        PriceTable::builtin()
    }
}

impl PriceTable {
    /// The built-in list prices of common OpenAI, Google and Anthropic models.
    pub fn builtin() -> Self {
        PriceTable::empty().with_entries(BUILTIN.iter().map(|&(m, p)| (m, p)))
    }

    /// A table that knows no model.
    pub fn empty() -> Self {
        PriceTable {
            prices: HashMap::new(),
        }
    }

    /// This table with `entries` added; an entry for a model already present replaces
    /// its price. This is how user prices from the config override the built-in ones.
    pub fn with_entries<S: Into<String>>(
        mut self,
        entries: impl IntoIterator<Item = (S, ModelPrice)>,
    ) -> Self {
        for (model, price) in entries {
            self.insert(model, price);
        }
        self
    }

    /// Sets the price of `model`.
    pub fn insert(&mut self, model: impl Into<String>, price: ModelPrice) {
        let model: String = model.into();
        self.prices.insert(model.trim().to_lowercase(), price);
    }

    /// The price of `model`, if the table knows it under one of its accepted spellings.
    pub fn price_of(&self, model: &str) -> Option<&ModelPrice> {
        let name = model.trim().to_lowercase();
        if let Some(price) = self.prices.get(&name) {
            return Some(price);
        }
        let bare = name.rsplit('/').next().unwrap_or(&name);
        self.prices
            .get(bare)
            .or_else(|| self.prices.get(without_release_suffix(bare)))
    }

    /// The cost of `tokens` used by `model`, or `None` when the model has no price.
    pub fn estimate(&self, model: &str, tokens: &Tokens) -> Option<f64> {
        self.price_of(model).map(|p| p.cost_of(tokens))
    }
}

/// `name` without a trailing `-YYYYMMDD`, `-YYYY-MM-DD`, `@YYYYMMDD` or `-latest`.
fn without_release_suffix(name: &str) -> &str {
    if let Some(stem) = name.strip_suffix("-latest") {
        return stem;
    }
    let digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    if let Some((stem, date)) = name.rsplit_once(['-', '@'])
        && date.len() == 8
        && digits(date)
    {
        return stem;
    }
    // -YYYY-MM-DD: the last three dash-separated parts are a date.
    let mut parts = name.rsplitn(4, '-');
    if let (Some(day), Some(month), Some(year), Some(stem)) =
        (parts.next(), parts.next(), parts.next(), parts.next())
        && (day.len(), month.len(), year.len()) == (2, 2, 4)
        && digits(day)
        && digits(month)
        && digits(year)
    {
        return stem;
    }
    name
}

static BUILTIN_TABLE: LazyLock<Arc<PriceTable>> = LazyLock::new(|| Arc::new(PriceTable::builtin()));

/// How a decoder prices usage that its agent reports without a cost: a price table, and
/// the model to assume when the stream names none (Codex never does; ralph knows which
/// model it asked for).
#[derive(Clone, Debug, PartialEq)]
pub struct Pricing {
    table: Arc<PriceTable>,
    default_model: Option<Arc<str>>,
}

impl Default for Pricing {
    /// The built-in table, no default model.
    fn default() -> Self {
        Pricing {
            table: Arc::clone(&BUILTIN_TABLE),
            default_model: None,
        }
    }
}

impl Pricing {
    pub fn new(table: PriceTable) -> Self {
        Pricing {
            table: Arc::new(table),
            default_model: None,
        }
    }

    /// Assume `model` when the stream does not say which model did the work.
    pub fn with_default_model(mut self, model: impl Into<String>) -> Self {
        let model: String = model.into();
        self.default_model = Some(model.into());
        self
    }

    pub fn table(&self) -> &PriceTable {
        &self.table
    }

    pub fn default_model(&self) -> Option<&str> {
        self.default_model.as_deref()
    }

    /// The usage of `tokens` an agent reported without a cost, produced by `model` (or
    /// the default model when `None`). No tokens cost nothing, whatever the model.
    pub fn estimate<'a>(&self, tokens: Tokens, model: Option<Cow<'a, str>>) -> Usage<'a> {
        let model = model.or_else(|| {
            self.default_model
                .as_deref()
                .map(|m| Cow::Owned(m.to_owned()))
        });
        let cost_usd = if tokens.total() == 0 {
            Some(0.0)
        } else {
            model
                .as_deref()
                .and_then(|m| self.table.estimate(m, &tokens))
        };
        Usage::estimated(tokens, cost_usd, model)
    }

    /// The cost of several models' shares of one run, or `None` as soon as one share
    /// with tokens has no price.
    pub fn estimate_shares<'m>(
        &self,
        shares: impl IntoIterator<Item = (&'m str, Tokens)>,
    ) -> Option<f64> {
        let mut total = 0.0;
        for (model, tokens) in shares {
            if tokens.total() > 0 {
                total += self.table.estimate(model, &tokens)?;
            }
        }
        Some(total)
    }
}

#[cfg(test)]
#[path = "pricing_tests.rs"]
mod tests;
