//! `pricing:`: model prices that override and extend the built-in table, checked like the
//! rest of the config, merged per model across layers, and written back by the dump.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use ralph_core::config::{LoadOptions, ModelPricing, Overrides, load, parse_layer};
use ralph_stream::ModelPrice;
use support::{parse_errors, resolve_ok};

/// Checks `pricing` against `expected`: each model with its input, output, cache read
/// and cache write prices, in order.
fn assert_prices(pricing: &[ModelPricing], expected: &[(&str, [f64; 4])]) {
    let expected: Vec<ModelPricing> = (expected.iter())
        .map(
            |&(model, [input, output, cache_read, cache_write])| ModelPricing {
                model: model.to_owned(),
                price: ModelPrice {
                    input,
                    output,
                    cache_read,
                    cache_write,
                },
            },
        )
        .collect();
    assert_eq!(pricing, expected);
}

#[test]
fn prices_are_read_in_file_order_with_cache_prices_defaulting_to_input() {
    let resolved = resolve_ok(
        "pricing:\n  \
           gpt-5.5: {input: 1.25, output: 10, cache_read: 0.125, cache_write: 1.5}\n  \
           local-llama:\n    input: 0\n    output: 0\n  \
           gemini-3.1-pro-preview: {input: 2, output: 12, cache_read: 0.2}\n",
    );
    assert_eq!(resolved.warnings, []);
    assert_prices(
        &resolved.config.pricing,
        &[
            ("gpt-5.5", [1.25, 10.0, 0.125, 1.5]),
            ("local-llama", [0.0, 0.0, 0.0, 0.0]),
            ("gemini-3.1-pro-preview", [2.0, 12.0, 0.2, 2.0]),
        ],
    );
}

#[test]
fn configured_prices_override_and_extend_the_built_in_table() {
    let config =
        resolve_ok("pricing:\n  GPT-5: {input: 1, output: 2}\n  gpt-5.5: {input: 3, output: 4}\n")
            .config;
    let table = config.price_table();
    let mine = |input, output| ModelPrice {
        input,
        output,
        cache_read: input,
        cache_write: input,
    };
    assert_eq!(table.price_of("gpt-5"), Some(&mine(1.0, 2.0)));
    assert_eq!(table.price_of("openai/gpt-5.5"), Some(&mine(3.0, 4.0)));
    // Untouched built-in prices remain.
    assert_eq!(
        table.price_of("gemini-2.5-pro"),
        ralph_stream::PriceTable::builtin().price_of("gemini-2.5-pro")
    );
}

#[test]
fn every_pricing_mistake_is_reported_at_its_place() {
    let yaml = "\
pricing:
  gpt-5.5:
    input: 1.25
  o3: {input: -1, output: \"8\"}
  o4-mini: {input: 1, output: 4, cached_read: 0.2}
  GPT-5.5: {input: 1, output: 2}
  mini: 3
";
    assert_eq!(
        parse_errors(yaml),
        [
            "ralph.yml:2:3: `pricing.gpt-5.5.output` is missing: give it in US dollars per \
             million tokens",
            "ralph.yml:4:15: `pricing.o3.input` must be a number of 0 or more, found -1",
            "ralph.yml:4:27: `pricing.o3.output` expects a number, found a string (\"8\"): \
             remove the quotes",
            "ralph.yml:5:34: unknown key `cached_read` in `pricing.o4-mini`: did you mean \
             `cache_read`?",
            "ralph.yml:6:3: `pricing` lists `gpt-5.5` twice: remove one",
            "ralph.yml:7:9: `pricing.mini` expects a mapping, found a number (3)",
        ]
    );
}

#[test]
fn pricing_must_be_a_mapping_of_named_models() {
    assert_eq!(
        parse_errors("pricing: [gpt-5]\n"),
        ["ralph.yml:1:10: `pricing` expects a mapping, found a list"]
    );
    assert_eq!(
        parse_errors("pricing:\n  \" \": {input: 1, output: 1}\n"),
        ["ralph.yml:2:3: `pricing` is empty: a price needs the name of its model"]
    );
}

#[test]
fn a_later_layer_replaces_a_model_price_whole_and_keeps_the_others() {
    let home = tempfile::tempdir().expect("home");
    let work = tempfile::tempdir().expect("work");
    let user = home.path().join(".config/ralph/config.yml");
    fs::create_dir_all(user.parent().expect("parent")).expect("mkdir");
    fs::write(
        &user,
        "pricing:\n  gpt-5.5: {input: 1, output: 10, cache_read: 0.1}\n  o3: {input: 2, output: 8}\n",
    )
    .expect("write");
    fs::write(
        work.path().join("ralph.yml"),
        "pricing:\n  GPT-5.5: {input: 5, output: 50}\n  my-model: {input: 0.5, output: 1}\n",
    )
    .expect("write");
    let resolved = load(&LoadOptions {
        cwd: work.path().to_path_buf(),
        config_file: None,
        xdg_config_home: None,
        home: Some(home.path().as_os_str().to_owned()),
        overrides: Overrides::default(),
        ..LoadOptions::default()
    })
    .expect("loads");
    assert_prices(
        &resolved.config.pricing,
        &[
            // The user's cache_read does not survive the project's rewrite of the model.
            ("GPT-5.5", [5.0, 50.0, 5.0, 5.0]),
            ("o3", [2.0, 8.0, 2.0, 2.0]),
            ("my-model", [0.5, 1.0, 0.5, 0.5]),
        ],
    );
}

#[test]
fn the_dump_writes_the_configured_prices_back() {
    let config = resolve_ok("pricing:\n  gpt-5.5: {input: 1.25, output: 10}\n").config;
    let dumped = config.to_yaml();
    assert!(
        dumped.contains(
            "pricing:\n  gpt-5.5:\n    input: 1.25\n    output: 10.0\n    cache_read: 1.25\n    \
             cache_write: 1.25\n"
        ),
        "{dumped}"
    );
    let reparsed = parse_layer(&dumped, Path::new("dump.yml")).expect("dump parses");
    let env = support::env_in(&PathBuf::from("."));
    let again = ralph_core::config::resolve(reparsed.config, &env).expect("resolves");
    assert_eq!(again.config.pricing, config.pricing);
}

#[test]
fn prices_load_on_their_own_from_a_config_that_would_not_resolve() {
    let work = tempfile::tempdir().expect("work");
    // The prompt file is missing: `load` refuses the config, `load_pricing` needs none of it.
    fs::write(
        work.path().join("ralph.yml"),
        "event_loop:\n  prompt_file: missing.md\npricing:\n  o3: {input: 2, output: 8}\n",
    )
    .expect("write");
    let options = LoadOptions {
        cwd: work.path().to_path_buf(),
        config_file: None,
        xdg_config_home: None,
        home: None,
        overrides: Overrides::default(),
        ..LoadOptions::default()
    };
    assert!(load(&options).is_err());
    assert_prices(
        &ralph_core::config::load_pricing(&options).expect("prices"),
        &[("o3", [2.0, 8.0, 2.0, 2.0])],
    );
}
