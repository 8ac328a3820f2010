//! `docs/config.md` is generated from the key table and must match it: a key added,
//! renamed or re-documented without regenerating the reference fails here.
//!
//! Regenerate with `RALPH_BLESS=1 cargo test -p ralph-core --test config_reference`.

use std::path::PathBuf;

use ralph_core::config::{Section, all_keys, reference};

/// Set to rewrite `docs/config.md` instead of comparing with it.
const BLESS_VAR: &str = "RALPH_BLESS";

fn reference_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../docs/config.md")
}

#[test]
fn docs_config_md_is_current() {
    let generated = reference();
    let path = reference_path();
    if std::env::var_os(BLESS_VAR).is_some() {
        std::fs::write(&path, &generated).expect("write docs/config.md");
        return;
    }
    let on_disk = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        on_disk == generated,
        "docs/config.md is out of date with crates/ralph-core/src/config/keys.rs; \
         regenerate it with `{BLESS_VAR}=1 cargo test -p ralph-core --test config_reference` \
         and commit the result"
    );
}

#[test]
fn reference_lists_every_key_under_its_section() {
    let generated = reference();
    for key in all_keys() {
        let row = format!("\n| `{}` |", key.path());
        assert_eq!(generated.matches(&row).count(), 1, "{row}");
    }
    for section in Section::ALL.into_iter().skip(1) {
        assert!(
            generated.contains(&format!("## `{}`", section.path())),
            "{section:?}"
        );
    }
}
