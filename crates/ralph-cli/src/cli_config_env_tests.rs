use std::ffi::OsStr;

use super::{command, from_env};

/// The `-c` of every command, at every depth, with the variable it reads.
fn config_envs(command: &clap::Command, out: &mut Vec<(String, Option<String>)>) {
    for arg in command.get_arguments() {
        if arg.get_id() == "config" {
            let env = arg.get_env().map(|e| e.to_string_lossy().into_owned());
            out.push((command.get_name().to_owned(), env));
        }
    }
    for sub in command.get_subcommands() {
        config_envs(sub, out);
    }
}

#[test]
fn every_config_flag_reads_ralph_config() {
    let mut found = Vec::new();
    config_envs(&command(None), &mut found);
    assert!(found.len() >= 8, "{found:?}");
    for (name, env) in &found {
        assert_eq!(env.as_deref(), Some("RALPH_CONFIG"), "`ralph {name} -c`");
    }
}

#[test]
fn an_empty_ralph_config_is_read_by_no_flag() {
    let mut found = Vec::new();
    config_envs(&command(Some(OsStr::new(""))), &mut found);
    assert!(found.len() >= 8, "{found:?}");
    assert!(found.iter().all(|(_, env)| env.is_none()), "{found:?}");
}

#[test]
fn a_set_ralph_config_is_kept() {
    let mut found = Vec::new();
    config_envs(&command(Some(OsStr::new("ci.yml"))), &mut found);
    assert!(found.iter().all(|(_, env)| env.is_some()), "{found:?}");
}

#[test]
fn the_config_comes_from_the_variable_only_when_no_c_was_typed() {
    let args = |words: &[&str]| -> Vec<std::ffi::OsString> {
        words.iter().map(std::ffi::OsString::from).collect()
    };
    let set = Some(OsStr::new("ci.yml"));
    assert!(from_env(set, &args(&["ralph", "run", "-p", "x"])));
    assert!(from_env(
        set,
        &args(&["ralph", "tools", "task", "list", "-v"])
    ));
    for typed in [
        &["ralph", "run", "-c", "a.yml"][..],
        &["ralph", "run", "-ca.yml"],
        &["ralph", "tools", "task", "list", "--config", "a.yml"],
        &["ralph", "run", "--config=a.yml"],
    ] {
        assert!(!from_env(set, &args(typed)), "{typed:?}");
    }
    assert!(!from_env(None, &args(&["ralph", "run"])));
    assert!(!from_env(Some(OsStr::new("")), &args(&["ralph", "run"])));
}
