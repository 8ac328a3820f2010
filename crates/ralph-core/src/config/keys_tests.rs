//! The key table's own rules: each entry is complete and consistent with the section
//! it belongs to.

use super::choice::PromptMode;
use super::key::{Default, Dump, Init, Key, Read, Section, Value, defaults};
use super::keys::KEYS;
use super::unsupported;

/// The keys named in backquotes in the messages (`cli.backend`, `cli.pty: true`).
fn named_keys(why: &str) -> Vec<String> {
    why.split('`')
        .skip(1)
        .step_by(2)
        .filter_map(|quoted| {
            let key = quoted.split([':', ' ']).next()?;
            ["cli.", "event_loop.", "core."]
                .iter()
                .any(|p| key.starts_with(p))
                .then(|| key.to_owned())
        })
        .collect()
}

#[test]
fn unsupported_keys_are_not_declared_keys_and_point_at_declared_ones() {
    let declared: Vec<String> = KEYS.iter().map(|k| k.path()).collect();
    for section in Section::ALL {
        let known = section.names();
        for entry in section.unsupported() {
            assert!(!known.contains(&entry.key), "{:?}.{}", section, entry.key);
            for named in named_keys(entry.why) {
                assert!(declared.contains(&named), "`{}` names `{named}`", entry.key);
            }
        }
    }
    // The check reads the messages as intended.
    assert_eq!(named_keys(unsupported::CLI[2].why), ["cli.pty"]);
}

#[test]
fn keys_written_with_their_default_have_one() {
    let without: Vec<_> = KEYS
        .iter()
        .filter(|k| matches!(k.init, Init::Default) && !matches!(k.default, Default::Value(_)))
        .map(Key::path)
        .collect();
    assert_eq!(without, Vec::<String>::new());
}

#[test]
fn no_key_is_declared_twice() {
    let mut paths: Vec<_> = KEYS.iter().map(Key::path).collect();
    let declared = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), declared);
}

#[test]
fn mappings_open_a_section_of_their_own() {
    // Every `Init::Keys` key has keys under it, and every section but the top one is
    // opened by a declared key (`hats` and `pricing` open theirs through an id).
    for key in KEYS.iter().filter(|k| matches!(k.init, Init::Keys)) {
        assert!(!key.children().is_empty(), "{}", key.path());
    }
    for section in Section::ALL {
        assert!(section.keys().next().is_some(), "{section:?} has no keys");
    }
}

#[test]
fn each_dump_accessor_reads_the_part_its_section_describes() {
    for key in KEYS {
        let fits = match key.dump {
            Dump::Skip => true,
            Dump::Keys => Section::opened_by(key).is_some(),
            Dump::Hats => key.path() == "hats",
            Dump::Prices => key.path() == "pricing",
            Dump::Config(_) => matches!(
                key.section,
                Section::Top
                    | Section::Cli
                    | Section::EventLoop
                    | Section::Core
                    | Section::Scratchpad
            ),
            Dump::Hat(_) => key.section == Section::Hat,
            Dump::Backend(_) => key.section == Section::HatBackend,
            Dump::Price(_) => key.section == Section::Price,
        };
        assert!(fits, "{}", key.path());
    }
}

#[test]
fn each_reader_fills_the_part_its_section_reads_into() {
    for key in KEYS {
        let fits = match key.read {
            Read::Keys => Section::opened_by(key).is_some(),
            Read::Scratchpad => key.path() == "core.scratchpad",
            Read::Hats => key.path() == "hats",
            Read::Prices => key.path() == "pricing",
            Read::Layer(_) => matches!(
                key.section,
                Section::Cli | Section::EventLoop | Section::Core | Section::Scratchpad
            ),
            Read::Hat(_) => key.section == Section::Hat,
            // Read by `decode_hat.rs` and `decode_pricing.rs` (the `every_key.yml`
            // fixture trips a debug assertion for a key nobody takes).
            Read::Own => matches!(
                key.section,
                Section::Hat | Section::HatBackend | Section::Price
            ),
        };
        assert!(fits, "{}", key.path());
    }
}

#[test]
fn default_names_are_the_names_ralph_reads() {
    let text = |v: Value| v.yaml();
    assert_eq!(text(defaults::ARG), PromptMode::Arg.name());
    assert_eq!(
        text(defaults::TEXT_FORMAT),
        ralph_stream::StreamFormat::Text.name()
    );
}
