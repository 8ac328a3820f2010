//! The everyday commands end to end: `ralph init`, `plan`, `doctor`, `completions`, and
//! `--help` with examples on every command (`ralph events` is in events_command.rs).

mod common;

use std::process::Stdio;

use common::{Workspace, code, stderr, stdout};
use pretty_assertions::assert_eq;
use serde_json::Value;

#[test]
fn init_writes_a_template_that_every_command_accepts_for_every_backend() {
    for backend in [
        "auto", "claude", "kiro", "gemini", "codex", "amp", "copilot", "opencode", "pi", "custom",
    ] {
        let ws = Workspace::new("", "");
        let out = ws.run(&["init", "--backend", backend]);
        assert_eq!(code(out.status), 0, "{backend}: {}", stderr(&out));
        let text = std::fs::read_to_string(ws.path().join("ralph.yml")).expect("ralph.yml");
        assert!(text.contains(&format!("backend: {backend}\n")), "{text}");
        let dry = ws.run(&["run", "--dry-run", "-p", "task"]);
        assert_eq!(code(dry.status), 0, "{backend}: {}", stderr(&dry));
    }
}

#[test]
fn init_keeps_an_existing_file_unless_forced() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&["init", "--backend", "claude"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("`ralph.yml` already exists; keep it, or pass --force"),
        "{}",
        stderr(&out)
    );
    let kept = std::fs::read_to_string(ws.path().join("ralph.yml")).expect("ralph.yml");
    assert_eq!(kept, "cli:\n  backend: pi\n");

    let out = ws.run(&["init", "--backend", "claude", "--force"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let replaced = std::fs::read_to_string(ws.path().join("ralph.yml")).expect("ralph.yml");
    assert!(replaced.contains("backend: claude\n"), "{replaced}");

    let out = ws.run(&["init", "-c", "ci/alt.yml"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(ws.path().join("ci/alt.yml").is_file());
    // A config that is not `ralph.yml` is read only when named: so do the next steps.
    let said = stdout(&out);
    assert!(
        said.contains("`ralph doctor -c ci/alt.yml`") && said.contains("`ralph run -c ci/alt.yml`"),
        "{said}"
    );
    assert!(!said.contains("`ralph run`"), "{said}");
    // The task is read from beside that config, and said so; a run without it names
    // the same file.
    assert!(said.contains("write the task in ci/PROMPT.md"), "{said}");
    let out = ws.run(&["run", "-c", "ci/alt.yml"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("write it in ci/PROMPT.md"),
        "{}",
        stderr(&out)
    );
    std::fs::write(ws.path().join("ci/PROMPT.md"), "the task\n").unwrap();
    let out = ws.run(&["run", "-c", "ci/alt.yml", "--dry-run"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(
        stdout(&out).contains("prompt_file: ci/PROMPT.md"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn plan_starts_the_agent_interactively_with_a_planning_prompt() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "- | |\n");
    let out = ws.run(&["plan", "a", "command", "that", "prunes", "old", "runs"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let log = ws.agent_log();
    assert!(
        log[0].starts_with("1 pi hat= iteration= bin=missing args=--no-session Help me plan"),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l == "The idea: a command that prunes old runs"),
        "{log:?}"
    );
    assert!(
        log.iter()
            .any(|l| l.contains("Write the spec to `.ralph/specs/<short-name>.md`")),
        "{log:?}"
    );
    assert!(ws.path().join(".ralph/specs").is_dir());
}

#[test]
fn plan_takes_flags_written_after_the_idea_as_flags() {
    let ws = Workspace::new("cli:\n  backend: claude\n", "");
    for line in [
        &["plan", "dark mode", "-b", "pi", "--dry-run"][..],
        &["plan", "dark", "-b", "pi", "mode", "--dry-run"],
    ] {
        let out = ws.run(line);
        assert_eq!(code(out.status), 0, "{line:?}: {}", stderr(&out));
        let shown = stdout(&out);
        assert!(shown.contains("/pi --no-session 'Help me plan"), "{shown}");
        assert!(shown.contains("The idea: dark mode\n"), "{line:?}: {shown}");
    }
    assert!(
        !ws.agent_log()
            .iter()
            .any(|l| l.contains(" hat= iteration= ")),
        "--dry-run starts nothing"
    );
    // A flag plan does not take is refused wherever it is, not planned.
    let out = ws.run(&["plan", "dark mode", "--teams"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("`ralph plan --teams` is ralph-orchestrator's"),
        "{}",
        stderr(&out)
    );
}

#[test]
fn plan_takes_an_idea_that_starts_with_a_dash_after_dashes() {
    let ws = Workspace::new("cli:\n  backend: claude\n", "");
    let options = ["plan", "-b", "pi", "--dry-run", "--"];
    // The idea as one word, and as the words a shell gives for it unquoted.
    let one_word = [&options[..], &["-1 as a limit"]].concat();
    let words = [
        &options[..],
        &"-1 as a limit".split(' ').collect::<Vec<_>>(),
    ]
    .concat();
    for line in [&one_word, &words] {
        let out = ws.run(line);
        assert_eq!(code(out.status), 0, "{line:?}: {}", stderr(&out));
        let shown = stdout(&out);
        assert!(shown.contains("/pi --no-session 'Help me plan"), "{shown}");
        assert!(
            shown.contains("The idea: -1 as a limit\n"),
            "{line:?}: {shown}"
        );
    }
    // ralph-orchestrator's form, the idea before `--` and the agent's words after it,
    // is still refused, with what to use instead.
    let out = ws.run(&["plan", "-b", "pi", "an idea", "--", "--model", "x"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(stderr(&out).contains("`cli.args`"), "{}", stderr(&out));
}

#[test]
fn plan_makes_its_specs_directory_through_no_link_and_names_a_file_in_its_way() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "- | |\n- | |\n");
    std::fs::create_dir(ws.path().join("elsewhere")).unwrap();
    std::os::unix::fs::symlink("elsewhere", ws.path().join(".ralph")).unwrap();
    let out = ws.run(&["plan", "x"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a symbolic link"),
        "{}",
        stderr(&out)
    );
    assert!(!ws.path().join("elsewhere/specs").exists());
    std::fs::remove_file(ws.path().join(".ralph")).unwrap();
    std::fs::create_dir(ws.path().join(".ralph")).unwrap();
    std::fs::write(ws.path().join(".ralph/specs"), "").unwrap();
    let out = ws.run(&["plan", "x"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains("is a regular file, not a directory"),
        "{}",
        stderr(&out)
    );
    assert!(ws.agent_log().is_empty(), "no session started");
}

#[test]
fn plan_reports_the_agent_s_failure_and_can_print_its_command_line() {
    let ws = Workspace::new(
        "cli:\n  backend: claude\ncore:\n  specs_dir: specs\n",
        "- | | exit=3\n",
    );
    let out = ws.run(&["plan", "x"]);
    assert_eq!(code(out.status), 1);
    assert!(
        stderr(&out).contains("claude exited with code 3"),
        "{}",
        stderr(&out)
    );

    let out = ws.run(&["plan", "--dry-run", "-b", "pi", "dark mode"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    let line = stdout(&out);
    assert!(line.contains("/pi --no-session 'Help me plan"), "{line}");
    assert!(line.contains("The idea: dark mode"), "{line}");
    assert!(line.contains("`specs/<short-name>.md`"), "{line}");
    let starts = ws
        .agent_log()
        .iter()
        .filter(|l| l.contains(" hat= iteration= "))
        .count();
    assert_eq!(starts, 1, "--dry-run starts nothing");
}

#[test]
fn completions_are_generated_for_each_shell() {
    let ws = Workspace::new("", "");
    for (shell, marker) in [
        ("bash", "_ralph()"),
        ("zsh", "#compdef ralph"),
        ("fish", "complete -c ralph"),
        ("elvish", "edit:completion:arg-completer[ralph]"),
        ("powershell", "Register-ArgumentCompleter"),
    ] {
        let out = ws.run(&["completions", shell]);
        assert_eq!(code(out.status), 0, "{shell}: {}", stderr(&out));
        let script = stdout(&out);
        assert!(script.contains(marker), "{shell}: {script}");
        assert!(script.contains("doctor"), "{shell}");
    }
}

#[test]
fn completions_offer_backend_and_preset_names_not_file_names() {
    let ws = Workspace::new("", "");
    let script = stdout(&ws.run(&["completions", "bash"]));
    // The case of each flag that takes a value: the words it completes.
    let offered = |flag: &str| -> Vec<String> {
        let mut lines = script.lines();
        let mut all = Vec::new();
        while lines.any(|l| l.trim() == format!("{flag})")) {
            let line = lines.next().unwrap_or_default();
            all.push(line.trim().to_owned());
        }
        all
    };
    for flag in ["--backend", "-b"] {
        let offers = offered(flag);
        assert!(!offers.is_empty(), "no {flag} in the script");
        for line in offers {
            assert!(
                line.contains("compgen -W \"auto claude ") && line.contains(" pi "),
                "{flag}: {line}"
            );
        }
    }
    let presets = offered("--preset");
    assert_eq!(presets.len(), 1, "{presets:?}");
    assert!(
        presets[0].contains("code-assist debug review"),
        "{}",
        presets[0]
    );
    let fish = stdout(&ws.run(&["completions", "fish"]));
    assert!(
        fish.lines()
            .any(|l| l.contains("-l preset") && l.contains("-f -a \"code-assist")),
        "{fish}"
    );
}

#[test]
fn every_command_s_help_has_examples() {
    let ws = Workspace::new("", "");
    for command in [
        "run",
        "emit",
        "inspect",
        "init",
        "plan",
        "doctor",
        "events",
        "completions",
        "hooks",
    ] {
        let out = ws.run(&[command, "--help"]);
        assert_eq!(code(out.status), 0, "{command}");
        let help = stdout(&out);
        let examples = help.split_once("Examples:\n").map_or("", |(_, e)| e);
        assert!(
            examples.contains(&format!("ralph {command}")),
            "{command}:\n{help}"
        );
    }
}

#[test]
fn a_mistyped_command_gets_a_did_you_mean_even_when_short() {
    let ws = Workspace::new("", "");
    for (typed, meant) in [("rn", "'run'"), ("ru", "'run'"), ("evnets", "'events'")] {
        let out = ws.run(&[typed]);
        assert_eq!(code(out.status), 1, "{}", stderr(&out));
        assert!(
            stderr(&out).contains(&format!("a similar subcommand exists: {meant}")),
            "{typed}: {}",
            stderr(&out)
        );
    }
    let out = ws.run(&["xyzzy"]);
    assert!(!stderr(&out).contains("similar"), "{}", stderr(&out));
}

#[test]
fn a_task_given_to_run_as_plan_takes_its_idea_gets_a_tip_to_use_dash_p() {
    let ws = Workspace::new("", "");
    let out = ws.run(&["run", "fix the failing test"]);
    assert_eq!(code(out.status), 1, "{}", stderr(&out));
    assert!(
        stderr(&out).contains(
            "tip: ralph run takes the task with -p: `ralph run -p 'fix the failing test'`"
        ),
        "{}",
        stderr(&out)
    );
    assert!(ws.agent_log().is_empty(), "no agent ran");
}

#[test]
fn plan_says_which_spec_was_written_and_what_to_run_next() {
    let ws = Workspace::new(
        "cli:\n  backend: pi\n",
        "- | | write=.ralph/specs/prune.md\n- | |\n",
    );
    let out = ws.run(&["plan", "prune old runs"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert_eq!(
        stdout(&out),
        "spec written: .ralph/specs/prune.md; next: `ralph run -P .ralph/specs/prune.md`\n"
    );
    // A session that writes nothing says so.
    let out = ws.run(&["plan", "something else"]);
    assert!(
        stdout(&out).starts_with("no spec was written in .ralph/specs/;"),
        "{}",
        stdout(&out)
    );
}

#[test]
fn dry_run_prints_yaml_so_it_refuses_the_json_stdout() {
    let ws = Workspace::new("cli:\n  backend: pi\n", "");
    let out = ws.run(&["run", "--dry-run", "--output", "json", "-p", "task"]);
    assert_ne!(code(out.status), 0);
    // Stdout holds only JSON lines: here the one error line a refused command line gets.
    let line: Value = serde_json::from_str(&stdout(&out)).expect("one JSON line");
    assert_eq!(line["type"], "error");
    assert!(
        stderr(&out).contains("'--dry-run' cannot be used with '--output"),
        "{}",
        stderr(&out)
    );
    let out = ws.run(&["run", "--dry-run", "-p", "task"]);
    assert_eq!(code(out.status), 0, "{}", stderr(&out));
    assert!(stdout(&out).starts_with("# Resolved ralph configuration"));
}

#[test]
fn an_error_with_nobody_reading_stderr_exits_with_its_code_not_a_panic() {
    // `ralph … 2>&1 | tee log` where Ctrl-C took `tee` down first: stderr is a pipe with
    // no reader, and writing the error there fails.
    let ws = Workspace::new("", "");
    let (read, write) = nix::unistd::pipe().expect("a pipe");
    drop(read);
    let out = std::process::Command::new(common::ralph_bin())
        .args(["runs", "land", "nosuch"])
        .current_dir(ws.path())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::from(write))
        .output()
        .expect("run ralph");
    assert_eq!(code(out.status), 1, "{out:?}");
}
