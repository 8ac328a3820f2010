//! The lifecycle boundaries a hook can be attached to: `pre.` or `post.` of six events,
//! named as ralph-orchestrator names them so its `hooks.events` keys load unchanged.

use std::fmt;

/// One of the twelve phase-events (`pre.loop.start`, ..., `post.loop.error`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum HookPhase {
    PreLoopStart,
    PostLoopStart,
    PreIterationStart,
    PostIterationStart,
    PrePlanCreated,
    PostPlanCreated,
    PreHumanInteract,
    PostHumanInteract,
    PreLoopComplete,
    PostLoopComplete,
    PreLoopError,
    PostLoopError,
}

impl HookPhase {
    /// Every phase, in the order a run meets them (the reference lists them so).
    pub const ALL: [HookPhase; 12] = [
        HookPhase::PreLoopStart,
        HookPhase::PostLoopStart,
        HookPhase::PreIterationStart,
        HookPhase::PostIterationStart,
        HookPhase::PrePlanCreated,
        HookPhase::PostPlanCreated,
        HookPhase::PreHumanInteract,
        HookPhase::PostHumanInteract,
        HookPhase::PreLoopComplete,
        HookPhase::PostLoopComplete,
        HookPhase::PreLoopError,
        HookPhase::PostLoopError,
    ];

    /// The key under `hooks.events` (`pre.loop.start`).
    pub fn name(self) -> &'static str {
        match self {
            HookPhase::PreLoopStart => "pre.loop.start",
            HookPhase::PostLoopStart => "post.loop.start",
            HookPhase::PreIterationStart => "pre.iteration.start",
            HookPhase::PostIterationStart => "post.iteration.start",
            HookPhase::PrePlanCreated => "pre.plan.created",
            HookPhase::PostPlanCreated => "post.plan.created",
            HookPhase::PreHumanInteract => "pre.human.interact",
            HookPhase::PostHumanInteract => "post.human.interact",
            HookPhase::PreLoopComplete => "pre.loop.complete",
            HookPhase::PostLoopComplete => "post.loop.complete",
            HookPhase::PreLoopError => "pre.loop.error",
            HookPhase::PostLoopError => "post.loop.error",
        }
    }

    /// The names of all phases, for "expected one of" and suggestions.
    pub fn names() -> Vec<&'static str> {
        HookPhase::ALL.map(HookPhase::name).to_vec()
    }

    /// The phase named `name`, if any.
    pub fn parse(name: &str) -> Option<HookPhase> {
        HookPhase::ALL.into_iter().find(|p| p.name() == name)
    }

    /// `pre` or `post`.
    pub fn when(self) -> &'static str {
        self.split().0
    }

    /// The boundary without its `pre.`/`post.` (`loop.start`).
    pub fn event(self) -> &'static str {
        self.split().1
    }

    fn split(self) -> (&'static str, &'static str) {
        // Every name is `pre.<event>` or `post.<event>`.
        self.name().split_once('.').unwrap_or(("", self.name()))
    }

    /// Whether ralph reaches this boundary. ralph has no plan step and no
    /// human-in-the-loop channel yet, so hooks on those phases are accepted (a file
    /// written for ralph-orchestrator loads) but never run; the config warns.
    pub fn fires(self) -> bool {
        !matches!(
            self,
            HookPhase::PrePlanCreated
                | HookPhase::PostPlanCreated
                | HookPhase::PreHumanInteract
                | HookPhase::PostHumanInteract
        )
    }
}

impl fmt::Display for HookPhase {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}
