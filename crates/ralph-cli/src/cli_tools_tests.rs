use clap::CommandFactory as _;

use crate::cli::Cli;

/// The help `ralph tools <tool> --help` gives for `--root`.
fn root_help(tool: &str) -> String {
    let mut cli = Cli::command();
    cli.build();
    let tools = cli.find_subcommand("tools").expect("ralph tools");
    let tool = tools.find_subcommand(tool).expect("the tool");
    let root = (tool.get_arguments())
        .find(|a| a.get_long() == Some("root"))
        .expect("--root");
    root.get_help().expect("--root has help").to_string()
}

/// The tools walk up to the nearest `.ralph/` (commands::enclosing_workspace), as
/// docs/cli.md says: a help that named only the current directory sent people typing in a
/// subdirectory looking for a `.ralph/` there.
#[test]
fn the_root_help_of_every_tool_names_the_walk_up_to_the_nearest_ralph_dir() {
    for tool in ["task", "memory", "skill"] {
        let help = root_help(tool);
        assert!(
            help.contains("$RALPH_WORKSPACE")
                && help.contains("nearest directory from here up that has a `.ralph/`"),
            "ralph tools {tool} --root: {help}"
        );
    }
}
