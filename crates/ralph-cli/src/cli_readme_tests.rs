//! The README's command table against the commands themselves: a command (or one of its
//! subcommands) the table leaves out is one a reader of the README never hears of.

use clap::CommandFactory;

use super::Cli;

const README: &str = include_str!("../../../README.md");

/// The rows of the README's "Commands" table, past its header.
fn table_rows() -> Vec<&'static str> {
    let section = README
        .split("\n## Commands\n")
        .nth(1)
        .expect("a Commands section");
    section
        .lines()
        .skip_while(|l| !l.starts_with('|'))
        .take_while(|l| l.starts_with('|'))
        .skip(2)
        .collect()
}

/// The first cell of each row that names `ralph NAME`: the command's synopsis.
fn synopses(name: &str) -> Vec<&'static str> {
    let command = format!("ralph {name}");
    table_rows()
        .into_iter()
        .filter_map(|row| row.split(" | ").next())
        .filter(|cell| {
            // A cell may give several synopses, each in backticks, separated by commas.
            cell.split(", ").any(|part| {
                let part = part.trim_start_matches("| ").trim_start_matches('`');
                part == command
                    || part.starts_with(&format!("{command} "))
                    || part.starts_with(&format!("{command}`"))
            })
        })
        .collect()
}

fn shown(command: &clap::Command) -> impl Iterator<Item = &clap::Command> {
    command
        .get_subcommands()
        .filter(|c| !c.is_hide_set() && c.get_name() != "help")
}

#[test]
fn every_command_and_its_subcommands_have_a_row_in_the_readme() {
    let cli = Cli::command();
    for command in shown(&cli) {
        let name = command.get_name();
        let rows = synopses(name);
        assert!(!rows.is_empty(), "README: no row for `ralph {name}`");
        let text = rows.join(" ");
        for sub in shown(command) {
            let sub = sub.get_name();
            assert!(
                text.contains(&format!("ralph {name} {sub}")) || text.contains(&format!("|{sub}")),
                "README: `ralph {name} {sub}` is missing from {text}"
            );
        }
    }
}

/// `ralph events` is read to find what happened in a run: its row gives every option.
#[test]
fn the_readme_gives_every_option_of_ralph_events() {
    let cli = Cli::command();
    let events = cli.find_subcommand("events").expect("ralph events");
    let text = synopses("events").join(" ");
    for arg in events.get_arguments().filter(|a| !a.is_hide_set()) {
        if let Some(long) = arg.get_long().filter(|l| *l != "help") {
            assert!(
                text.contains(&format!("--{long}")),
                "README: `ralph events --{long}` is missing from {text}"
            );
        }
    }
}
