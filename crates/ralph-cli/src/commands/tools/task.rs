//! `ralph tools task …`: the task list of `.ralph/agent/tasks.jsonl` (see
//! `ralph_core::tasks`). Changes go through the file's lock; reads need none.

use std::borrow::Cow;
use std::io::Write;
use std::path::Path;
use std::time::{SystemTime, UNIX_EPOCH};

use ralph_core::memory::date;
use ralph_core::tasks::{self, Task, TaskList, TaskStatus, UpdateError};
use ralph_core::time_text::rfc3339_nanos;
use ralph_core::visible::{visible, visible_line};

use crate::cli_tools::{StatusArg, TaskArgs, TaskCommand, TaskDetails, TaskFormat, TaskListArgs};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;

/// The widest title a table shows (the rest is cut with `…`).
const TITLE_CHARS: usize = 60;
const SECONDS_PER_DAY: i64 = 86_400;
const SECONDS_PER_HOUR: i64 = 3_600;
const SECONDS_PER_MINUTE: i64 = 60;

pub(crate) fn run(args: &TaskArgs) -> Result<CommandOutcome, CliError> {
    let workspace = super::workspace(&args.options)?;
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
            blockers,
            key,
        } => {
            let task = new_task(title, details, &blockers.blocked_by, key.clone());
            changed("created", &|list| list.add(task.clone()))?
        }
        TaskCommand::Ensure {
            title,
            key,
            details,
            blockers,
        } => {
            let task = new_task(title, details, &blockers.blocked_by, Some(key.clone()));
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
        TaskCommand::List(list) => Shown::Query(Query::List(list)),
        // Inside a run its agent sees what its prompt shows: the run's tasks and those
        // of no run (ralph-orchestrator's `ready` narrows to the current loop likewise).
        TaskCommand::Ready { all } => Shown::Query(Query::Ready {
            run: if *all { None } else { current_run() },
        }),
    };
    // Buffered: a list of thousands of tasks is one write, not one a line.
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    match shown {
        Shown::Changed(verb, task) => match args.format {
            TaskFormat::Json => json_line(&mut out, &task)?,
            TaskFormat::Quiet => writeln!(out, "{}", task.id).map_err(CliError::write)?,
            TaskFormat::Table => writeln!(
                out,
                "{verb} task {}: {} ({})",
                visible_line(&task.id),
                visible_line(&task.title),
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
                        TaskFormat::Json => json_line(&mut out, task)?,
                        TaskFormat::Quiet => {
                            writeln!(out, "{}", task.id).map_err(CliError::write)?
                        }
                        TaskFormat::Table => show(&mut out, task).map_err(CliError::write)?,
                    }
                }
                Query::List(filter) => {
                    print_list(&mut out, &listed(&list, filter), args.format)?;
                }
                Query::Ready { run } => {
                    let mut ready = list.ready();
                    if let Some(run) = run {
                        ready.retain(|t| t.loop_id.as_deref().is_none_or(|id| id == run));
                    }
                    print_list(&mut out, &ready, args.format)?
                }
            }
        }
    }
    out.flush().map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// What to print once the command has done its work.
enum Shown<'a> {
    /// A task was changed (or found, by `ensure`): as it is now.
    Changed(&'static str, Box<Task>),
    Query(Query<'a>),
}

/// What a read-only command shows.
enum Query<'a> {
    One(String),
    List(&'a TaskListArgs),
    /// The ready tasks, of one run (and of none) when `run` is given.
    Ready {
        run: Option<String>,
    },
}

/// The run whose agent calls this command, if any.
fn current_run() -> Option<String> {
    std::env::var(ralph_types::env::RUN_ID)
        .ok()
        .filter(|id| !id.is_empty())
}

/// The tasks `list` shows, in ralph-orchestrator's order: in progress, open, closed,
/// failed; then most urgent; then oldest. `--limit` keeps the first ones of that order.
fn listed<'a>(list: &'a TaskList, filter: &TaskListArgs) -> Vec<&'a Task> {
    let status = filter.status.map(status_of);
    let cutoff = filter.days.map(|days| {
        let now = SystemTime::now()
            .duration_since(UNIX_EPOCH)
            .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
        now - i64::from(days) * SECONDS_PER_DAY
    });
    let recent = |stamp: Option<&str>| {
        stamp
            .and_then(unix_seconds)
            .zip(cutoff)
            .is_some_and(|(at, cutoff)| at > cutoff)
    };
    let mut tasks: Vec<&Task> = list
        .tasks()
        .filter(|t| match status {
            Some(s) => t.status == s,
            None => filter.all || t.status.is_unfinished(),
        })
        .filter(|t| cutoff.is_none() || recent(Some(&t.created)) || recent(t.closed.as_deref()))
        .collect();
    let rank = |s: TaskStatus| match s {
        TaskStatus::InProgress => 0,
        TaskStatus::Open => 1,
        TaskStatus::Closed => 2,
        TaskStatus::Failed => 3,
    };
    tasks.sort_by(|a, b| {
        (rank(a.status), a.priority, &a.created).cmp(&(rank(b.status), b.priority, &b.created))
    });
    if let Some(limit) = filter.limit {
        tasks.truncate(limit);
    }
    tasks
}

/// The Unix time of an RFC 3339 stamp (`2026-11-26T02:39:22.227049569+00:00`, or with
/// `Z` or another offset), as the tasks file holds them; `None` when it is not one.
fn unix_seconds(stamp: &str) -> Option<i64> {
    let (day, time) = stamp.split_once(['T', 't', ' '])?;
    let day = date::parse_ymd(day)?;
    let clock = time.get(..8)?;
    let mut fields = clock.split(':').map(|f| f.parse::<i64>().ok());
    let (hour, minute, second) = (fields.next()??, fields.next()??, fields.next()??);
    let zone = time[8..].trim_start_matches(|c: char| c == '.' || c.is_ascii_digit());
    let offset = match zone {
        "Z" | "z" => 0,
        _ => {
            let sign = match zone.get(..1)? {
                "+" => 1,
                "-" => -1,
                _ => return None,
            };
            let (h, m) = zone[1..].split_once(':')?;
            sign * (h.parse::<i64>().ok()? * SECONDS_PER_HOUR
                + m.parse::<i64>().ok()? * SECONDS_PER_MINUTE)
        }
    };
    Some(
        day * SECONDS_PER_DAY + hour * SECONDS_PER_HOUR + minute * SECONDS_PER_MINUTE + second
            - offset,
    )
}

fn new_task(
    title: &str,
    details: &TaskDetails,
    blocked_by: &[String],
    key: Option<String>,
) -> Task {
    let now = SystemTime::now();
    let mut task = Task::new(
        tasks::new_task_id(now),
        title.trim().to_owned(),
        rfc3339_nanos(now),
    );
    task.description = details.description.clone();
    task.key = key;
    task.priority = details.priority;
    // `--blocked-by "a, b"` and a trailing comma are taken as ralph-orchestrator takes them.
    task.blocked_by = blocked_by
        .iter()
        .map(|id| id.trim())
        .filter(|id| !id.is_empty())
        .map(str::to_owned)
        .collect();
    task.loop_id = current_run();
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
        UpdateError::Io { what, path, source } => CliError::io(what, path, source),
        too_large @ UpdateError::TooLarge { .. } => CliError::TaskList(too_large),
    })
}

/// Reads the list, saying on stderr which lines are not tasks (they are kept).
fn read(path: &Path) -> Result<TaskList, CliError> {
    let list = tasks::read(path).map_err(|e| CliError::io("read the task list", path, e))?;
    warn_damaged(path, &list);
    Ok(list)
}

/// Says on stderr which lines of the list are not tasks, or repeat another's id (they
/// are kept as they are).
fn warn_damaged(path: &Path, list: &TaskList) {
    for damaged in list.damaged() {
        diagnostic(format_args!(
            "warning: {}:{}: {}; it is skipped and kept in the file as it is",
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

/// A table, a JSON array (ralph-orchestrator prints one, indented), or the ids.
fn print_list(out: &mut impl Write, tasks: &[&Task], format: TaskFormat) -> Result<(), CliError> {
    match format {
        TaskFormat::Json => {
            serde_json::to_writer_pretty(&mut *out, tasks)
                .map_err(|e| CliError::write(e.into()))?;
            writeln!(out).map_err(CliError::write)
        }
        TaskFormat::Quiet => tasks
            .iter()
            .try_for_each(|t| writeln!(out, "{}", t.id))
            .map_err(CliError::write),
        TaskFormat::Table if tasks.is_empty() => writeln!(out, "no tasks").map_err(CliError::write),
        TaskFormat::Table => table(out, tasks).map_err(CliError::write),
    }
}

/// One line a task: the file is anyone's to write, so a newline or a control character
/// in an id, title or key is shown as its escape (JSON keeps the real value).
fn table(out: &mut impl Write, tasks: &[&Task]) -> std::io::Result<()> {
    let ids: Vec<Cow<'_, str>> = tasks.iter().map(|t| visible_line(&t.id)).collect();
    let id_width = super::column_width(&ids, "ID");
    writeln!(out, "{:id_width$}  P  STATUS       TITLE", "ID")?;
    for (task, id) in tasks.iter().zip(ids) {
        let title = visible_line(&task.title);
        let title: Cow<'_, str> = if title.chars().count() > TITLE_CHARS {
            Cow::Owned(title.chars().take(TITLE_CHARS - 1).chain(['…']).collect())
        } else {
            title
        };
        let key = task
            .key
            .as_deref()
            .map(|k| format!("  [{}]", visible_line(k)))
            .unwrap_or_default();
        writeln!(
            out,
            "{id:id_width$}  {}  {:<11}  {title}{key}",
            task.priority,
            task.status.name()
        )?;
    }
    Ok(())
}

fn show(out: &mut impl Write, task: &Task) -> std::io::Result<()> {
    writeln!(
        out,
        "{}  {}",
        visible_line(&task.id),
        visible_line(&task.title)
    )?;
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
            // A description may run over lines; the other fields are one line each.
            let shown = match name {
                "description" => visible(value),
                _ => visible_line(value),
            };
            writeln!(out, "{:<13}{shown}", format!("{name}:"))?;
        }
    }
    if !task.blocked_by.is_empty() {
        let ids: Vec<Cow<'_, str>> = task.blocked_by.iter().map(|b| visible_line(b)).collect();
        writeln!(out, "blocked by:  {}", ids.join(", "))?;
    }
    Ok(())
}

#[cfg(test)]
#[path = "task_tests.rs"]
mod tests;
