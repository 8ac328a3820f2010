//! The whole task list as read from `tasks.jsonl`: the tasks, and the lines that are
//! not tasks (kept as they are), with what the commands do to them.
//!
//! An id names one task: a line that repeats the id of a line above it (a line copied by
//! hand, or two branches' files merged) is set aside as damaged, as memories.md does with
//! a repeated memory id. Every reader (`list`, `ready`, `close`, the prompt, the
//! completion check) then sees the same task for the id, the first, and the repeat is
//! written back byte for byte: nothing is deleted behind the user's back.

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::ops::Range;

use super::task::{PRIORITIES, Task, TaskStatus};

/// One line of the file.
#[derive(Clone, Debug, PartialEq)]
enum Line {
    /// A task, and the line it was read from while it is unchanged (written back as it
    /// is: fast, and exactly what the other tool wrote).
    Task {
        task: Box<Task>,
        raw: Option<Range<usize>>,
    },
    /// Not a task, or a repeat of an id above: written back byte for byte.
    Damaged { raw: Range<usize> },
}

/// A line that is not a task, or that repeats another task's id.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// 1-based.
    pub line: usize,
    /// Why it is set aside, as a clause ("not a task (…)", "repeats the id …").
    pub error: String,
}

/// The task list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskList {
    /// The file as read: unchanged lines are written back from here.
    source: Vec<u8>,
    lines: Vec<Line>,
    damaged: Vec<Damaged>,
}

/// Why a command cannot do what it was asked.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TaskError {
    #[error("no task `{id}` (`ralph tools task list` shows the open ones, `-s closed` the closed)")]
    NotFound { id: String },
    #[error("`{id}` matches several tasks ({}): give more of the id", .matches.join(", "))]
    Ambiguous { id: String, matches: Vec<String> },
    #[error("task `{id}` is {status}: {hint}")]
    Transition {
        id: String,
        status: &'static str,
        hint: &'static str,
    },
    #[error("a priority is 1 (most urgent) to 5, not {0}")]
    Priority(u8),
    #[error(
        "task `{id}` ({status}) already has the key `{key}`: a key names one task, so use that \
         one (`ralph tools task ensure` finds it, `reopen` opens it again) or give this task \
         another key"
    )]
    KeyTaken {
        key: String,
        id: String,
        status: &'static str,
    },
    #[error(
        "the key `{key}` is on several tasks ({}): give the id of the one you mean",
        .ids.join(", ")
    )]
    SharedKey { key: String, ids: Vec<String> },
    #[error("a task needs a title")]
    EmptyTitle,
    #[error("task `{0}` cannot block itself")]
    SelfBlock(String),
}

/// Room for the lines a command adds or rewrites, beyond the file's own size.
const RENDER_SLACK: usize = 4096;

impl TaskList {
    /// Reads a file's bytes. Never fails: a line that is not a task is kept aside.
    pub fn parse(bytes: &[u8]) -> TaskList {
        TaskList::parse_owned(bytes.to_vec())
    }

    /// [`TaskList::parse`], keeping `source` (no copy of the file).
    pub fn parse_owned(source: Vec<u8>) -> TaskList {
        let mut lines = Vec::with_capacity(memchr::memchr_iter(b'\n', &source).count() + 1);
        // The file's line number of each entry of `lines`.
        let mut numbers = Vec::with_capacity(lines.capacity());
        let mut damaged = Vec::new();
        let mut start = 0;
        // memchr finds the ends of lines many bytes at a time; a file of 10 000 tasks is
        // read on every `ralph tools task` command.
        let ends = memchr::memchr_iter(b'\n', &source).chain(std::iter::once(source.len()));
        for (i, end) in ends.enumerate() {
            let range = start..end;
            start = end + 1;
            let line = &source[range.clone()];
            let line = line.strip_suffix(b"\r").unwrap_or(line);
            if line.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            let raw = range.start..range.start + line.len();
            numbers.push(i + 1);
            match serde_json::from_slice::<Task>(line) {
                Ok(task) => lines.push(Line::Task {
                    task: Box::new(task),
                    raw: Some(raw),
                }),
                Err(e) => {
                    damaged.push(Damaged {
                        line: i + 1,
                        error: format!("not a task ({e})"),
                    });
                    lines.push(Line::Damaged { raw });
                }
            }
        }
        set_repeats_aside(&mut lines, &numbers, &mut damaged);
        TaskList {
            source,
            lines,
            damaged,
        }
    }

    /// The file's new contents: every task and every kept line, in order.
    pub fn render(&self) -> Vec<u8> {
        // About the file as read: grown once or not at all, never copied line by line.
        let mut out = Vec::with_capacity(self.source.len() + RENDER_SLACK);
        for line in &self.lines {
            match line {
                Line::Task { raw: Some(raw), .. } | Line::Damaged { raw } => {
                    out.extend_from_slice(&self.source[raw.clone()]);
                }
                Line::Task { task, raw: None } => out.extend_from_slice(&task_line(task)),
            }
            out.push(b'\n');
        }
        out
    }

    /// The lines that are not tasks, as read.
    pub fn damaged(&self) -> &[Damaged] {
        &self.damaged
    }

    /// Every task, in file order.
    pub fn tasks(&self) -> impl Iterator<Item = &Task> {
        self.lines.iter().filter_map(|l| match l {
            Line::Task { task, .. } => Some(task.as_ref()),
            Line::Damaged { .. } => None,
        })
    }

    /// The task `id` names: its whole id, else the one task with that key, else the one
    /// task whose id starts or ends with it (`task-1795660762-921a`, `docs`, or just
    /// `921a`).
    pub fn find(&self, id: &str) -> Result<&Task, TaskError> {
        let index = self.index_of(id)?;
        Ok(self.tasks().nth(index).expect("index_of found it"))
    }

    fn index_of(&self, id: &str) -> Result<usize, TaskError> {
        if let Some(i) = self.tasks().position(|t| t.id == id) {
            return Ok(i);
        }
        // ralph refuses a second task of one key, but a list written before it did (or
        // by hand) may hold two: then the key names neither, as a part of two ids does not.
        let keyed: Vec<(usize, &Task)> = self
            .tasks()
            .enumerate()
            .filter(|(_, t)| t.key.as_deref() == Some(id))
            .collect();
        match keyed.as_slice() {
            [] => {}
            [(i, _)] => return Ok(*i),
            many => {
                return Err(TaskError::SharedKey {
                    key: id.to_owned(),
                    ids: many.iter().map(|(_, t)| t.id.clone()).collect(),
                });
            }
        }
        let matches: Vec<(usize, &str)> = self
            .tasks()
            .enumerate()
            .filter(|(_, t)| !id.is_empty() && (t.id.starts_with(id) || t.id.ends_with(id)))
            .map(|(i, t)| (i, t.id.as_str()))
            .collect();
        match matches.as_slice() {
            [(i, _)] => Ok(*i),
            [] => Err(TaskError::NotFound { id: id.to_owned() }),
            many => Err(TaskError::Ambiguous {
                id: id.to_owned(),
                matches: many.iter().map(|(_, t)| (*t).to_owned()).collect(),
            }),
        }
    }

    /// The task `id` names, to be changed: its line is written anew (keeping the fields
    /// ralph does not know); every other line stays as read.
    fn get_mut(&mut self, id: &str) -> Result<&mut Task, TaskError> {
        let index = self.index_of(id)?;
        let source = &self.source;
        let line = self
            .lines
            .iter_mut()
            .filter(|l| matches!(l, Line::Task { .. }))
            .nth(index)
            .expect("index_of found it");
        let Line::Task { task, raw } = line else {
            unreachable!("only task lines are counted")
        };
        if let Some(old) = raw.take() {
            task.keep_unknown_of(&source[old]);
        }
        Ok(task.as_mut())
    }

    /// Adds `task` (its id made unique if another task has it already, and its blockers
    /// resolved to whole ids); returns its id. Its key, if any, must be no other task's.
    pub fn add(&mut self, mut task: Task) -> Result<String, TaskError> {
        if task.title.trim().is_empty() {
            return Err(TaskError::EmptyTitle);
        }
        if !PRIORITIES.contains(&task.priority) {
            return Err(TaskError::Priority(task.priority));
        }
        // Whatever its status: `ensure` and every `ID` argument find a task by its key, and
        // with two they could only pick one silently.
        if let Some(key) = &task.key
            && let Some(holder) = self.with_key(key)
        {
            return Err(TaskError::KeyTaken {
                key: key.clone(),
                id: holder.id.clone(),
                status: holder.status.name(),
            });
        }
        let blockers = std::mem::take(&mut task.blocked_by);
        for blocker in blockers {
            let id = self.find(&blocker)?.id.clone();
            task.blocked_by.push(id);
        }
        let base = task.id.clone();
        let mut n = 1;
        while self.tasks().any(|t| t.id == task.id) {
            n += 1;
            task.id = format!("{base}-{n}");
        }
        let id = task.id.clone();
        self.lines.push(Line::Task {
            task: Box::new(task),
            raw: None,
        });
        Ok(id)
    }

    /// The task with `key`, if any.
    pub fn with_key(&self, key: &str) -> Option<&Task> {
        self.tasks().find(|t| t.key.as_deref() == Some(key))
    }

    /// Marks `id` in progress (stamping `started` the first time).
    pub fn start(&mut self, id: &str, now: &str) -> Result<String, TaskError> {
        let task = self.get_mut(id)?;
        match task.status {
            TaskStatus::Open | TaskStatus::InProgress => {}
            status @ (TaskStatus::Closed | TaskStatus::Failed) => {
                return Err(transition(task, status, "reopen it first"));
            }
        }
        task.status = TaskStatus::InProgress;
        task.started.get_or_insert_with(|| now.to_owned());
        Ok(task.id.clone())
    }

    /// Marks `id` done. Closing a closed task changes nothing.
    pub fn close(&mut self, id: &str, now: &str) -> Result<String, TaskError> {
        let task = self.get_mut(id)?;
        if task.status != TaskStatus::Closed {
            task.status = TaskStatus::Closed;
            task.closed = Some(now.to_owned());
        }
        Ok(task.id.clone())
    }

    /// Marks `id` failed (given up). A closed task must be reopened first.
    pub fn fail(&mut self, id: &str, now: &str) -> Result<String, TaskError> {
        let task = self.get_mut(id)?;
        match task.status {
            TaskStatus::Closed => {
                return Err(transition(
                    task,
                    TaskStatus::Closed,
                    "reopen it first if it is not done after all",
                ));
            }
            TaskStatus::Failed => {}
            TaskStatus::Open | TaskStatus::InProgress => {
                task.status = TaskStatus::Failed;
                task.closed = Some(now.to_owned());
            }
        }
        Ok(task.id.clone())
    }

    /// Makes `id` open again.
    pub fn reopen(&mut self, id: &str) -> Result<String, TaskError> {
        let task = self.get_mut(id)?;
        task.status = TaskStatus::Open;
        task.closed = None;
        Ok(task.id.clone())
    }

    /// Open tasks none of whose blockers is unfinished, most urgent first (then oldest).
    /// A blocker no longer in the list blocks nothing.
    pub fn ready(&self) -> Vec<&Task> {
        // Only the ids open tasks wait for matter: a set of those (few, even in a large
        // list), then one pass keeps the ones still unfinished.
        let waited_for: HashSet<&str> = self
            .tasks()
            .filter(|t| t.status == TaskStatus::Open)
            .flat_map(|t| t.blocked_by.iter().map(String::as_str))
            .collect();
        let unfinished: HashSet<&str> = if waited_for.is_empty() {
            HashSet::new()
        } else {
            self.tasks()
                .filter(|t| t.status.is_unfinished() && waited_for.contains(t.id.as_str()))
                .map(|t| t.id.as_str())
                .collect()
        };
        let mut ready: Vec<&Task> = self
            .tasks()
            .filter(|t| t.status == TaskStatus::Open)
            .filter(|t| {
                t.blocked_by
                    .iter()
                    .all(|b| !unfinished.contains(b.as_str()))
            })
            .collect();
        ready.sort_by(|a, b| (a.priority, &a.created).cmp(&(b.priority, &b.created)));
        ready
    }

    /// Tasks of run `run_id` that are not done: open or in progress, created by that run
    /// or by no run (a person's).
    pub fn unfinished_of_run(&self, run_id: &str) -> Vec<&Task> {
        self.tasks()
            .filter(|t| t.status.is_unfinished())
            .filter(|t| t.loop_id.as_deref().is_none_or(|id| id == run_id))
            .collect()
    }
}

/// What a prompt shows of the task list: the run's tasks (see
/// [`TaskList::unfinished_of_run`]) in progress and ready, and how many are blocked.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TasksView<'a> {
    pub in_progress: Vec<&'a Task>,
    /// Most urgent first.
    pub ready: Vec<&'a Task>,
    /// Open but waiting for a blocker.
    pub blocked: usize,
}

impl TaskList {
    /// The run's tasks as a prompt shows them.
    pub fn view(&self, run_id: &str) -> TasksView<'_> {
        let of_run = |t: &&Task| t.loop_id.as_deref().is_none_or(|id| id == run_id);
        let ready: Vec<&Task> = self.ready().into_iter().filter(of_run).collect();
        let open = self
            .tasks()
            .filter(of_run)
            .filter(|t| t.status == TaskStatus::Open)
            .count();
        TasksView {
            in_progress: self
                .tasks()
                .filter(of_run)
                .filter(|t| t.status == TaskStatus::InProgress)
                .collect(),
            blocked: open - ready.len(),
            ready,
        }
    }
}

/// Turns each task line whose id a line above already has into a damaged line (kept as
/// read), and says so in `damaged`, which stays in line order. `numbers` are the file's
/// line numbers of `lines`.
fn set_repeats_aside(lines: &mut [Line], numbers: &[usize], damaged: &mut Vec<Damaged>) {
    let mut first: HashMap<&str, usize> = HashMap::with_capacity(lines.len());
    let mut repeats = Vec::new();
    for (index, line) in lines.iter().enumerate() {
        if let Line::Task { task, .. } = line {
            let at = *first.entry(task.id.as_str()).or_insert(numbers[index]);
            if at != numbers[index] {
                repeats.push((index, at, task.id.clone()));
            }
        }
    }
    if repeats.is_empty() {
        return;
    }
    for (index, at, id) in repeats {
        let Line::Task { raw: Some(raw), .. } = &lines[index] else {
            unreachable!("a task just read keeps its line")
        };
        let raw = raw.clone();
        lines[index] = Line::Damaged { raw };
        damaged.push(Damaged {
            line: numbers[index],
            error: format!(
                "repeats the id `{id}` of the task on line {at}, so the id names that one \
                 only (give this line an id of its own, or delete it if it is a copy)"
            ),
        });
    }
    damaged.sort_by_key(|d| d.line);
}

/// A task's line: its fields in ralph-orchestrator's order, then the fields ralph does
/// not know that the line it replaces had.
fn task_line(task: &Task) -> Vec<u8> {
    // A task is plain strings and numbers: it always serializes.
    let mut line = serde_json::to_vec(task).unwrap_or_default();
    if let Some(extra) = task.unknown.as_ref().filter(|m| !m.is_empty())
        && let Ok(extra) = serde_json::to_vec(extra)
        && line.last() == Some(&b'}')
    {
        line.pop();
        line.push(b',');
        line.extend_from_slice(&extra[1..]);
    }
    line
}

fn transition(task: &Task, status: TaskStatus, hint: &'static str) -> TaskError {
    TaskError::Transition {
        id: task.id.clone(),
        status: status.name(),
        hint,
    }
}

impl fmt::Display for TaskStatus {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
