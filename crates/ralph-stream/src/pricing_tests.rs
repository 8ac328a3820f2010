use pretty_assertions::assert_eq;

use super::*;
use crate::event::CostKind;

fn tokens(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Tokens {
    Tokens {
        input,
        output,
        cache_read,
        cache_write,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-12
}

#[test]
fn a_known_model_is_priced_per_million_tokens_of_each_kind() {
    let table = PriceTable::empty().with_entries([("m", price(2.0, 10.0, 0.5, 3.0))]);
    let cost = table.estimate("m", &tokens(1_000_000, 100_000, 2_000_000, 10_000));
    // 2.0 + 1.0 + 1.0 + 0.03
    assert!(close(cost.unwrap(), 4.03), "{cost:?}");
}

#[test]
fn the_builtin_table_knows_the_common_models_of_each_vendor() {
    let table = PriceTable::builtin();
    for model in [
        "gpt-5",
        "gpt-4.1",
        "gemini-2.5-pro",
        "gemini-2.5-flash",
        "claude-sonnet-4-5",
    ] {
        assert!(table.price_of(model).is_some(), "{model}");
    }
    assert_eq!(
        table.price_of("gemini-2.5-pro"),
        Some(&price(1.25, 10.0, 0.125, 1.25))
    );
}

#[test]
fn provider_prefixes_release_dates_and_case_are_seen_through() {
    let table = PriceTable::builtin();
    let sonnet = table.price_of("claude-sonnet-4-5");
    assert!(sonnet.is_some());
    for spelling in [
        "claude-sonnet-4-5-20250929",
        "anthropic/claude-sonnet-4-5",
        "claude-sonnet-4-5@20250929",
        "Claude-Sonnet-4-5",
    ] {
        assert_eq!(table.price_of(spelling), sonnet, "{spelling}");
    }
    assert_eq!(
        table.price_of("openai/gpt-4.1-2025-04-14"),
        table.price_of("gpt-4.1")
    );
    assert_eq!(
        table.price_of("models/gemini-2.5-pro"),
        table.price_of("gemini-2.5-pro")
    );
    assert!(table.price_of("codex-mini-latest").is_some());
}

#[test]
fn a_model_that_only_starts_like_a_known_one_is_unknown() {
    let table = PriceTable::builtin();
    for model in [
        "gpt-5.5",
        "gpt-5-turbo-max",
        "gemini-3.1-pro-preview",
        "gemini-2.5-flash-preview-09-2025",
        "claude-opus-4-6",
        "mock-model",
        "",
    ] {
        assert_eq!(table.price_of(model), None, "{model}");
    }
}

#[test]
fn user_entries_override_builtin_prices_and_add_models() {
    let mine = price(1.0, 1.0, 1.0, 1.0);
    let table = PriceTable::builtin().with_entries([("GPT-5", mine), ("house-model", mine)]);
    assert_eq!(table.price_of("gpt-5"), Some(&mine));
    assert_eq!(table.price_of("house-model"), Some(&mine));
    assert_eq!(
        table.price_of("gpt-4.1"),
        PriceTable::builtin().price_of("gpt-4.1")
    );
}

#[test]
fn pricing_estimates_known_models_and_leaves_unknown_ones_unknown() {
    let pricing =
        Pricing::new(PriceTable::empty().with_entries([("m", price(1.0, 2.0, 0.0, 0.0))]));
    let used = tokens(1_000_000, 1_000_000, 5, 0);
    assert_eq!(
        pricing.estimate(used, Some("m".into())),
        Usage {
            tokens: used,
            cost_usd: Some(3.0),
            cost_kind: CostKind::Estimated,
            model: Some("m".into()),
        }
    );
    assert_eq!(
        pricing.estimate(used, Some("other".into())),
        Usage {
            tokens: used,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: Some("other".into()),
        }
    );
    assert_eq!(
        pricing.estimate(used, None),
        Usage {
            tokens: used,
            cost_usd: None,
            cost_kind: CostKind::Unknown,
            model: None,
        }
    );
}

#[test]
fn the_default_model_prices_streams_that_name_none_but_never_overrides_one_that_does() {
    let pricing =
        Pricing::new(PriceTable::empty().with_entries([("m", price(1.0, 0.0, 0.0, 0.0))]))
            .with_default_model("m");
    let used = tokens(2_000_000, 0, 0, 0);
    assert_eq!(
        pricing.estimate(used, None),
        Usage {
            tokens: used,
            cost_usd: Some(2.0),
            cost_kind: CostKind::Estimated,
            model: Some("m".into()),
        }
    );
    assert_eq!(
        pricing.estimate(used, Some("x".into())).cost_kind,
        CostKind::Unknown
    );
}

#[test]
fn no_tokens_cost_nothing_even_for_an_unknown_model() {
    assert_eq!(
        Pricing::new(PriceTable::empty()).estimate(Tokens::default(), Some("x".into())),
        Usage {
            tokens: Tokens::default(),
            cost_usd: Some(0.0),
            cost_kind: CostKind::Estimated,
            model: Some("x".into()),
        }
    );
}

#[test]
fn shares_of_several_models_are_priced_together_or_not_at_all() {
    let pricing = Pricing::new(PriceTable::empty().with_entries([
        ("a", price(1.0, 0.0, 0.0, 0.0)),
        ("b", price(2.0, 0.0, 0.0, 0.0)),
    ]));
    let million = tokens(1_000_000, 0, 0, 0);
    assert_eq!(
        pricing.estimate_shares([("a", million), ("b", million)]),
        Some(3.0)
    );
    assert_eq!(
        pricing.estimate_shares([("a", million), ("c", million)]),
        None
    );
    assert_eq!(
        pricing.estimate_shares([("a", million), ("c", Tokens::default())]),
        Some(1.0)
    );
}
