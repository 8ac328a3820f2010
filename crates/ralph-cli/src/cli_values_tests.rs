use clap::CommandFactory;
use ralph_core::config::{BackendChoice, PRESETS};

use crate::cli::Cli;

/// The possible values clap knows for `ralph <command> --<flag>`.
fn possible(command: &str, flag: &str) -> Vec<String> {
    let cli = Cli::command();
    let sub = cli.find_subcommand(command).expect("the command");
    let arg = (sub.get_arguments())
        .find(|a| a.get_long() == Some(flag))
        .expect("the flag");
    arg.get_possible_values()
        .iter()
        .map(|v| v.get_name().to_owned())
        .collect()
}

#[test]
fn every_backend_flag_offers_the_one_list_of_backend_names() {
    let names: Vec<String> = BackendChoice::names().map(str::to_owned).collect();
    for command in ["run", "init", "plan"] {
        assert_eq!(possible(command, "backend"), names, "ralph {command}");
    }
}

#[test]
fn the_preset_flag_offers_the_built_in_presets() {
    let names: Vec<String> = PRESETS.iter().map(|p| p.name.to_owned()).collect();
    assert_eq!(possible("init", "preset"), names);
}
