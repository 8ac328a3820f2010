use std::ffi::OsString;

use super::{Form, HINTS, add_migration_hint};

/// What ralph prints for `ralph <line>` (no colors), hints added as `main` adds them.
fn refused(line: &[&str]) -> String {
    let args: Vec<OsString> = std::iter::once("ralph")
        .chain(line.iter().copied())
        .map(OsString::from)
        .collect();
    let mut err = crate::cli_config_env::parse_from(None, &args).expect_err("refused");
    add_migration_hint(&mut err, &args);
    err.render().to_string()
}

#[test]
fn clean_and_loops_get_their_replacement_not_a_similar_command() {
    let text = refused(&["clean"]);
    assert!(text.contains("unrecognized subcommand 'clean'"), "{text}");
    assert!(
        text.contains("`ralph runs prune` removes old runs"),
        "{text}"
    );
    assert!(!text.contains("similar"), "{text}");
    assert!(!text.contains("'plan'"), "{text}");
    let text = refused(&["loops", "list"]);
    assert!(text.contains("`ralph runs` lists the runs"), "{text}");
    assert!(!text.contains("'hooks'"), "{text}");
}

#[test]
fn a_flag_of_the_incumbent_is_named_with_its_replacement_and_the_commands_usage() {
    let text = refused(&["events", "--iteration", "1"]);
    assert!(
        text.contains("`ralph events --iteration` is ralph-orchestrator's"),
        "{text}"
    );
    assert!(text.contains("see docs/migrating.md"), "{text}");
    assert!(!text.contains("--version"), "{text}");
    assert!(text.contains("Usage: ralph events [OPTIONS]"), "{text}");
    let text = refused(&["run", "--idle-timeout=10"]);
    assert!(text.contains("`cli.idle_timeout_seconds`"), "{text}");
    let text = refused(&["run", "--no-tui"]);
    assert!(!text.contains("--no-gates"), "{text}");
}

#[test]
fn flags_before_the_command_are_told_to_go_after_it() {
    for line in [
        &["-c", "ci.yml", "run"][..],
        &["-H", "builtin:debug", "run"],
        &["-v", "run"],
    ] {
        let text = refused(line);
        assert!(text.contains("before the command"), "{text}");
        assert!(text.contains("`ralph run -c FILE`"), "{text}");
    }
}

#[test]
fn words_after_dashes_are_refused_for_plan_as_for_run() {
    let run = refused(&["run", "--", "--model", "y"]);
    let plan = refused(&["plan", "x", "--", "--model", "y"]);
    for text in [&run, &plan] {
        assert!(text.contains("unexpected argument '--model'"), "{text}");
        assert!(text.contains("`cli.args`"), "{text}");
    }
    assert!(plan.contains("Usage: ralph plan"), "{plan}");
    assert!(refused(&["plan", "--"]).contains("`cli.args`"));
    assert!(refused(&["plan", "-b", "pi", "x", "--", "y"]).contains("`cli.args`"));
}

#[test]
fn an_idea_wholly_after_dashes_is_the_idea() {
    for (line, idea) in [
        (&["plan", "--", "-1 as a limit"][..], vec!["-1 as a limit"]),
        (
            &[
                "plan",
                "-b",
                "pi",
                "--dry-run",
                "--",
                "-1",
                "as",
                "a",
                "limit",
            ],
            vec!["-1", "as", "a", "limit"],
        ),
        (&["plan", "--", "--teams"], vec!["--teams"]),
    ] {
        let args: Vec<OsString> = std::iter::once("ralph")
            .chain(line.iter().copied())
            .map(OsString::from)
            .collect();
        let cli = match crate::cli_config_env::parse_from(None, &args) {
            Ok(cli) => cli,
            Err(e) => panic!("{line:?} refused: {}", e.render()),
        };
        let crate::cli::Command::Plan(plan) = cli.command else {
            panic!("{line:?}: not plan");
        };
        assert_eq!(plan.idea, idea, "{line:?}");
    }
}

#[test]
fn a_command_under_one_of_ralphs_is_named_whole_with_its_parents_usage() {
    let text = refused(&["tools", "interact", "progress", "halfway"]);
    assert!(
        text.contains("`ralph tools interact` is ralph-orchestrator's"),
        "{text}"
    );
    assert!(text.contains("`ralph watch RUN`"), "{text}");
    assert!(text.contains("Usage: ralph tools"), "{text}");
    // Only under `tools`: a top-level `interact` is no form of the table.
    let args: Vec<OsString> = ["ralph", "interact"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let mut err = crate::cli_config_env::parse_from(None, &args).expect_err("refused");
    assert!(!add_migration_hint(&mut err, &args));
}

#[test]
fn plan_teams_is_told_how_to_turn_claudes_agent_teams_on() {
    for line in [&["plan", "--teams"][..], &["plan", "--teams", "an idea"]] {
        let text = refused(line);
        assert!(
            text.contains("`ralph plan --teams` is ralph-orchestrator's"),
            "{text}"
        );
        assert!(
            text.contains("`CLAUDE_CODE_EXPERIMENTAL_AGENT_TEAMS=1 ralph plan -b claude`"),
            "{text}"
        );
    }
}

#[test]
fn a_flag_ralph_takes_elsewhere_gets_no_hint_of_another_command() {
    // `--file` is in the table for `events` and `emit`, not for `init`.
    let args: Vec<OsString> = ["ralph", "init", "--file", "x"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let mut err = crate::cli_config_env::command(None)
        .try_get_matches_from(&args)
        .expect_err("refused");
    assert!(!add_migration_hint(&mut err, &args));
}

#[test]
fn every_form_is_in_one_row_only() {
    let forms: Vec<Form> = HINTS.iter().flat_map(|h| h.forms.iter().copied()).collect();
    for (i, form) in forms.iter().enumerate() {
        assert!(!forms[i + 1..].contains(form), "{form:?} twice");
    }
}

include!(concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/tests/common/migrating_table.rs"
));

#[test]
fn every_hint_is_a_row_of_the_doc_and_names_every_form_it_answers() {
    let rows = migrating_rows();
    assert_eq!(rows.len(), HINTS.len(), "one hint a row");
    for (hint, (incumbent, ours)) in HINTS.iter().zip(rows) {
        for span in ours.split('`').skip(1).step_by(2) {
            assert!(
                hint.instead.contains(span),
                "{span} not in {:?}",
                hint.instead
            );
        }
        for form in hint.forms {
            let named = match *form {
                Form::Command(name) => incumbent.contains(&format!("`ralph {name}")),
                Form::Flag(_, flag) => incumbent.contains(flag),
                Form::AfterDashes(command) => {
                    incumbent.contains(&format!("`ralph {command}"))
                        && incumbent.contains("-- ARGS")
                }
            };
            assert!(named, "{form:?} is not in the row {incumbent}");
        }
    }
}

/// The payload may start with `-`, so clap alone took `ralph emit TOPIC --ts` for a payload
/// and published it, and refused `--ts 123 MSG` for its `123`, without the hint.
#[test]
fn emits_ts_and_file_are_refused_even_where_the_payload_could_take_them() {
    for line in [
        &["emit", "build.done", "--ts"][..],
        &["emit", "build.done", "--ts", "123", "tests pass"],
        &["emit", "build.done", "--ts=123"],
        &["emit", "-j", "build.done", "--file", "out.jsonl"],
        &["emit", "build.done", "tests pass", "--ts", "123"],
    ] {
        let text = refused(line);
        let flag = if line.contains(&"--file") {
            "--file"
        } else {
            "--ts"
        };
        assert!(
            text.contains(&format!("`ralph emit {flag}` is ralph-orchestrator's")),
            "{line:?}: {text}"
        );
        assert!(text.contains("ralph times each event itself"), "{text}");
        assert!(text.contains("Usage: ralph emit"), "{text}");
    }
}

#[test]
fn a_payload_that_is_such_a_flag_is_published_after_dashes() {
    let args: Vec<OsString> = ["ralph", "emit", "build.done", "--", "--ts"]
        .into_iter()
        .map(OsString::from)
        .collect();
    let cli = crate::cli_config_env::parse_from(None, &args).expect("accepted");
    let crate::cli::Command::Emit(emit) = cli.command else {
        panic!("not emit: {cli:?}");
    };
    assert_eq!(emit.payload.as_deref(), Some("--ts"));
    // A payload that merely starts like one is no flag.
    let args: Vec<OsString> = ["ralph", "emit", "build.done", "--tsv files"]
        .into_iter()
        .map(OsString::from)
        .collect();
    assert!(crate::cli_config_env::parse_from(None, &args).is_ok());
}
