//! `ralph tools task …`: the task list of `.ralph/agent/tasks.jsonl` (see
//! `ralph_core::tasks`). Changes go through the file's lock; reads need none.

use std::io::Write;
use std::path::Path;
use std::time::SystemTime;

use ralph_core::tasks::{self, Task, TaskList, TaskStatus, UpdateError};
use ralph_core::time_text::rfc3339_nanos;
use ralph_core::visible::visible;

use crate::cli::TableArg;
use crate::cli_tools::{StatusArg, TaskArgs, TaskCommand, TaskDetails};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::view::term::one_line;

/// The widest title a table shows (the rest is cut with `…`).
const TITLE_CHARS: usize = 60;

pub(crate) fn run(args: &TaskArgs) -> Result<CommandOutcome, CliError> {
    let workspace = super::workspace(args.root.as_deref())?;
    let path = tasks::tasks_path(&workspace);
    let now = || rfc3339_nanos(SystemTime::now());
    let shown = match &args.command {
        TaskCommand::Add {
            title,
            details,
            blocked_by,
            key,
        } => {
            let task = new_task(title, details, blocked_by, key.clone());
            let id = update(&path, |list| list.add(task))?;
            Shown::Changed("created", id)
        }
        TaskCommand::Ensure {
            title,
            key,
            details,
            blocked_by,
        } => {
            let task = new_task(title, details, blocked_by, Some(key.clone()));
            let (verb, id) = update(&path, |list| match list.with_key(key) {
                Some(found) => Ok(("found", found.id.clone())),
                None => list.add(task).map(|id| ("created", id)),
            })?;
            Shown::Changed(verb, id)
        }
        TaskCommand::Start { id } => {
            Shown::Changed("started", update(&path, |l| l.start(id, &now()))?)
        }
        TaskCommand::Close { id } => {
            Shown::Changed("closed", update(&path, |l| l.close(id, &now()))?)
        }
        TaskCommand::Fail { id } => {
            Shown::Changed("failed", update(&path, |l| l.fail(id, &now()))?)
        }
        TaskCommand::Reopen { id } => Shown::Changed("reopened", update(&path, |l| l.reopen(id))?),
        TaskCommand::Show { id } => Shown::One(id.clone()),
        TaskCommand::List { status, all } => Shown::List {
            status: status.map(status_of),
            all: *all,
        },
        TaskCommand::Ready => Shown::Ready,
    };
    let list = read(&path)?;
    let mut out = std::io::stdout().lock();
    match shown {
        Shown::Changed(verb, id) => {
            let task = list.find(&id)?;
            match args.format {
                TableArg::Json => json_line(&mut out, task)?,
                TableArg::Table => writeln!(
                    out,
                    "{verb} task {}: {} ({})",
                    task.id,
                    visible(&task.title),
                    task.status
                )
                .map_err(CliError::write)?,
            }
        }
        Shown::One(id) => {
            let task = list.find(&id)?;
            match args.format {
                TableArg::Json => json_line(&mut out, task)?,
                TableArg::Table => show(&mut out, task).map_err(CliError::write)?,
            }
        }
        Shown::List { status, all } => {
            let tasks: Vec<&Task> = list
                .tasks()
                .filter(|t| match status {
                    Some(s) => t.status == s,
                    None => all || t.status.is_unfinished(),
                })
                .collect();
            print_list(&mut out, &tasks, args.format)?;
        }
        Shown::Ready => print_list(&mut out, &list.ready(), args.format)?,
    }
    Ok(CommandOutcome::Success)
}

/// What to print once the command has done its work.
enum Shown {
    Changed(&'static str, String),
    One(String),
    List {
        status: Option<TaskStatus>,
        all: bool,
    },
    Ready,
}

fn new_task(
    title: &str,
    details: &TaskDetails,
    blocked_by: &[String],
    key: Option<String>,
) -> Task {
    let now = SystemTime::now();
    let run = std::env::var(ralph_types::env::RUN_ID)
        .ok()
        .filter(|id| !id.is_empty());
    Task {
        description: details.description.clone(),
        key,
        priority: details.priority,
        blocked_by: blocked_by.to_vec(),
        loop_id: run,
        ..Task::new(
            tasks::new_task_id(now),
            title.trim().to_owned(),
            rfc3339_nanos(now),
        )
    }
}

fn status_of(arg: StatusArg) -> TaskStatus {
    match arg {
        StatusArg::Open => TaskStatus::Open,
        StatusArg::InProgress => TaskStatus::InProgress,
        StatusArg::Closed => TaskStatus::Closed,
        StatusArg::Failed => TaskStatus::Failed,
    }
}

fn update<T>(
    path: &Path,
    change: impl FnOnce(&mut TaskList) -> Result<T, tasks::TaskError>,
) -> Result<T, CliError> {
    tasks::update(path, change).map_err(|e| match e {
        UpdateError::Task(e) => CliError::Task(e),
        UpdateError::Io(e) => CliError::io("update the task list", path, e),
    })
}

/// Reads the list, saying on stderr which lines are not tasks (they are kept).
fn read(path: &Path) -> Result<TaskList, CliError> {
    let list = tasks::read(path).map_err(|e| CliError::io("read the task list", path, e))?;
    for damaged in list.damaged() {
        diagnostic(format_args!(
            "warning: {}:{}: not a task ({}); it is skipped and kept in the file as it is",
            path.display(),
            damaged.line,
            damaged.error
        ));
    }
    Ok(list)
}

fn json_line(out: &mut impl Write, task: &Task) -> Result<(), CliError> {
    serde_json::to_writer(&mut *out, task).map_err(|e| CliError::write(e.into()))?;
    writeln!(out).map_err(CliError::write)
}

/// A table, or a JSON array (ralph-orchestrator prints one, indented).
fn print_list(out: &mut impl Write, tasks: &[&Task], format: TableArg) -> Result<(), CliError> {
    match format {
        TableArg::Json => {
            serde_json::to_writer_pretty(&mut *out, tasks)
                .map_err(|e| CliError::write(e.into()))?;
            writeln!(out).map_err(CliError::write)
        }
        TableArg::Table if tasks.is_empty() => writeln!(out, "no tasks").map_err(CliError::write),
        TableArg::Table => table(out, tasks).map_err(CliError::write),
    }
}

fn table(out: &mut impl Write, tasks: &[&Task]) -> std::io::Result<()> {
    let id_width = tasks.iter().map(|t| t.id.len()).max().unwrap_or(2).max(2);
    writeln!(out, "{:id_width$}  P  STATUS       TITLE", "ID")?;
    for task in tasks {
        let title = one_line(&visible(&task.title));
        let title: String = if title.chars().count() > TITLE_CHARS {
            title.chars().take(TITLE_CHARS - 1).chain(['…']).collect()
        } else {
            title
        };
        let key = task
            .key
            .as_deref()
            .map(|k| format!("  [{}]", visible(k)))
            .unwrap_or_default();
        writeln!(
            out,
            "{:id_width$}  {}  {:<11}  {title}{key}",
            task.id,
            task.priority,
            task.status.name()
        )?;
    }
    Ok(())
}

fn show(out: &mut impl Write, task: &Task) -> std::io::Result<()> {
    writeln!(out, "{}  {}", task.id, visible(&task.title))?;
    writeln!(out, "status:      {}", task.status)?;
    writeln!(out, "priority:    {}", task.priority)?;
    let optional = [
        ("key", task.key.as_deref()),
        ("description", task.description.as_deref()),
        ("run", task.loop_id.as_deref()),
        ("created", Some(task.created.as_str())),
        ("started", task.started.as_deref()),
        ("closed", task.closed.as_deref()),
    ];
    for (name, value) in optional {
        if let Some(value) = value {
            writeln!(out, "{:<13}{}", format!("{name}:"), visible(value))?;
        }
    }
    if !task.blocked_by.is_empty() {
        writeln!(out, "blocked by:  {}", task.blocked_by.join(", "))?;
    }
    Ok(())
}
