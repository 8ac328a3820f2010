//! `ralph init --list-presets`, `ralph init --preset NAME` and `ralph run -H` end to end
//! (without an agent: `--dry-run`). `real_pi_presets.rs` runs each preset with the real pi.

mod common;

use std::process::Output;

use common::{Workspace, code};
use pretty_assertions::assert_eq;

fn stdout(out: &Output) -> String {
    String::from_utf8_lossy(&out.stdout).into_owned()
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// The presets `ralph init --list-presets` prints, by the first word of each line.
fn listed(ws: &Workspace) -> Vec<String> {
    let out = ws.run(&["init", "--list-presets"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    stdout(&out)
        .lines()
        .map(|l| l.split_whitespace().next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn list_presets_prints_one_preset_a_line_starting_with_its_name() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["init", "--list-presets"]);
    let text = stdout(&out);
    for line in text.lines() {
        let (name, description) = line.split_once("  ").expect("a name and a description");
        assert!(!name.is_empty() && !description.trim().is_empty(), "{line}");
    }
    // Every built-in preset, in the order ralph keeps them.
    let registered: Vec<&str> = ralph_core::config::PRESETS.iter().map(|p| p.name).collect();
    assert_eq!(listed(&ws), registered, "{text}");
    assert!(registered.len() >= 6);
    // Listing writes nothing.
    assert!(!ws.path().join("ralph.yml").exists());
}

#[test]
fn init_preset_writes_a_config_that_run_accepts_for_every_preset() {
    let names = listed(&Workspace::new("", ""));
    for name in &names {
        let ws = Workspace::new("", "");
        let out = ws.run(&["init", "--preset", name, "--backend", "pi"]);
        assert_eq!(code(out.status), 0, "{name}: {}", stderr(&out));
        assert!(
            stdout(&out).contains(&format!("preset: {name}")),
            "{}",
            stdout(&out)
        );
        let text = std::fs::read_to_string(ws.path().join("ralph.yml")).expect("ralph.yml");
        assert!(text.contains("backend: pi\n"), "{text}");
        let dry = ws.run(&["run", "--dry-run", "-p", "task"]);
        assert_eq!(code(dry.status), 0, "{name}: {}", stderr(&dry));
        assert_eq!(stderr(&dry), "", "{name}");
        // The same hats as `-H builtin:NAME` over an empty project.
        let bare = Workspace::new("", "");
        let overlaid = bare.run(&[
            "run",
            "-H",
            &format!("builtin:{name}"),
            "--dry-run",
            "-p",
            "task",
        ]);
        assert_eq!(code(overlaid.status), 0, "{name}: {}", stderr(&overlaid));
        let hats = |dump: &str| {
            dump.split_once("\nhats:")
                .map(|(_, h)| h.split_once("\ngates:").map_or(h, |(h, _)| h).to_owned())
        };
        let hats_written = hats(&stdout(&dry));
        assert_eq!(hats_written, hats(&stdout(&overlaid)), "{name}");
    }
}

#[test]
fn init_preset_keeps_an_existing_file_unless_forced() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&["init", "--preset", "debug"]);
    assert_eq!(code(out.status), 1);
    let out = ws.run(&["init", "--preset", "debug", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let text = std::fs::read_to_string(ws.path().join("ralph.yml")).expect("ralph.yml");
    assert!(text.contains("starting_event: debug.start\n"), "{text}");
}

#[test]
fn an_incumbent_preset_we_do_not_ship_names_what_replaces_it() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&[
        "run",
        "-H",
        "builtin:pdd-to-code-assist",
        "--dry-run",
        "-p",
        "x",
    ]);
    assert_eq!(code(out.status), 1);
    let err = stderr(&out);
    assert!(
        err.contains(
            "there is no built-in preset `pdd-to-code-assist`: that is a preset of \
             ralph-orchestrator; `spec-driven` covers its ground"
        ) && err.contains("the presets are code-assist,"),
        "{err}"
    );
    let out = ws.run(&["init", "--preset", "merge-loop"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("`ralph runs land`"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn an_unknown_preset_is_refused_with_the_list_and_a_guess() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["init", "--preset", "debgu"]);
    assert_eq!(code(out.status), 1);
    let err = stderr(&out);
    assert!(
        err.contains("there is no built-in preset `debgu` (did you mean `debug`?); the presets are code-assist, debug,"),
        "{err}"
    );
    assert!(!ws.path().join("ralph.yml").exists());
    let out = ws.run(&["run", "-H", "builtin:reveiw", "--dry-run", "-p", "x"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("(did you mean `review`?)"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn a_hats_name_found_where_ralph_orchestrator_looked_is_given_its_path() {
    let ws = Workspace::new("", "");
    let mine = ws.path().join("my-presets");
    std::fs::create_dir(&mine).unwrap();
    std::fs::write(mine.join("tidy.yaml"), "hats: {}\n").unwrap();
    let autoloop = ws.path().join(".fake/.config/autoloop/presets");
    std::fs::create_dir_all(&autoloop).unwrap();
    std::fs::write(autoloop.join("lint.yml"), "hats: {}\n").unwrap();
    for (name, path) in [
        ("tidy", mine.join("tidy.yaml")),
        ("lint", autoloop.join("lint.yml")),
    ] {
        let out = ws
            .command(&["run", "-H", name, "--dry-run", "-p", "x"])
            .env("RALPH_PRESETS_DIR", &mine)
            .output()
            .unwrap();
        assert_eq!(code(out.status), 1);
        let err = stderr(&out);
        assert!(
            err.contains(&format!("{name}: cannot read this hats file: No such file")),
            "{err}"
        );
        assert!(
            err.contains(&format!(
                "-H takes the file's path, `-H {}`",
                path.display()
            )),
            "{err}"
        );
    }
}

#[test]
fn run_h_shows_the_merged_config_and_names_the_hats_source() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\nevent_loop:\n  max_iterations: 9\n",
        "",
    );
    std::fs::write(
        ws.path().join("hats.yml"),
        "hats:\n  solo:\n    description: Does it all\n    triggers: [go]\n    publishes: [LOOP_COMPLETE]\n\
         event_loop:\n  starting_event: go\n  max_iterations: 2\n",
    )
    .expect("write");
    for flag in ["-H", "--hats"] {
        let out = ws.run(&["run", flag, "hats.yml", "--dry-run", "-p", "x"]);
        assert_eq!(code(out.status), 0, "{}", stderr(&out));
        let dump = stdout(&out);
        assert!(
            dump.starts_with("# Resolved ralph configuration (built-in defaults, then ralph.yml, then hats.yml, then the command line)"),
            "{dump}"
        );
        assert!(dump.contains("  max_iterations: 9\n"), "{dump}");
        assert!(dump.contains("  starting_event: go\n"), "{dump}");
        assert!(dump.contains("\n  solo:\n"), "{dump}");
        assert!(
            stderr(&out).contains("hats.yml:6:1: a hats file (-H) brings hats and their workflow keys only: what it sets under event_loop (other than the workflow's keys) (line 6) is ignored"),
            "{}",
            stderr(&out)
        );
    }
    let out = ws.run(&["run", "-H", "builtin:debug", "--dry-run", "-p", "x"]);
    let dump = stdout(&out);
    assert!(dump.contains("then builtin:debug, then"), "{dump}");
    assert!(
        dump.contains("\n  investigator:\n") && !dump.contains("\n  solo:\n"),
        "{dump}"
    );
}

#[test]
fn a_broken_hats_file_is_reported_with_its_position() {
    let ws = Workspace::new("", "");
    std::fs::write(
        ws.path().join("hats.yml"),
        "hats:\n  a:\n    triggers: [go\n",
    )
    .expect("write");
    let out = ws.run(&["run", "-H", "hats.yml", "--dry-run", "-p", "x"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).starts_with("ralph: hats.yml:"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn doctor_checks_the_config_with_the_hats_of_h() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&["doctor", "-H", "builtin:review", "--format", "json"]);
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(
        report["config"]["files"],
        serde_json::json!(["ralph.yml", "builtin:review"]),
        "{report}"
    );
}

#[test]
fn continue_keeps_the_hats_of_h() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "pi/anthropic/text.jsonl | cause.found=add.sh line 1 |\n\
         pi/anthropic/text.jsonl | fix.done=fixed |\n",
    );
    let (code, _, stderr) =
        ws.run_json(&["-H", "builtin:debug", "-p", "task", "--max-iterations", "1"]);
    assert_eq!(code, 2, "{stderr}");
    // No -H this time: the run goes on with the hats it started with.
    let (code, _, stderr) = ws.run_json(&["--continue", "--max-iterations", "2"]);
    assert_eq!(code, 2, "{stderr}");
    let hats: Vec<String> = ws
        .agent_log()
        .iter()
        .filter_map(|l| {
            l.split_whitespace()
                .find_map(|w| w.strip_prefix("hat="))
                .map(str::to_owned)
        })
        .collect();
    assert_eq!(hats, ["investigator", "fixer"]);
    assert_eq!(ws.saved_state()["command_line"]["hats"], "builtin:debug");
}
