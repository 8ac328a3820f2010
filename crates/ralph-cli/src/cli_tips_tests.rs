use std::ffi::OsString;

use super::add_run_tips;

/// What ralph prints for `ralph <line>` (no colors).
fn refused(line: &[&str]) -> String {
    refused_with(line, add_run_tips)
}

/// What ralph prints for `ralph <line>` with the tips `add_tips` adds (no colors).
fn refused_with(line: &[&str], add_tips: fn(&mut clap::Error, &[OsString])) -> String {
    let args: Vec<OsString> = std::iter::once("ralph")
        .chain(line.iter().copied())
        .map(OsString::from)
        .collect();
    let mut err = crate::cli_config_env::command(None)
        .try_get_matches_from(&args)
        .expect_err("refused");
    add_tips(&mut err, &args);
    err.render().to_string()
}

#[test]
fn a_task_typed_as_a_positional_is_pointed_to_dash_p() {
    let text = refused(&["run", "fix the test"]);
    assert!(
        text.contains("unexpected argument 'fix the test'"),
        "{text}"
    );
    assert!(
        text.contains("tip: ralph run takes the task with -p: `ralph run -p 'fix the test'`"),
        "{text}"
    );
    let text = refused(&["run", "--max-iterations", "3", "fix"]);
    assert!(text.contains("`ralph run -p fix`"), "{text}");
}

#[test]
fn a_task_left_unquoted_after_dash_p_is_told_to_quote_it() {
    for line in [
        &["run", "-p", "fix", "the", "test"][..],
        &["run", "--prompt=fix", "the"],
    ] {
        let text = refused(line);
        assert!(
            text.contains("tip: the task is one argument: put it in quotes"),
            "{line:?}: {text}"
        );
        assert!(!text.contains("takes the task with -p"), "{text}");
    }
}

#[test]
fn a_worktree_name_without_its_equals_sign_is_shown_with_it() {
    let text = refused(&["run", "--worktree", "hello", "-p", "x"]);
    assert!(
        text.contains("tip: `--worktree` takes its name after `=`: `--worktree=hello`"),
        "{text}"
    );
}

#[test]
fn other_commands_and_unknown_flags_get_no_tip_of_these() {
    for line in [&["run", "--nope"][..], &["doctor", "fix"]] {
        let text = refused(line);
        assert!(!text.contains("tip: ralph run"), "{line:?}: {text}");
        assert!(!text.contains("in quotes"), "{line:?}: {text}");
    }
}

/// What ralph prints for `ralph plan <line>` with the plan tip (no colors).
fn plan_refused(line: &[&str]) -> String {
    let line: Vec<&str> = std::iter::once("plan")
        .chain(line.iter().copied())
        .collect();
    refused_with(&line, super::add_plan_tip)
}

#[test]
fn a_word_of_plans_idea_that_looks_like_a_flag_is_told_to_quote_not_to_use_dashes() {
    let text = plan_refused(&["support", "-1", "values"]);
    assert!(text.contains("unexpected argument '-1'"), "{text}");
    assert!(
        text.contains("tip: if `-1` is part of the idea, put the whole idea in quotes"),
        "{text}"
    );
    // plan refuses idea words on both sides of `--`: clap's tip would lead into that
    // refusal.
    assert!(!text.contains("-- -1"), "{text}");
    assert!(
        text.contains("(`ralph plan 'support -1 values'`)"),
        "{text}"
    );
}

#[test]
fn an_idea_that_starts_with_a_dash_is_told_to_go_after_dashes_not_to_be_quoted() {
    // Already quoted: quotes do not hide its leading `-`.
    for (line, shown) in [
        (
            &["-1 as a limit", "-b", "pi"][..],
            "`ralph plan -- '-1 as a limit'`",
        ),
        (
            &["-b", "pi", "-1", "as", "a", "limit"],
            "`ralph plan -- '-1 as a limit'`",
        ),
    ] {
        let text = plan_refused(line);
        assert!(
            text.contains("give the idea after `--`, with any flags before it")
                && text.contains(shown),
            "{line:?}: {text}"
        );
        assert!(!text.contains("in quotes"), "{line:?}: {text}");
    }
}
