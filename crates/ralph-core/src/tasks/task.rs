//! One task, as a line of `tasks.jsonl`.

use std::borrow::Cow;
use std::sync::atomic::{AtomicU32, Ordering};
use std::time::SystemTime;

use serde::{Deserialize, Serialize};

/// The longest title a prompt shows, in characters (so at most four times as many
/// bytes): a title is whatever an agent or a file gave it, and a prompt names up to
/// `REFUSAL_TASKS_SHOWN` of them at once.
pub const TITLE_SHOWN_CHARS: usize = 120;

/// The priority a task gets unless told otherwise (1 is the most urgent).
pub const DEFAULT_PRIORITY: u8 = 3;
/// The priorities a task may have.
pub const PRIORITIES: std::ops::RangeInclusive<u8> = 1..=5;

/// Where a task stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TaskStatus {
    Open,
    InProgress,
    Closed,
    Failed,
}

impl TaskStatus {
    pub const ALL: [TaskStatus; 4] = [
        TaskStatus::Open,
        TaskStatus::InProgress,
        TaskStatus::Closed,
        TaskStatus::Failed,
    ];

    pub fn name(self) -> &'static str {
        match self {
            TaskStatus::Open => "open",
            TaskStatus::InProgress => "in_progress",
            TaskStatus::Closed => "closed",
            TaskStatus::Failed => "failed",
        }
    }

    /// Open or in progress: work that is not done.
    pub fn is_unfinished(self) -> bool {
        matches!(self, TaskStatus::Open | TaskStatus::InProgress)
    }
}

/// One work item. Field order and names are ralph-orchestrator's. Fields ralph does not
/// know are not kept here: [`super::TaskList`] keeps each line as read and, when it
/// rewrites one, carries them over, so no edit loses them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Task {
    pub id: String,
    pub title: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// A stable name (`ralph tools task ensure --key`), so a task is created once.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub key: Option<String>,
    pub status: TaskStatus,
    #[serde(default = "default_priority")]
    pub priority: u8,
    #[serde(default)]
    pub blocked_by: Vec<String>,
    /// The run that created it (`RALPH_RUN_ID`), when a loop's agent did.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loop_id: Option<String>,
    pub created: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub started: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub closed: Option<String>,
    /// The fields of its line that ralph does not know, once the task is changed (while
    /// it is not, its line is written back as read).
    #[serde(skip)]
    pub(crate) unknown: Option<serde_json::Map<String, serde_json::Value>>,
}

impl Task {
    /// Takes the fields ralph does not know from `line`, the line this task was read
    /// from, before the task changes.
    pub(crate) fn keep_unknown_of(&mut self, line: &[u8]) {
        if let Ok(mut fields) =
            serde_json::from_slice::<serde_json::Map<String, serde_json::Value>>(line)
        {
            for known in KNOWN_FIELDS {
                fields.remove(known);
            }
            self.unknown = Some(fields);
        }
    }
}

/// The fields [`Task`] reads and writes (a rewritten line keeps every other one).
pub(crate) const KNOWN_FIELDS: [&str; 11] = [
    "id",
    "title",
    "description",
    "key",
    "status",
    "priority",
    "blocked_by",
    "loop_id",
    "created",
    "started",
    "closed",
];

fn default_priority() -> u8 {
    DEFAULT_PRIORITY
}

impl Task {
    /// The title as a prompt shows it: its first line, cut to [`TITLE_SHOWN_CHARS`]
    /// (on a character, with `…` for what was cut).
    pub fn shown_title(&self) -> Cow<'_, str> {
        let line = self.title.lines().next().unwrap_or_default();
        // Only as far as the bound is read: a long title costs no more than a short one.
        if line.char_indices().nth(TITLE_SHOWN_CHARS).is_none() {
            return Cow::Borrowed(line);
        }
        let end = line
            .char_indices()
            .nth(TITLE_SHOWN_CHARS - 1)
            .map_or(line.len(), |(at, _)| at);
        Cow::Owned(format!("{}…", &line[..end]))
    }

    /// A new open task.
    pub fn new(id: String, title: String, created: String) -> Task {
        Task {
            id,
            title,
            description: None,
            key: None,
            status: TaskStatus::Open,
            priority: DEFAULT_PRIORITY,
            blocked_by: Vec::new(),
            loop_id: None,
            created,
            started: None,
            closed: None,
            unknown: None,
        }
    }
}

static ID_COUNTER: AtomicU32 = AtomicU32::new(0);

/// A new task id in ralph-orchestrator's form, `task-<unix seconds>-<4 hex digits>`. The
/// digits mix the time's nanoseconds, the process id and a counter, so ids made at once
/// by many processes differ; [`super::TaskList::add`] still checks.
pub fn new_task_id(now: SystemTime) -> String {
    let since = now
        .duration_since(SystemTime::UNIX_EPOCH)
        .unwrap_or_default();
    let seed = format!(
        "{}-{}-{}",
        since.as_nanos(),
        std::process::id(),
        ID_COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    let hash = ralph_types::user_dirs::fnv1a(seed.as_bytes());
    // FNV's low bits depend only on the low bits of what it read (a multiply carries
    // upward only): seeds that differ in a counter's last digit share many of them.
    // Folding the well-mixed high bits in spreads the digits as random ones would be.
    let folded = hash ^ (hash >> 32);
    let folded = folded ^ (folded >> 16);
    format!("task-{}-{:04x}", since.as_secs(), folded & 0xffff)
}
