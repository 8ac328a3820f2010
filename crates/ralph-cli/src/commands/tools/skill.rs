//! `ralph tools skill`: list the workspace's skills and print one (ralph-core's
//! `skills` module finds them).

use std::borrow::Cow;
use std::fmt::Write as _;
use std::path::Path;

use ralph_core::config::Overrides;
use ralph_core::skills::{Found, Skill, discover};
use ralph_core::visible::visible_line;
use serde::Serialize;

use super::{Out, ToolError, workspace};
use crate::cli::TableArg;
use crate::cli_tools_skill::{SkillArgs, SkillCommand};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;

/// The most edits a mistyped skill name may be from a real one to be suggested.
const MAX_SUGGESTION_EDITS: usize = 2;

pub(super) fn run(args: SkillArgs) -> Result<CommandOutcome, CliError> {
    let workspace = workspace(&args.options)?;
    let config = super::super::load_config(
        &workspace,
        args.options.config.clone(),
        Overrides::default(),
    )?;
    let found = discover(&workspace, &config.skills);
    for problem in &found.problems {
        diagnostic(format_args!("warning: {problem}"));
    }
    let mut out = Out::stdout();
    match args.command {
        SkillCommand::List(list) => match list.format {
            TableArg::Json => {
                let rows: Vec<Row<'_>> = found
                    .skills
                    .iter()
                    .map(|s| Row::of(s, &workspace))
                    .collect();
                out.json(&rows)?;
            }
            TableArg::Table if found.skills.is_empty() => out.text(&none_found(&config.skills))?,
            TableArg::Table => out.text(&table(&found, &workspace))?,
        },
        SkillCommand::Load(load) => match found.get(load.name.trim()) {
            Some(skill) => out.text(&skill.loaded())?,
            None => return Err(unknown(&found, &load.name, &config.skills).into()),
        },
    }
    out.finish()
}

/// A skill as `list --format json` prints it.
#[derive(Serialize)]
struct Row<'a> {
    name: &'a str,
    description: &'a str,
    path: String,
    hats: &'a [String],
    backends: &'a [String],
    auto_inject: bool,
}

impl<'a> Row<'a> {
    fn of(skill: &'a Skill, workspace: &Path) -> Row<'a> {
        Row {
            name: &skill.name,
            description: &skill.description,
            path: shown(&skill.path, workspace),
            hats: &skill.hats,
            backends: &skill.backends,
            auto_inject: skill.auto_inject,
        }
    }
}

/// A path relative to the workspace when it is inside it.
fn shown(path: &Path, workspace: &Path) -> String {
    path.strip_prefix(workspace)
        .unwrap_or(path)
        .display()
        .to_string()
}

/// One line a skill. Skills come with the repository (anyone's to write), so a control
/// character in a name, description or path is shown as its escape (`\u{1b}`), as
/// `ralph tools task list` does; `--format json` keeps the real text.
fn table(found: &Found, workspace: &Path) -> String {
    let names: Vec<Cow<'_, str>> = found.skills.iter().map(|s| visible_line(&s.name)).collect();
    let width = super::column_width(&names, "NAME");
    let mut text = format!("{:width$}  DESCRIPTION\n", "NAME");
    for (skill, name) in found.skills.iter().zip(&names) {
        let _ = writeln!(
            text,
            "{name:width$}  {} ({})",
            visible_line(skill.description.lines().next().unwrap_or("")),
            visible_line(&shown(&skill.path, workspace))
        );
    }
    text
}

fn dirs_text(config: &ralph_core::config::SkillsConfig) -> String {
    if !config.enabled {
        return "skills are disabled (`skills.enabled: false` in ralph.yml)".to_owned();
    }
    if config.dirs.is_empty() {
        return "no skills directory is configured: list yours under `skills.dirs` in ralph.yml \
                (such as `dirs: [.claude/skills]`)"
            .to_owned();
    }
    let dirs: Vec<String> = config
        .dirs
        .iter()
        .map(|d| format!("`{}`", d.display()))
        .collect();
    format!(
        "ralph looks in {} for `NAME/SKILL.md` and `NAME.md` files",
        dirs.join(", ")
    )
}

fn none_found(config: &ralph_core::config::SkillsConfig) -> String {
    format!("No skills: {}.\n", dirs_text(config))
}

fn unknown(found: &Found, name: &str, config: &ralph_core::config::SkillsConfig) -> ToolError {
    let suggestion = found
        .skills
        .iter()
        .map(|s| (strsim::damerau_levenshtein(name, &s.name), s.name.as_str()))
        .filter(|(edits, _)| *edits <= MAX_SUGGESTION_EDITS)
        .min()
        .map(|(_, n)| format!(": did you mean `{n}`?"))
        .unwrap_or_default();
    let message = if found.skills.is_empty() {
        format!(
            "no skill named `{name}`: there are none; {}",
            dirs_text(config)
        )
    } else {
        format!(
            "no skill named `{name}`{suggestion} (`ralph tools skill list` shows the {} there are)",
            found.skills.len()
        )
    };
    ToolError::UnknownSkill(message)
}
