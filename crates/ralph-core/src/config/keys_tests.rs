//! The key table's own rules: each entry is complete and consistent with the section
//! it belongs to.

use super::super::choice::PromptMode;
use super::super::key::{Default, Dump, Init, Key, Read, Section, Type, Value, defaults};
use super::super::unsupported;
use super::all_keys;

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
    let declared: Vec<String> = all_keys().map(|k| k.path()).collect();
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
    let without: Vec<_> = all_keys()
        .filter(|k| matches!(k.init, Init::Default) && !matches!(k.default, Default::Value(_)))
        .map(Key::path)
        .collect();
    assert_eq!(without, Vec::<String>::new());
}

#[test]
fn no_key_is_declared_twice() {
    let mut paths: Vec<_> = all_keys().map(Key::path).collect();
    let declared = paths.len();
    paths.sort();
    paths.dedup();
    assert_eq!(paths.len(), declared);
}

#[test]
fn mappings_open_a_section_of_their_own() {
    // Every `Init::Keys` key has keys under it, and every section but the top one is
    // opened by a declared key (`hats` and `pricing` open theirs through an id).
    for key in all_keys().filter(|k| matches!(k.init, Init::Keys)) {
        assert!(!key.children().is_empty(), "{}", key.path());
    }
    for section in Section::ALL {
        assert!(section.keys().next().is_some(), "{section:?} has no keys");
    }
}

/// The sections read and dumped whole by `hooks.rs`.
fn is_hooks(section: Section) -> bool {
    matches!(
        section,
        Section::Hooks | Section::HookDefaults | Section::Hook | Section::HookMutate
    )
}

/// The sections whose keys are plain values of the layer (read into `RawConfig`, dumped
/// from `ResolvedConfig`), not of a hat, gate, price or hook.
fn is_plain(section: Section) -> bool {
    matches!(
        section,
        Section::Cli
            | Section::EventLoop
            | Section::Core
            | Section::Scratchpad
            | Section::Tasks
            | Section::Memories
            | Section::MemoryFilter
            | Section::Skills
            | Section::Transcripts
    )
}

#[test]
fn each_dump_accessor_reads_the_part_its_section_describes() {
    for key in all_keys() {
        let fits = match key.dump {
            Dump::Skip => true,
            Dump::Keys => Section::opened_by(key).is_some(),
            Dump::Hats => key.path() == "hats",
            Dump::Prices => key.path() == "pricing",
            Dump::Gates => key.path() == "gates",
            Dump::SkillOverrides => key.path() == "skills.overrides",
            Dump::Config(_) => key.section == Section::Top || is_plain(key.section),
            Dump::SkillOverride(_) => key.section == Section::SkillOverride,
            Dump::Hat(_) => key.section == Section::Hat,
            Dump::Backend(_) => key.section == Section::HatBackend,
            Dump::Price(_) => key.section == Section::Price,
            Dump::Gate(_) => key.section == Section::Gate,
            Dump::Hooks => key.path() == "hooks",
            Dump::InHooks => is_hooks(key.section),
        };
        assert!(fits, "{}", key.path());
    }
}

#[test]
fn each_reader_fills_the_part_its_section_reads_into() {
    for key in all_keys() {
        let fits = match key.read {
            Read::Keys => Section::opened_by(key).is_some(),
            Read::Scratchpad => key.path() == "core.scratchpad",
            Read::Hats => key.path() == "hats",
            Read::Prices => key.path() == "pricing",
            Read::Gates => key.path() == "gates",
            Read::Hooks => key.path() == "hooks",
            Read::SkillOverrides => key.path() == "skills.overrides",
            Read::Layer(_) => is_plain(key.section),
            Read::Hat(_) => key.section == Section::Hat,
            Read::Gate(_) => key.section == Section::Gate,
            // Read by `decode_hat.rs`, `decode_gate.rs`, `decode_pricing.rs`, `hooks.rs`
            // and the skills' overrides (the `every_key.yml` fixture trips a debug
            // assertion for a key nobody takes).
            Read::Own => {
                matches!(
                    key.section,
                    Section::Hat
                        | Section::HatBackend
                        | Section::Price
                        | Section::Gate
                        | Section::SkillOverride
                ) || is_hooks(key.section)
            }
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

/// A value of `ty` a reader must accept, and one it must refuse.
fn samples(ty: Type) -> (String, String) {
    let pair = |ok: &str, bad: &str| (ok.to_owned(), bad.to_owned());
    match ty {
        Type::Bool => pair("true", "yes"),
        Type::Count | Type::Seconds => pair("3", "0"),
        Type::Tokens => pair("0", "-1"),
        Type::ChoiceList(names) => (format!("[{}]", names()[0]), "[nope]".to_owned()),
        Type::Dollars => pair("2.5", "0"),
        Type::PricePerMillion => pair("0", "-1"),
        Type::Text => pair("words", "[a]"),
        Type::NonEmptyText | Type::Path => pair("words", "' '"),
        Type::Strings => pair("[a, b]", "{a: b}"),
        Type::Topic => pair("a.b", "a b"),
        Type::Topics => pair("[a.b, c]", "[a.b, a.b]"),
        Type::Choice(names) => (names()[0].to_owned(), "nope".to_owned()),
        Type::BackendList => pair("[pi, codex]", "[]"),
        Type::BackendOrMappingList => pair("[claude, {type: pi, args: [-x]}]", "5"),
        Type::Mapping
        | Type::NamedMappings(_)
        | Type::PathOrMapping
        | Type::BackendOrMapping
        | Type::EnvMap
        | Type::HookEvents => pair("{}", "5"),
        Type::MappingList => pair("[]", "{}"),
        Type::Command => pair("[make, test]", "[]"),
    }
}

/// A file that sets `key` to `value` (in a hat `h`, for a hat's key), and the same
/// file without the key.
fn file_with(key: &Key, value: &str) -> (String, String) {
    let (head, indent) = match key.section {
        Section::Cli => ("cli:\n", "  "),
        Section::EventLoop => ("event_loop:\n", "  "),
        Section::Core => ("core:\n", "  "),
        Section::Scratchpad => ("core:\n  scratchpad:\n", "    "),
        Section::Hat => ("hats:\n  h:\n    description: d\n", "    "),
        Section::Gate => ("gates:\n  - name: g\n    run: make\n", "    "),
        Section::Tasks => ("tasks:\n", "  "),
        Section::Memories => ("memories:\n", "  "),
        Section::MemoryFilter => ("memories:\n  filter:\n", "    "),
        Section::Skills => ("skills:\n", "  "),
        Section::Transcripts => ("transcripts:\n", "  "),
        other => panic!("no sample file for {other:?}"),
    };
    let placeholder = format!("{indent}# nothing\n");
    (
        format!("{head}{indent}{}: {value}\n", key.name),
        format!("{head}{placeholder}"),
    )
}

#[test]
fn each_reader_accepts_and_refuses_what_its_type_says() {
    let parse = |text: &str| super::super::decode::parse_layer(text, std::path::Path::new("t.yml"));
    let read_by_table =
        all_keys().filter(|k| matches!(k.read, Read::Layer(_) | Read::Hat(_) | Read::Gate(_)));
    for key in read_by_table {
        let (ok, bad) = samples(key.ty);
        let path = key.path().replace("<id>", "h").replace("[]", "[0]");
        let (with, without) = file_with(key, &ok);
        let read = parse(&with).unwrap_or_else(|e| panic!("{path}: {ok}: {e}"));
        let baseline = parse(&without).expect("baseline").config;
        assert_ne!(read.config, baseline, "{path} was not read");
        let errors = parse(&file_with(key, &bad).0).expect_err(&path).to_string();
        assert!(errors.contains(&format!("`{path}`")), "{path}: {errors}");
    }
}

#[test]
fn the_overload_waits_the_docs_name_are_the_loops() {
    // The doc line is a `&'static str`: the number in it is written out, so this keeps
    // it with the constant (and docs/agents.md, which names both).
    let said = format!(
        "waited for {} times in a row",
        crate::machine::OVERLOAD_WAITS
    );
    let rate_limit = all_keys()
        .find(|k| k.path() == "cli.on_rate_limit")
        .expect("cli.on_rate_limit");
    assert!(rate_limit.doc.contains(&said), "{}", rate_limit.doc);
    let agents = include_str!("../../../../docs/agents.md").replace('\n', " ");
    let named = format!(
        "only {} times in a row (`OVERLOAD_WAITS`)",
        crate::machine::OVERLOAD_WAITS
    );
    assert!(
        agents.contains(&named),
        "docs/agents.md does not say {named}"
    );
}
