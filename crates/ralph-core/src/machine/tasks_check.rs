//! The task list's part of completion: a claim is refused while tasks of the run are
//! open or in progress (ralph-orchestrator's most reported failure is a loop that says
//! it is done with work left on its own list).

use super::Machine;
use super::notice::Notice;
use super::refusal::CompletionRefusal;
use crate::event::Event;
use crate::topic::TASK_RESUME;

/// The most unfinished tasks named in the refusal and its notice (the rest are counted).
pub const REFUSAL_TASKS_SHOWN: usize = 20;

impl Machine {
    /// Refuses the completion claim when `unfinished` (the run's open and in-progress
    /// tasks, `id: title`) is not empty: records why, gives the notice, and returns the
    /// `task.resume` event that tells the agent which tasks stand in the way.
    pub(super) fn refuse_for_tasks(&mut self, unfinished: &[String]) -> Option<Event> {
        if unfinished.is_empty() {
            return None;
        }
        let promise = &self.rules.event_loop.completion_promise;
        let mut payload = format!(
            "`{promise}` was refused: {} of the run {} not done:\n",
            count(unfinished.len()),
            if unfinished.len() == 1 { "is" } else { "are" }
        );
        for task in unfinished.iter().take(REFUSAL_TASKS_SHOWN) {
            payload.push_str(&format!("- {task}\n"));
        }
        if unfinished.len() > REFUSAL_TASKS_SHOWN {
            payload.push_str(&format!(
                "- … and {} more (`ralph tools task list`)\n",
                unfinished.len() - REFUSAL_TASKS_SHOWN
            ));
        }
        payload.push_str(&format!(
            "Finish them, close each one that is done (`ralph tools task close <id>`) or mark \
             the ones you give up (`ralph tools task fail <id>`), then emit `{promise}` again."
        ));
        self.state.refusal = Some(CompletionRefusal::OpenTasks {
            count: unfinished.len(),
        });
        self.notices.push(Notice::TasksUnfinished {
            tasks: unfinished
                .iter()
                .take(REFUSAL_TASKS_SHOWN)
                .cloned()
                .collect(),
            count: unfinished.len(),
        });
        Some(Event::with_text(TASK_RESUME, payload))
    }
}

fn count(n: usize) -> String {
    crate::count_text::count(n as u64, "task", "tasks")
}

#[cfg(test)]
#[path = "tasks_check_tests.rs"]
mod tests;
