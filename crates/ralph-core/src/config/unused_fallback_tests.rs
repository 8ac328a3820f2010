use std::path::Path;

use super::check;
use crate::config::decode::parse_layer;

/// The warnings for `yaml` (which must parse), as the user sees them, with their place.
fn warnings(yaml: &str) -> Vec<String> {
    let parsed = match parse_layer(yaml, Path::new("ralph.yml")) {
        Ok(parsed) => parsed,
        Err(errors) => panic!("expected the file to parse, got:\n{errors}"),
    };
    check(&parsed.config.cli, &parsed.config.hats)
        .iter()
        .map(|w| format!("{}: {}", w.origin, w.kind))
        .collect()
}

#[test]
fn cli_fallback_under_the_default_wait_is_named_where_it_is() {
    let found = warnings("cli:\n  backend: pi\n  fallback: [claude]\n");
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].starts_with("ralph.yml:3:13: `cli.fallback` is never used"),
        "{found:?}"
    );
    assert!(
        found[0].contains("`cli.on_rate_limit` is `wait` here"),
        "{found:?}"
    );
    let found = warnings("cli:\n  on_rate_limit: fail\n  fallback: [claude]\n");
    assert!(found[0].contains("is `fail` here"), "{found:?}");
}

#[test]
fn a_fallback_that_failover_reads_has_nothing_to_say() {
    for yaml in [
        "cli:\n  on_rate_limit: failover\n  fallback: [claude]\n",
        "cli:\n  fallback: []\n",
        "cli:\n  backend: pi\n",
        // The hat without a list of its own fails over to `cli`'s.
        "cli:\n  fallback: [claude]\nhats:\n  a:\n    description: d\n    triggers: [x]\n    on_rate_limit: failover\n",
        "hats:\n  a:\n    description: d\n    triggers: [x]\n    on_rate_limit: failover\n    fallback: [codex]\n",
        "cli:\n  on_rate_limit: failover\nhats:\n  a:\n    description: d\n    triggers: [x]\n    fallback: [codex]\n",
    ] {
        assert_eq!(warnings(yaml), Vec::<String>::new(), "{yaml}");
    }
}

#[test]
fn a_hats_list_its_policy_never_reads_is_named_by_the_hat() {
    // The hat's own `wait` overrides `cli`'s failover, and it has a list of its own; `cli`'s
    // list is still read by ralph's coordinator.
    let found = warnings(
        "cli:\n  on_rate_limit: failover\n  fallback: [claude]\nhats:\n  a:\n    description: d\n    triggers: [x]\n    \
         on_rate_limit: wait\n    fallback: [codex]\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`hats.a.fallback` is never used")
            && found[0].contains("`hats.a.on_rate_limit` is `wait` here"),
        "{found:?}"
    );
    // Every hat that fails over has a list of its own: `cli`'s is read by nobody but the
    // coordinator, which waits.
    let found = warnings(
        "cli:\n  fallback: [claude]\nhats:\n  a:\n    description: d\n    triggers: [x]\n    on_rate_limit: failover\n    \
         fallback: [codex]\n",
    );
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(
        found[0].contains("`cli.fallback` is never used"),
        "{found:?}"
    );
    // The reason is the hat's own list, not a policy to set: `cli.on_rate_limit:
    // failover` alone would not make the hat read `cli`'s list.
    assert!(
        found[0].contains(
            "the hats that fail over on a rate limit (`hats.a`) each have a `fallback` list \
             of their own, which replaces it"
        ) && found[0].contains("`cli.on_rate_limit` is `wait` here"),
        "{found:?}"
    );
    assert!(!found[0].contains("Set it to `failover`"), "{found:?}");
}
