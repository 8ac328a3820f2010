//! The built-in presets and the hats overlay (`-H`): each preset is a valid workflow with
//! lean instructions, `ralph init --preset` writes the same hats `-H builtin:` uses, and
//! the overlay takes the workflow (hats, starting and required events, gates) from the
//! hats file and the rest from the project.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};

use pretty_assertions::assert_eq;
use ralph_core::config::{
    BackendChoice, ConfigWarningKind, HatsSource, LoadOptions, Overrides, PRESETS, Preset,
    RawConfig, ResolveEnv, Resolved, load, merge, parse_layer, preset, preset_template, resolve,
};

/// The most bytes of instructions one hat of a preset may have: the prompt already
/// explains events, hand-over and completion, so a hat says only what is its own.
const MAX_INSTRUCTIONS_BYTES: usize = 700;

/// The fewest presets the issue asks for.
const MIN_PRESETS: usize = 6;

fn load_in(dir: &Path, hats: Option<HatsSource>) -> Resolved {
    try_load(dir, hats).unwrap_or_else(|e| panic!("{e}"))
}

fn try_load(
    dir: &Path,
    hats: Option<HatsSource>,
) -> Result<Resolved, ralph_core::config::ConfigErrors> {
    let options = LoadOptions {
        cwd: dir.to_path_buf(),
        overrides: Overrides {
            prompt: Some("the task".into()),
            ..Overrides::default()
        },
        ..LoadOptions::default()
    };
    load(&options.with_hats(hats))
}

fn builtin(name: &str) -> HatsSource {
    HatsSource::parse(&format!("builtin:{name}")).expect("a preset")
}

fn resolve_text(text: &str, file: &str) -> Resolved {
    let parsed = parse_layer(text, Path::new(file)).unwrap_or_else(|e| panic!("{file}: {e}"));
    assert_eq!(parsed.warnings, vec![], "{file}");
    let env = ResolveEnv {
        cwd: PathBuf::from("."),
        default_prompt_file: PathBuf::from("PROMPT.md"),
        sources: vec![PathBuf::from(file)],
    };
    resolve(merge(RawConfig::default(), parsed.config), &env)
        .unwrap_or_else(|e| panic!("{file}: {e}"))
}

#[test]
fn there_are_enough_presets_with_unique_names_each_described_by_its_own_first_line() {
    assert!(PRESETS.len() >= MIN_PRESETS);
    let names: BTreeSet<&str> = PRESETS.iter().map(|p| p.name).collect();
    assert_eq!(names.len(), PRESETS.len());
    for p in PRESETS {
        let first = p.text.lines().next().unwrap_or_default();
        assert!(
            first.starts_with(&format!("# {}: ", p.name)),
            "{}: the file starts with `# NAME: what it does`, not {first:?}",
            p.name
        );
        assert!(!p.description.contains('\n'), "{}", p.name);
    }
}

#[test]
fn every_preset_is_a_valid_config_whose_topics_all_lead_somewhere() {
    for p in PRESETS {
        let config = resolve_text(p.text, p.name).config;
        let promise = &config.event_loop.completion_promise;
        let published: BTreeSet<&str> = config
            .hats
            .iter()
            .flat_map(|h| h.publishes.iter().map(String::as_str))
            .collect();
        for hat in &config.hats {
            for topic in &hat.triggers {
                assert!(
                    published.contains(topic.as_str())
                        || *topic == config.event_loop.starting_event,
                    "{}: nothing publishes `{topic}`, so hat `{}` never runs",
                    p.name,
                    hat.id
                );
            }
            for topic in hat.publishes.iter().filter(|t| *t != promise) {
                assert!(
                    config.hats.iter().any(|h| h.triggers.contains(topic)),
                    "{}: `{topic}` of hat `{}` triggers no hat",
                    p.name,
                    hat.id
                );
            }
        }
        for required in &config.event_loop.required_events {
            assert!(published.contains(required.as_str()), "{}", p.name);
        }
        if !config.hats.is_empty() {
            assert!(
                published.contains(promise.as_str()),
                "{}: no hat can finish",
                p.name
            );
            assert!(
                config
                    .hats
                    .iter()
                    .any(|h| h.triggers.contains(&config.event_loop.starting_event)),
                "{}: no hat starts",
                p.name
            );
        }
    }
}

#[test]
fn preset_instructions_are_lean_use_tasks_and_leave_emit_to_the_prompt() {
    let mut uses_tasks = 0;
    let mut uses_memories = 0;
    for p in PRESETS {
        let config = resolve_text(p.text, p.name).config;
        for hat in &config.hats {
            assert!(
                hat.instructions.len() <= MAX_INSTRUCTIONS_BYTES,
                "{}: hat `{}` has {} bytes of instructions",
                p.name,
                hat.id,
                hat.instructions.len()
            );
            // The prompt teaches `ralph emit` and finishing; a hat repeating it is noise.
            assert!(
                !hat.instructions.contains("ralph emit")
                    && !hat.instructions.contains("LOOP_COMPLETE"),
                "{}: hat `{}` repeats what the prompt says",
                p.name,
                hat.id
            );
        }
        let all: String = config
            .hats
            .iter()
            .map(|h| h.instructions.as_str())
            .collect();
        uses_tasks += usize::from(all.contains("ralph tools task"));
        uses_memories += usize::from(all.contains("ralph tools memory"));
        if !config.hats.is_empty() {
            assert!(
                p.text.contains("\n# gates:\n"),
                "{}: no gate suggestion",
                p.name
            );
        }
    }
    // Every workflow with hats keeps its steps as tasks and its lessons as memories.
    let with_hats = PRESETS
        .iter()
        .filter(|p| !resolve_text(p.text, p.name).config.hats.is_empty())
        .count();
    assert_eq!((uses_tasks, uses_memories), (with_hats, with_hats));
}

#[test]
fn init_preset_writes_a_config_with_the_hats_and_events_of_h_builtin() {
    for p in PRESETS {
        let text = preset_template(BackendChoice::Auto, p);
        let written = resolve_text(&text, "ralph.yml").config;
        let dir = tempfile::tempdir().expect("dir");
        let overlaid = load_in(dir.path(), Some(builtin(p.name))).config;
        assert_eq!(written.hats, overlaid.hats, "{}", p.name);
        assert_eq!(
            (
                &written.event_loop.starting_event,
                &written.event_loop.required_events,
                &written.event_loop.completion_promise
            ),
            (
                &overlaid.event_loop.starting_event,
                &overlaid.event_loop.required_events,
                &overlaid.event_loop.completion_promise
            ),
            "{}",
            p.name
        );
        assert!(text.contains(&format!("ralph init --preset {}", p.name)));
        // The preset's gate suggestion replaces the generic example.
        if p.text.contains("# gates:") {
            assert_eq!(text.matches("# gates:").count(), 1, "{}", p.name);
        }
    }
}

const PROJECT: &str = "\
cli:
  backend: pi
event_loop:
  max_iterations: 7
  completion_promise: ALL_DONE
  starting_event: go
  required_events: [mine.done]
hats:
  mine:
    description: The project's own hat
    triggers: [go]
    publishes: [mine.done, ALL_DONE]
gates:
  - name: tests
    run: \"true\"
";

#[test]
fn h_builtin_replaces_the_workflow_and_keeps_the_rest_of_the_project() {
    let dir = tempfile::tempdir().expect("dir");
    fs::write(dir.path().join("ralph.yml"), PROJECT).expect("write");
    let project = load_in(dir.path(), None).config;
    let resolved = load_in(dir.path(), Some(builtin("code-assist")));
    assert_eq!(resolved.warnings, vec![]);
    let config = resolved.config;
    let ids: Vec<&str> = config.hats.iter().map(|h| h.id.as_str()).collect();
    assert_eq!(ids, ["planner", "builder", "critic", "finalizer"]);
    assert_eq!(config.event_loop.starting_event, "plan.start");
    // Kept, where ralph-orchestrator's allow-list drops it.
    assert_eq!(config.event_loop.required_events, ["review.approved"]);
    // The project's: the preset names no promise of its own.
    assert_eq!(config.event_loop.completion_promise, "ALL_DONE");
    assert_eq!(config.event_loop.max_iterations, 7);
    assert_eq!(config.agent, project.agent);
    assert_eq!(config.gates, project.gates);
    assert_eq!(
        config.sources,
        [
            PathBuf::from("ralph.yml"),
            PathBuf::from("builtin:code-assist")
        ]
    );
    // The hatless baseline takes the hats away.
    let solo = load_in(dir.path(), Some(builtin("hatless-baseline"))).config;
    assert_eq!(
        (solo.hats.len(), solo.event_loop.starting_event.as_str()),
        (0, "task.start")
    );
}

#[test]
fn a_hats_file_brings_its_workflow_and_gates_and_says_what_it_ignores() {
    let dir = tempfile::tempdir().expect("dir");
    fs::write(dir.path().join("ralph.yml"), PROJECT).expect("write");
    fs::write(
        dir.path().join("hats.yml"),
        "name: mine\ndescription: from ralph-orchestrator\ncli:\n  backend: claude\n\
         event_loop:\n  max_iterations: 2\n  completion_promise: SHIPPED\n  starting_event: s\n\
         hats:\n  one:\n    description: One\n    triggers: [s]\n    publishes: [SHIPPED]\n\
         gates:\n  - name: lint\n    run: \"true\"\n    before: [SHIPPED]\n",
    )
    .expect("write");
    let resolved = load_in(dir.path(), Some(HatsSource::File("hats.yml".into())));
    let kinds: Vec<&ConfigWarningKind> = resolved.warnings.iter().map(|w| &w.kind).collect();
    assert_eq!(
        kinds,
        [&ConfigWarningKind::IgnoredInHatsFile {
            keys: "cli (line 3), event_loop (other than the workflow's keys) (line 5)".into()
        }]
    );
    assert!(
        resolved.warnings[0]
            .to_string()
            .starts_with("hats.yml:3:1: "),
        "{}",
        resolved.warnings[0]
    );
    let project = load_in(dir.path(), None).config;
    let config = resolved.config;
    assert_eq!(config.event_loop.completion_promise, "SHIPPED");
    assert_eq!(config.event_loop.max_iterations, 7);
    assert_eq!(config.event_loop.required_events, Vec::<String>::new());
    assert_eq!(config.agent, project.agent);
    let gates: Vec<&str> = config.gates.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(gates, ["tests", "lint"]);
}

#[test]
fn every_project_section_a_hats_file_sets_is_named_where_it_is_written() {
    let dir = tempfile::tempdir().expect("dir");
    fs::write(dir.path().join("ralph.yml"), PROJECT).expect("write");
    fs::write(
        dir.path().join("hats.yml"),
        "event_loop:\n  starting_event: s\nhats:\n  one:\n    description: One\n    \
         triggers: [s]\n    publishes: [LOOP_COMPLETE]\nmemories:\n  enabled: false\nskills:\n  enabled: false\n\
         transcripts:\n  enabled: false\n",
    )
    .expect("write");
    let resolved = load_in(dir.path(), Some(HatsSource::File("hats.yml".into())));
    let shown: Vec<String> = resolved
        .warnings
        .iter()
        .filter(|w| matches!(w.kind, ConfigWarningKind::IgnoredInHatsFile { .. }))
        .map(ToString::to_string)
        .collect();
    assert_eq!(shown.len(), 1, "{:?}", resolved.warnings);
    assert!(
        shown[0].starts_with("hats.yml:8:1: ")
            && shown[0].contains("memories (line 8), skills (line 10), transcripts (line 12)"),
        "{shown:?}"
    );
}

#[test]
fn a_broken_hats_file_is_reported_at_its_line_and_column() {
    let dir = tempfile::tempdir().expect("dir");
    fs::write(
        dir.path().join("hats.yml"),
        "hats:\n  one:\n    descripton: One\n    triggers: [s]\n",
    )
    .expect("write");
    let err = try_load(dir.path(), Some(HatsSource::File("hats.yml".into())))
        .expect_err("invalid")
        .to_string();
    assert!(
        err.contains(
            "hats.yml:3:5: unknown key `descripton` in `hats.one`: did you mean `description`?"
        ),
        "{err}"
    );
    let missing = try_load(dir.path(), Some(HatsSource::File("debug".into())))
        .expect_err("no such file")
        .to_string();
    assert!(missing.contains("write `-H builtin:debug`"), "{missing}");
}

#[test]
fn ralph_orchestrators_other_sources_say_what_to_pass_instead() {
    let dir = tempfile::tempdir().expect("dir");
    fs::create_dir(dir.path().join("presets")).expect("mkdir");
    fs::write(dir.path().join("presets/mine.yml"), "hats: {}\n").expect("write");
    let hats = |arg: &str| {
        try_load(dir.path(), Some(HatsSource::File(arg.into())))
            .expect_err("no such file")
            .to_string()
    };
    assert!(
        hats("mine").contains("`-H presets/mine.yml`"),
        "{}",
        hats("mine")
    );
    assert!(hats("https://example.com/x.yml").contains("downloads nothing"));
    let config = |arg: &str| {
        let options = LoadOptions {
            cwd: dir.path().to_path_buf(),
            config_file: Some(arg.into()),
            ..LoadOptions::default()
        };
        load(&options).expect_err("no such file").to_string()
    };
    assert!(config("https://example.com/ralph.yml").contains("downloads nothing"));
    let text = config("builtin:code-assist");
    assert!(text.contains("`-H builtin:code-assist`"), "{text}");
}

#[test]
fn an_unknown_preset_names_the_presets_and_the_likely_one() {
    let err = preset("code-asist").expect_err("unknown");
    assert_eq!(err.suggestion, Some("code-assist"));
    let text = err.to_string();
    for p in PRESETS {
        assert!(text.contains(p.name), "{text}");
    }
    assert!(HatsSource::parse("builtin:nope").is_err());
    assert_eq!(
        HatsSource::parse("presets/x.yml"),
        Ok(HatsSource::File("presets/x.yml".into()))
    );
    let found: &Preset = preset("debug").expect("debug");
    assert_eq!(found.name, "debug");
}

#[test]
fn a_presets_loop_complete_stands_for_the_runs_promise() {
    let dir = tempfile::tempdir().expect("dir");
    fs::write(dir.path().join("ralph.yml"), PROJECT).expect("write");
    let finishing = |config: &ralph_core::config::ResolvedConfig, promise: &str| -> Vec<String> {
        let publishes = config.hats.iter().flat_map(|h| &h.publishes);
        let defaults = config.hats.iter().flat_map(|h| &h.default_publishes);
        assert!(
            !publishes.chain(defaults).any(|t| t == "LOOP_COMPLETE"),
            "{:?}",
            config.hats
        );
        let hats = config.hats.iter();
        hats.filter(|h| h.publishes.iter().any(|t| t == promise))
            .map(|h| h.id.clone())
            .collect()
    };
    // The project's promise (ALL_DONE): the hat that finishes publishes it, no warning.
    let resolved = load_in(dir.path(), Some(builtin("review")));
    assert_eq!(resolved.warnings, vec![]);
    assert_eq!(finishing(&resolved.config, "ALL_DONE"), ["checker"]);
    // The command line's wins over the project's.
    let options = LoadOptions {
        cwd: dir.path().to_path_buf(),
        overrides: Overrides {
            prompt: Some("the task".into()),
            completion_promise: Some("SHIP_IT".into()),
            ..Overrides::default()
        },
        ..LoadOptions::default()
    };
    let config = load(&options.with_hats(Some(builtin("debug"))))
        .unwrap_or_else(|e| panic!("{e}"))
        .config;
    assert_eq!(finishing(&config, "SHIP_IT"), ["verifier"]);
}
