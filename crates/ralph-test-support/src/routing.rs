//! Picks the scenario and the turn for a request, from the conversation alone.
//!
//! Prompts are searched newest first; in each, a `[[scenario:NAME]]` marker wins over the
//! script's routes (in their order). Failing that, a model id that names a scenario, then the
//! script's default. The turn is the number of assistant turns after the prompt that chose the
//! scenario (after the first prompt when the model id or the default chose it), so a multi-prompt
//! session restarts each marked prompt's script at its first turn, and retries of a turn (whose
//! failed answer the client does not send back) get the same turn again.

use crate::builtin::Builtin;
use crate::conversation::Conversation;
use crate::markers::{Knobs, scenario_marker};
use crate::script::Script;
use crate::turn::Turn;

/// Identifies one turn of one conversation, to count attempts at it (for `times` faults).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct AttemptKey {
    pub scenario: String,
    pub prompt: String,
    pub turn: usize,
}

/// The outcome of routing.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum Selected {
    /// A scenario was chosen. `turn` is `None` when the scenario has no turn this late.
    Scenario {
        name: String,
        turn_index: usize,
        turn: Option<Box<Turn>>,
        key: AttemptKey,
    },
    /// A `[[scenario:NAME]]` marker names no scenario.
    UnknownMarker { name: String },
    /// Nothing chose a scenario and the script has no default.
    Unrouted,
}

/// Routes `conversation` through `script`. Also returns the prompts' knobs.
pub(crate) fn select(script: &Script, conversation: &Conversation) -> (Selected, Knobs) {
    let knobs = Knobs::from_prompts(conversation.prompts.iter().map(|p| p.text.as_str()));
    let prompts = &conversation.prompts;
    for (index, prompt) in prompts.iter().enumerate().rev() {
        let by_marker = scenario_marker(&prompt.text);
        let by_route = || {
            script
                .routes
                .iter()
                .find(|route| prompt.text.contains(&route.contains))
                .map(|route| route.scenario.as_str())
        };
        if let Some(name) = by_marker.or_else(by_route) {
            if !script.has_scenario(name) {
                return (
                    Selected::UnknownMarker {
                        name: name.to_owned(),
                    },
                    knobs,
                );
            }
            let turn_index = prompts[index..]
                .iter()
                .map(|p| p.assistant_turns_after)
                .sum();
            return (
                chosen(script, &knobs, name, turn_index, &prompt.text),
                knobs,
            );
        }
    }
    let first_prompt = prompts.first().map(|p| p.text.as_str()).unwrap_or_default();
    let fallback = Some(conversation.model.as_str())
        .filter(|model| script.has_scenario(model))
        .or(script.default.as_deref());
    let selected = match fallback {
        Some(name) => chosen(
            script,
            &knobs,
            name,
            conversation.assistant_turns,
            first_prompt,
        ),
        None => Selected::Unrouted,
    };
    (selected, knobs)
}

fn chosen(script: &Script, knobs: &Knobs, name: &str, turn_index: usize, prompt: &str) -> Selected {
    let turns = match script.scenarios.get(name) {
        Some(turns) => turns.clone(),
        None => Builtin::from_name(name)
            .map(|builtin| builtin.turns(knobs))
            .unwrap_or_default(),
    };
    Selected::Scenario {
        name: name.to_owned(),
        turn_index,
        turn: turns.get(turn_index).cloned().map(Box::new),
        key: AttemptKey {
            scenario: name.to_owned(),
            prompt: prompt.to_owned(),
            turn: turn_index,
        },
    }
}
