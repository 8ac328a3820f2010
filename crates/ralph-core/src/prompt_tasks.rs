//! The prompt's task section: what the run's task list holds, bounded, and in a few
//! lines how to keep it (the commands' `--help` carries the rest).

use std::fmt::Write as _;

use crate::tasks::{Task, TasksView};

/// The most in-progress tasks a prompt lists.
pub(crate) const PROMPT_IN_PROGRESS_TASKS: usize = 5;
/// The most ready tasks a prompt lists (the rest are counted).
pub(crate) const PROMPT_READY_TASKS: usize = 10;

/// Writes the task section for `view`; `ralph` is how the agent's shell calls ralph.
pub(crate) fn write_tasks(p: &mut String, view: &TasksView<'_>, ralph: &str) {
    p.push_str("\n## Tasks\n\n");
    if view.in_progress.is_empty() && view.ready.is_empty() && view.blocked == 0 {
        let _ = writeln!(
            p,
            "No tasks yet. For work that takes more than one iteration, keep a list: \
             `{ralph} tools task add \"<title>\"`, `start <id>`, `close <id>` \
             (`{ralph} tools task --help` for the rest). The loop cannot complete while a \
             task is open or in progress."
        );
        return;
    }
    let _ = writeln!(
        p,
        "Your task list (`{ralph} tools task --help`): start a task before working on it, \
         close it when done, add what you find. The loop cannot complete while a task is \
         open or in progress."
    );
    list(
        p,
        "In progress",
        &view.in_progress,
        PROMPT_IN_PROGRESS_TASKS,
    );
    list(
        p,
        "Ready, most urgent first",
        &view.ready,
        PROMPT_READY_TASKS,
    );
    let more_ready = view.ready.len().saturating_sub(PROMPT_READY_TASKS);
    let more_started = view
        .in_progress
        .len()
        .saturating_sub(PROMPT_IN_PROGRESS_TASKS);
    if more_ready + more_started + view.blocked > 0 {
        let _ = writeln!(
            p,
            "\n({} more, {} blocked: `{ralph} tools task list`)",
            more_ready + more_started,
            view.blocked
        );
    }
}

fn list(p: &mut String, title: &str, tasks: &[&Task], max: usize) {
    if tasks.is_empty() {
        return;
    }
    let _ = writeln!(p, "\n{title}:");
    for task in tasks.iter().take(max) {
        let _ = writeln!(
            p,
            "- `{}` (p{}) {}",
            task.id,
            task.priority,
            task.shown_title()
        );
    }
}
