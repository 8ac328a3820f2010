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
    let workspace = super::workspace_of(args.root.as_deref())?;
    let path = tasks::tasks_path(&workspace);
    let now = || rfc3339_nanos(SystemTime::now());
    // Changes return the task as changed (no second read); queries read the list once.
    let changed =
        |verb: &'static str, change: &dyn Fn(&mut TaskList) -> Result<String, tasks::TaskError>| {
            update(&path, |list| {
                let id = change(list)?;
                Ok(Shown::Changed(verb, Box::new(list.find(&id)?.clone())))
            })
        };
    let shown = match &args.command {
        TaskCommand::Add {
            title,
            details,
            blocked_by,
            key,
        } => {
            let task = new_task(title, details, blocked_by, key.clone());
            changed("created", &|list| list.add(task.clone()))?
        }
        TaskCommand::Ensure {
            title,
            key,
            details,
            blocked_by,
        } => {
            let task = new_task(title, details, blocked_by, Some(key.clone()));
            update(&path, |list| {
                let (verb, id) = match list.with_key(key) {
                    Some(found) => ("found", found.id.clone()),
                    None => ("created", list.add(task)?),
                };
                Ok(Shown::Changed(verb, Box::new(list.find(&id)?.clone())))
            })?
        }
        TaskCommand::Start { id } => changed("started", &|l| l.start(id, &now()))?,
        TaskCommand::Close { id } => changed("closed", &|l| l.close(id, &now()))?,
        TaskCommand::Fail { id } => changed("failed", &|l| l.fail(id, &now()))?,
        TaskCommand::Reopen { id } => changed("reopened", &|l| l.reopen(id))?,
        TaskCommand::Show { id } => Shown::Query(Query::One(id.clone())),
        TaskCommand::List { status, all } => Shown::Query(Query::List {
            status: status.map(status_of),
            all: *all,
        }),
        TaskCommand::Ready => Shown::Query(Query::Ready),
    };
    // Buffered: a list of thousands of tasks is one write, not one a line.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match shown {
        Shown::Changed(verb, task) => match args.format {
            TableArg::Json => json_line(&mut out, &task)?,
            TableArg::Table => writeln!(
                out,
                "{verb} task {}: {} ({})",
                task.id,
                visible(&task.title),
                task.status
            )
            .map_err(CliError::write)?,
        },
        Shown::Query(query) => {
            let list = read(&path)?;
            match query {
                Query::One(id) => {
                    let task = list.find(&id)?;
                    match args.format {
                        TableArg::Json => json_line(&mut out, task)?,
                        TableArg::Table => show(&mut out, task).map_err(CliError::write)?,
                    }
                }
                Query::List { status, all } => {
                    let tasks: Vec<&Task> = list
                        .tasks()
                        .filter(|t| match status {
                            Some(s) => t.status == s,
                            None => all || t.status.is_unfinished(),
                        })
                        .collect();
                    print_list(&mut out, &tasks, args.format)?;
                }
                Query::Ready => print_list(&mut out, &list.ready(), args.format)?,
            }
        }
    }
    out.flush().map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// What to print once the command has done its work.
enum Shown {
    /// A task was changed (or found, by `ensure`): as it is now.
    Changed(&'static str, Box<Task>),
    Query(Query),
}

/// What a read-only command shows.
enum Query {
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
    let mut task = Task::new(
        tasks::new_task_id(now),
        title.trim().to_owned(),
        rfc3339_nanos(now),
    );
    task.description = details.description.clone();
    task.key = key;
    task.priority = details.priority;
    task.blocked_by = blocked_by.to_vec();
    task.loop_id = run;
    task
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
    tasks::update(path, |list| {
        warn_damaged(path, list);
        change(list)
    })
    .map_err(|e| match e {
        UpdateError::Task(e) => CliError::Task(e),
        UpdateError::Io(e) => CliError::io("update the task list", path, e),
    })
}

/// Reads the list, saying on stderr which lines are not tasks (they are kept).
fn read(path: &Path) -> Result<TaskList, CliError> {
    let list = tasks::read(path).map_err(|e| CliError::io("read the task list", path, e))?;
    warn_damaged(path, &list);
    Ok(list)
}

/// Says on stderr which lines of the list are not tasks (they are kept as they are).
fn warn_damaged(path: &Path, list: &TaskList) {
    for damaged in list.damaged() {
        diagnostic(format_args!(
            "warning: {}:{}: not a task ({}); it is skipped and kept in the file as it is",
            path.display(),
            damaged.line,
            damaged.error
        ));
    }
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
