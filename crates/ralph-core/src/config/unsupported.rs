//! Upstream (ralph-orchestrator) keys that ralph does not implement, and what ignoring
//! each one would do.
//!
//! ralph-orchestrator accepts any key and silently drops what it does not read.
//! ralph never does: each key here is reported with its location. The rule for how
//! loudly:
//! - an **error** when running without the feature would change behaviour the user
//!   relies on (a hook that blocks the loop, a limit, a tool restriction, a loop that
//!   must not complete): ralph refuses to run until the key is removed, so nobody is
//!   surprised by a loop that does more, or less, than the file says;
//! - a **warning** when running without it is safe (prompt extras, display settings,
//!   keys ralph-orchestrator ignored as well);
//! - **nothing** when the value asks for exactly what ralph does anyway
//!   (`persistent: false`, `tasks: {enabled: false}`, `concurrency: 1`).

use saphyr::{MarkedYaml as Node, Scalar, YamlData};

/// How much ignoring a key matters, judged from its value.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Impact {
    /// The value asks for what ralph does anyway.
    None,
    /// Safe to run without: report and go on.
    Warning,
    /// Running without it would surprise the user: refuse.
    Error,
}

/// One unsupported key of one mapping.
pub(crate) struct Unsupported {
    pub(crate) key: &'static str,
    pub(crate) impact: fn(&Node<'_>) -> Impact,
    /// Why, and what to do about it (ends the message).
    pub(crate) why: &'static str,
}

const fn entry(
    key: &'static str,
    impact: fn(&Node<'_>) -> Impact,
    why: &'static str,
) -> Unsupported {
    Unsupported { key, impact, why }
}

fn warning(_: &Node<'_>) -> Impact {
    Impact::Warning
}

fn error(_: &Node<'_>) -> Impact {
    Impact::Error
}

fn scalar<'a>(node: &'a Node<'_>) -> Option<&'a Scalar<'a>> {
    match &node.data {
        YamlData::Value(s) => Some(s),
        _ => None,
    }
}

/// `enabled: false` in a section's mapping.
fn is_disabled(node: &Node<'_>) -> bool {
    match &node.data {
        YamlData::Mapping(map) => map.iter().any(|(k, v)| {
            matches!(scalar(k), Some(Scalar::String(s)) if s == "enabled")
                && matches!(scalar(v), Some(Scalar::Boolean(false)))
        }),
        _ => false,
    }
}

/// `enabled: true` in a section's mapping.
fn is_enabled(node: &Node<'_>) -> bool {
    match &node.data {
        YamlData::Mapping(map) => map.iter().any(|(k, v)| {
            matches!(scalar(k), Some(Scalar::String(s)) if s == "enabled")
                && matches!(scalar(v), Some(Scalar::Boolean(true)))
        }),
        _ => false,
    }
}

/// For sections that are off unless `enabled: true` (upstream's `RObot`).
fn error_if_enabled(node: &Node<'_>) -> Impact {
    if is_enabled(node) {
        Impact::Error
    } else {
        Impact::None
    }
}

fn error_if_true(node: &Node<'_>) -> Impact {
    match scalar(node) {
        Some(Scalar::Boolean(false)) => Impact::None,
        _ => Impact::Error,
    }
}

fn warning_unless_zero(node: &Node<'_>) -> Impact {
    match scalar(node) {
        Some(Scalar::Integer(0)) => Impact::None,
        _ => Impact::Warning,
    }
}

/// An empty string or list, or no value at all (`key:` or `key: null`, as a template
/// leaves it), asks for nothing.
fn error_unless_empty(node: &Node<'_>) -> Impact {
    let empty = match &node.data {
        YamlData::Value(Scalar::Null) => true,
        YamlData::Value(Scalar::String(s)) => s.is_empty(),
        YamlData::Sequence(items) => items.is_empty(),
        _ => false,
    };
    if empty { Impact::None } else { Impact::Error }
}

fn error_unless_one(node: &Node<'_>) -> Impact {
    match scalar(node) {
        Some(Scalar::Integer(1)) => Impact::None,
        _ => Impact::Error,
    }
}

/// `default_mode: interactive` would hand the terminal to the agent; `autonomous` is
/// what ralph always does.
fn error_unless_autonomous(node: &Node<'_>) -> Impact {
    match scalar(node) {
        Some(Scalar::String(s)) if s == "autonomous" => Impact::None,
        _ => Impact::Error,
    }
}

/// `adapters.<name>.enabled: false` takes a backend out of auto-detection, which
/// ralph would then happily pick; timeouts are covered by ralph's own deadlines.
fn adapters_impact(node: &Node<'_>) -> Impact {
    let disables_one = match &node.data {
        YamlData::Mapping(map) => map.values().any(is_disabled),
        _ => false,
    };
    if disables_one {
        Impact::Error
    } else {
        Impact::Warning
    }
}

const IGNORED_UPSTREAM_TOO: &str = "ralph-orchestrator ignored it as well, so nothing changes";

/// Top-level keys.
/// The key a version 1 top-level key moved to (`max_iterations` → `event_loop.
/// max_iterations`), read from its entry's words, which name it in one form.
pub(crate) fn moved_to(key: &str) -> Option<&'static str> {
    let entry = TOP_LEVEL.iter().find(|e| e.key == key)?;
    let rest = entry.why.strip_prefix(MOVED)?;
    rest.split('`').next()
}

/// How the entry of a version 1 key that moved begins; the new key follows, in backticks.
const MOVED: &str = "this version 1 key moved: write `";

pub(crate) const TOP_LEVEL: &[Unsupported] = &[
    entry(
        "features",
        warning,
        "ralph never moves a second `ralph run` into a worktree by itself (it is refused with a message) and never merges on its own; start a loop in a worktree of its own with `ralph run --worktree`, and merge it with `ralph runs land`",
    ),
    entry(
        "RObot",
        error_if_enabled,
        "ralph has no human-in-the-loop channel, so questions for a human would go unanswered; set `enabled: false` or remove the section to run without one",
    ),
    entry(
        "tui",
        warning,
        "the keys of ralph's full-screen view (`ralph run --tui`, `ralph watch`) are fixed",
    ),
    entry(
        "adapters",
        adapters_impact,
        "set per-backend timeouts with `cli.iteration_timeout_seconds` and `cli.idle_timeout_seconds`, and choose which backends auto-detection may pick with `cli.backend_priority`; ralph would not leave out an adapter marked `enabled: false`",
    ),
    entry(
        "events",
        warning,
        "ralph does not inject per-topic descriptions into hat instructions; put that guidance in the hats' `instructions`",
    ),
    entry(
        "backpressure",
        warning,
        "no command listed here is run (ralph-orchestrator never ran them either); write them as `gates:` (`name`, `run`, `before`), which ralph runs before it believes the events they guard",
    ),
    entry("name", warning, "ralph keeps no name for a config"),
    entry(
        "description",
        warning,
        "ralph keeps no description for a config",
    ),
    entry("resources", warning, IGNORED_UPSTREAM_TOO),
    entry("telemetry", warning, IGNORED_UPSTREAM_TOO),
    entry("safety", warning, IGNORED_UPSTREAM_TOO),
    // Version 1 flat keys: each has a new home, and ignoring a limit or a backend
    // would run a different loop than the file describes.
    entry(
        "agent",
        error,
        "this version 1 key moved: write `cli.backend` instead",
    ),
    entry(
        "agent_priority",
        error,
        "this version 1 key moved: write `cli.backend_priority` instead",
    ),
    entry(
        "prompt_file",
        error,
        "this version 1 key moved: write `event_loop.prompt_file` instead",
    ),
    entry(
        "completion_promise",
        error,
        "this version 1 key moved: write `event_loop.completion_promise` instead",
    ),
    entry(
        "max_iterations",
        error,
        "this version 1 key moved: write `event_loop.max_iterations` instead",
    ),
    entry(
        "max_runtime",
        error,
        "this version 1 key moved: write `event_loop.max_runtime_seconds` instead",
    ),
    entry(
        "max_cost",
        error,
        "this version 1 key moved: write `event_loop.max_cost_usd` instead",
    ),
    entry(
        "max_tokens",
        warning,
        "a version 1 key that ralph-orchestrator dropped as well",
    ),
    entry(
        "retry_delay",
        warning,
        "a version 1 key that ralph-orchestrator dropped as well",
    ),
    entry(
        "archive_prompts",
        warning,
        "a version 1 key that ralph-orchestrator dropped as well",
    ),
    entry(
        "enable_metrics",
        warning,
        "a version 1 key that ralph-orchestrator dropped as well",
    ),
    entry(
        "_suppress_warnings",
        warning,
        "ralph reports every key it ignores",
    ),
    entry("verbose", warning, "use `-v` on the command line"),
];

/// Keys under `cli`.
pub(crate) const CLI: &[Unsupported] = &[
    entry(
        "default_mode",
        error_unless_autonomous,
        "ralph always runs the agent headless; use `ralph plan` for an interactive session",
    ),
    entry(
        "idle_timeout_secs",
        warning,
        "it applied to ralph-orchestrator's interactive mode only; ralph's inactivity deadline is `cli.idle_timeout_seconds`",
    ),
    entry(
        "pty_mode",
        warning,
        "ralph runs agents on pipes; set `cli.pty: true` (or a hat's `pty: true`) for an agent that needs a terminal",
    ),
    entry(
        "pty_interactive",
        warning,
        "ralph does not forward keystrokes to the agent",
    ),
];

/// Keys under `event_loop`.
pub(crate) const EVENT_LOOP: &[Unsupported] = &[
    entry(
        "cooldown_delay_seconds",
        warning_unless_zero,
        "ralph starts the next iteration at once; the limits still bound the loop",
    ),
    entry(
        "cancellation_promise",
        error_unless_empty,
        "ralph would not end the loop when the agent emits this topic; remove it, and let the agent stop by emitting the completion promise",
    ),
    entry(
        "persistent",
        error_if_true,
        "ralph ends the loop on completion instead of resuming it; remove it (or set `false`)",
    ),
    entry(
        "starting_hat",
        error_unless_empty,
        "name the first hat's trigger in `event_loop.starting_event` instead",
    ),
    entry(
        "enforce_hat_scope",
        error_if_true,
        "ralph would not rewrite events a hat may not publish; remove it (or set `false`)",
    ),
    entry(
        "mutation_score_warn_threshold",
        warning,
        "ralph does not read mutation scores",
    ),
    entry(
        "context_window_tokens",
        warning,
        "ralph takes each model's context window from its own table (the footer's `context … of …`)",
    ),
    entry("checkpoint_interval", warning, IGNORED_UPSTREAM_TOO),
    entry(
        "idle_timeout_secs",
        warning,
        "ralph's inactivity deadline is `cli.idle_timeout_seconds` (ralph-orchestrator ignored this key here)",
    ),
];

/// Keys under `hats.<id>`.
pub(crate) const HAT: &[Unsupported] = &[
    entry(
        "disallowed_tools",
        error_unless_empty,
        "ralph cannot keep this hat from using those tools, so it could edit files it must not; remove the key, or give the hat a backend whose arguments restrict its tools",
    ),
    entry(
        "concurrency",
        error_unless_one,
        "ralph runs one agent at a time; remove the key (or set 1)",
    ),
    entry(
        "aggregate",
        error,
        "ralph runs one agent at a time, so there is nothing to aggregate; remove the key",
    ),
    entry(
        "timeout",
        warning,
        "it applied to parallel workers; per-hat deadlines are `iteration_timeout_seconds` and `idle_timeout_seconds`",
    ),
    entry("scratchpad", warning, "every hat shares `core.scratchpad`"),
    entry(
        "import",
        error,
        "the hat would lose everything it imports; copy the imported keys into this hat",
    ),
];

/// Keys under `hats.<id>.backend` (mapping form).
pub(crate) const HAT_BACKEND: &[Unsupported] = &[entry(
    "agent",
    error,
    "ralph would run the backend's default agent instead; pass the agent through `args`",
)];

/// Keys under `skills.overrides.<name>`.
pub(crate) const SKILL_OVERRIDE: &[Unsupported] = &[entry(
    "tags",
    warning,
    "ralph does not choose skills by tag; limit a skill with `hats` or `backends`",
)];

#[cfg(test)]
#[path = "unsupported_tests.rs"]
mod tests;
