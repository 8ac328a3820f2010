//! The prompt of one iteration: what the agent is told, from the run's objective, the
//! events for its hat, the hat's role, the memories, the tasks, the steering its prompt
//! carries and what the hooks noted.

use ralph_agent::BackendProfile;
use ralph_core::config::HatConfig;
use ralph_core::machine::Iteration;
use ralph_core::prompt::{
    PromptInput, RALPH_BY_NAME, RALPH_BY_PATH_VAR, Role, Scratchpad, build_prompt,
};
use ralph_types::BackendKind;

use super::{Run, memories, memory};
use crate::view::observer::Observer;

/// The prompt of `iteration`, for an agent of `kind` running `hat` (none: the run has no
/// hats, or the coordinator runs). Takes the queued steering messages the prompt carries
/// (reported to `observer` as delivered).
pub(super) fn iteration_prompt(
    run: &Run<'_>,
    iteration: &Iteration,
    hat: Option<&HatConfig>,
    kind: BackendKind,
    observer: &mut dyn Observer,
) -> String {
    let config = run.config;
    let exhausted = run.machine.exhausted_hats();
    // What the other hats still have waiting: the coordinator runs with the events no hat
    // takes, which are already off the queue.
    let queued = match hat {
        None if !config.hats.is_empty() => run.machine.queued_by_hat(),
        _ => Vec::new(),
    };
    let role = match hat {
        Some(hat) => Role::Hat { hat },
        None if config.hats.is_empty() => Role::Solo,
        None => Role::Coordinator {
            hats: &config.hats,
            exhausted: &exhausted,
            queued: &queued,
        },
    };
    let scratchpad = memory::scratchpad(config, &run.workspace);
    let task_list = memory::task_list(config, &run.workspace);
    let tasks_view = task_list.as_ref().map(|list| list.view(run.run_dir.id()));
    let missing = run.machine.missing_required();
    let working = memories::WorkingMemory::read(
        config,
        &run.workspace,
        hat.map(|h| h.id.as_str()),
        kind.name(),
    );
    let steering = run.steering.start_iteration(iteration.number, observer);
    let mut prompt = build_prompt(&PromptInput {
        objective: &run.objective,
        guardrails: &config.core.guardrails,
        scratchpad: scratchpad
            .as_ref()
            .map(|(path, text)| Scratchpad { path, text }),
        events: &iteration.events,
        role,
        promise: &config.event_loop.completion_promise,
        required_missing: &missing,
        events_max_bytes: usize::try_from(config.event_loop.prompt_events_max_bytes)
            .unwrap_or(usize::MAX),
        ralph: if BackendProfile::of(kind).tools_reset_path {
            RALPH_BY_PATH_VAR
        } else {
            RALPH_BY_NAME
        },
        tasks: tasks_view.as_ref(),
        memories: working.prompt(),
        skills: &working.skills,
        steering: &steering,
    });
    prompt.push_str(&run.hook_notes);
    prompt
}
