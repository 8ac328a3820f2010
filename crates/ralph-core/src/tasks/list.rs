//! The whole task list as read from `tasks.jsonl`: the tasks, and the lines that are
//! not tasks (kept as they are), with what the commands do to them.

use std::fmt;

use super::task::{PRIORITIES, Task, TaskStatus};

/// One line of the file.
#[derive(Clone, Debug, PartialEq)]
enum Line {
    Task(Box<Task>),
    /// Not a task: written back byte for byte.
    Damaged {
        bytes: Vec<u8>,
    },
}

/// A line that is not a task.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Damaged {
    /// 1-based.
    pub line: usize,
    pub error: String,
}

/// The task list.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TaskList {
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
    #[error("a task needs a title")]
    EmptyTitle,
    #[error("task `{0}` cannot block itself")]
    SelfBlock(String),
}

impl TaskList {
    /// Reads a file's bytes. Never fails: a line that is not a task is kept aside.
    pub fn parse(bytes: &[u8]) -> TaskList {
        let mut list = TaskList::default();
        for (i, raw) in bytes.split(|b| *b == b'\n').enumerate() {
            let raw = raw.strip_suffix(b"\r").unwrap_or(raw);
            if raw.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            match serde_json::from_slice::<Task>(raw) {
                Ok(task) => list.lines.push(Line::Task(Box::new(task))),
                Err(e) => {
                    list.damaged.push(Damaged {
                        line: i + 1,
                        error: e.to_string(),
                    });
                    list.lines.push(Line::Damaged {
                        bytes: raw.to_vec(),
                    });
                }
            }
        }
        list
    }

    /// The file's new contents: every task and every kept line, in order.
    pub fn render(&self) -> Vec<u8> {
        let mut out = Vec::new();
        for line in &self.lines {
            match line {
                Line::Task(task) => {
                    // A task is plain strings and numbers: it always serializes.
                    if let Ok(json) = serde_json::to_vec(task) {
                        out.extend_from_slice(&json);
                    }
                }
                Line::Damaged { bytes } => out.extend_from_slice(bytes),
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
            Line::Task(task) => Some(task.as_ref()),
            Line::Damaged { .. } => None,
        })
    }

    fn tasks_mut(&mut self) -> impl Iterator<Item = &mut Task> {
        self.lines.iter_mut().filter_map(|l| match l {
            Line::Task(task) => Some(task.as_mut()),
            Line::Damaged { .. } => None,
        })
    }

    /// The task `id` names: its whole id, else its key, else the one task whose id starts
    /// or ends with it (`task-1795660762-921a`, `docs`, or just `921a`).
    pub fn find(&self, id: &str) -> Result<&Task, TaskError> {
        let index = self.index_of(id)?;
        Ok(self.tasks().nth(index).expect("index_of found it"))
    }

    fn index_of(&self, id: &str) -> Result<usize, TaskError> {
        if let Some(i) = self.tasks().position(|t| t.id == id) {
            return Ok(i);
        }
        if let Some(i) = self.tasks().position(|t| t.key.as_deref() == Some(id)) {
            return Ok(i);
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

    fn get_mut(&mut self, id: &str) -> Result<&mut Task, TaskError> {
        let index = self.index_of(id)?;
        Ok(self.tasks_mut().nth(index).expect("index_of found it"))
    }

    /// Adds `task` (its id made unique if another task has it already, and its blockers
    /// resolved to whole ids); returns its id.
    pub fn add(&mut self, mut task: Task) -> Result<String, TaskError> {
        if task.title.trim().is_empty() {
            return Err(TaskError::EmptyTitle);
        }
        if !PRIORITIES.contains(&task.priority) {
            return Err(TaskError::Priority(task.priority));
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
        self.lines.push(Line::Task(Box::new(task)));
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
        let mut ready: Vec<&Task> = self
            .tasks()
            .filter(|t| t.status == TaskStatus::Open)
            .filter(|t| {
                t.blocked_by.iter().all(|b| {
                    self.tasks()
                        .find(|other| other.id == *b)
                        .is_none_or(|other| !other.status.is_unfinished())
                })
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
