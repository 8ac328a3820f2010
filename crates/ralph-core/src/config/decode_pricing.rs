//! `pricing:`: what models cost, for agents that report tokens but no cost (Codex, Gemini
//! CLI). Each key is a model name, each value its prices in US dollars per million tokens:
//!
//! ```yaml
//! pricing:
//!   gpt-5.5: {input: 1.25, output: 10, cache_read: 0.125}
//! ```
//!
//! `input` and `output` are required: a model priced by half is a guess. `cache_read` and
//! `cache_write` default to the `input` price (an upper bound for cache reads; what OpenAI
//! and Google charge for writing their implicit caches). Zero is a valid price (a local
//! model); a negative one is not. Names are compared the way the price table matches them
//! (case-insensitively, surrounding blanks ignored), so one file cannot price a model twice.

use super::error::{ConfigError, ConfigErrorKind};
use super::key::Section;
use super::node::{Decoder, Field, Node, join_path};
use super::origin::Spanned;
use super::raw::RawPrice;

/// What a model entry without a required price is told.
const MISSING_PRICE_WHY: &str = "give it in US dollars per million tokens";

pub(crate) fn decode_pricing(dec: &mut Decoder, field: &Field<'_>) -> Vec<RawPrice> {
    let Some(entries) = dec.entries(field.value, &field.path) else {
        return Vec::new();
    };
    let mut prices: Vec<RawPrice> = Vec::with_capacity(entries.len());
    // Every name seen, valid entry or not: a model priced twice is an error either way.
    let mut seen: Vec<String> = Vec::with_capacity(entries.len());
    for (model, value) in entries {
        if model.value.trim().is_empty() {
            dec.errors.push(ConfigError::new(
                model.origin.clone(),
                ConfigErrorKind::Empty {
                    key: field.path.clone(),
                    why: "a price needs the name of its model",
                },
            ));
            continue;
        }
        if seen.iter().any(|name| same_model(name, &model.value)) {
            dec.errors.push(ConfigError::new(
                model.origin.clone(),
                ConfigErrorKind::Duplicate {
                    key: field.path.clone(),
                    value: model.value.trim().to_lowercase(),
                },
            ));
            continue;
        }
        seen.push(model.value.clone());
        prices.extend(decode_price(dec, model, &field.path, value));
    }
    prices
}

/// Whether two names price the same model in the table.
pub(crate) fn same_model(a: &str, b: &str) -> bool {
    a.trim().eq_ignore_ascii_case(b.trim())
}

fn decode_price(
    dec: &mut Decoder,
    model: Spanned<String>,
    parent: &str,
    value: &Node<'_>,
) -> Option<RawPrice> {
    let path = join_path(parent, &model.value);
    let mut s = dec.section(value, &Section::Price.schema(&path))?;
    let required = |dec: &mut Decoder, key: &'static str, f: Option<Field<'_>>| match f {
        Some(f) => price(dec, &f),
        None => {
            dec.errors.push(ConfigError::new(
                model.origin.clone(),
                ConfigErrorKind::MissingKey {
                    key: join_path(&path, key),
                    why: MISSING_PRICE_WHY,
                },
            ));
            None
        }
    };
    let input = required(dec, "input", s.take("input"));
    let output = required(dec, "output", s.take("output"));
    let cache_read = s.take("cache_read").and_then(|f| price(dec, &f));
    let cache_write = s.take("cache_write").and_then(|f| price(dec, &f));
    s.finish();
    Some(RawPrice {
        model,
        input: input?,
        output: output?,
        cache_read,
        cache_write,
    })
}

/// A price: a finite number, zero or more (zero prices a local model).
fn price(dec: &mut Decoder, field: &Field<'_>) -> Option<Spanned<f64>> {
    dec.non_negative_number(field)
}
