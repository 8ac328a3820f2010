//! Layering: a later layer overrides an earlier one key by key.
//!
//! Maps merge deeply (a layer that sets `event_loop.max_iterations` keeps the
//! `event_loop.prompt_file` of the layer below), lists and scalars replace, and hats
//! are replaced whole, per hat id. Two pairs of keys travel together because mixing
//! them across layers would build something no layer asked for:
//! - `prompt` and `prompt_file`: a layer that gives either replaces both (so `-p TEXT`
//!   overrides a `prompt_file` in `ralph.yml`);
//! - a backend and its settings: a layer that switches `cli.backend` to a different
//!   backend drops `command`, `args`, `prompt_mode`, `prompt_flag`, `output_format` and
//!   `pty` from the layers below (the `--model` flag meant for pi must not reach codex,
//!   nor a terminal one agent needed reach another).
//!
//! Prices merge per model: a later layer's price of a model replaces the earlier one
//! whole (no `cache_read` left over from a price the user rewrote), other models keep
//! theirs.

use super::choice::BackendChoice;
use super::decode_pricing::same_model;
use super::raw::{
    RawCli, RawConfig, RawCore, RawDeadlines, RawEventLoop, RawHat, RawPrice, RawScratchpad,
};

/// Merges `over` on top of `base`.
pub fn merge(base: RawConfig, over: RawConfig) -> RawConfig {
    RawConfig {
        cli: merge_cli(base.cli, over.cli),
        event_loop: merge_event_loop(base.event_loop, over.event_loop),
        core: merge_core(base.core, over.core),
        hats: merge_hats(base.hats, over.hats),
        pricing: merge_pricing(base.pricing, over.pricing),
    }
}

fn merge_cli(base: RawCli, over: RawCli) -> RawCli {
    let effective = |cli: &RawCli| {
        cli.backend
            .as_ref()
            .map_or(BackendChoice::Auto, |b| b.value)
    };
    let switches_backend = over.backend.is_some() && effective(&over) != effective(&base);
    let base_settings = if switches_backend {
        RawCli {
            backend: None,
            command: None,
            args: None,
            prompt_mode: None,
            prompt_flag: None,
            output_format: None,
            pty: None,
            ..base
        }
    } else {
        base
    };
    RawCli {
        backend: over.backend.or(base_settings.backend),
        command: over.command.or(base_settings.command),
        args: over.args.or(base_settings.args),
        prompt_mode: over.prompt_mode.or(base_settings.prompt_mode),
        prompt_flag: over.prompt_flag.or(base_settings.prompt_flag),
        output_format: over.output_format.or(base_settings.output_format),
        deadlines: merge_deadlines(base_settings.deadlines, over.deadlines),
        pty: over.pty.or(base_settings.pty),
        backend_priority: over.backend_priority.or(base_settings.backend_priority),
    }
}

fn merge_deadlines(base: RawDeadlines, over: RawDeadlines) -> RawDeadlines {
    RawDeadlines {
        startup_timeout_seconds: over
            .startup_timeout_seconds
            .or(base.startup_timeout_seconds),
        idle_timeout_seconds: over.idle_timeout_seconds.or(base.idle_timeout_seconds),
        iteration_timeout_seconds: over
            .iteration_timeout_seconds
            .or(base.iteration_timeout_seconds),
        exit_grace_seconds: over.exit_grace_seconds.or(base.exit_grace_seconds),
    }
}

fn merge_event_loop(base: RawEventLoop, over: RawEventLoop) -> RawEventLoop {
    let (prompt, prompt_file) = if over.prompt.is_some() || over.prompt_file.is_some() {
        (over.prompt, over.prompt_file)
    } else {
        (base.prompt, base.prompt_file)
    };
    RawEventLoop {
        prompt,
        prompt_file,
        completion_promise: over.completion_promise.or(base.completion_promise),
        max_iterations: over.max_iterations.or(base.max_iterations),
        max_runtime_seconds: over.max_runtime_seconds.or(base.max_runtime_seconds),
        max_cost_usd: over.max_cost_usd.or(base.max_cost_usd),
        max_consecutive_failures: over
            .max_consecutive_failures
            .or(base.max_consecutive_failures),
        starting_event: over.starting_event.or(base.starting_event),
        required_events: over.required_events.or(base.required_events),
    }
}

fn merge_core(base: RawCore, over: RawCore) -> RawCore {
    RawCore {
        scratchpad: RawScratchpad {
            enabled: over.scratchpad.enabled.or(base.scratchpad.enabled),
            path: over.scratchpad.path.or(base.scratchpad.path),
        },
        guardrails: over.guardrails.or(base.guardrails),
        specs_dir: over.specs_dir.or(base.specs_dir),
    }
}

/// A hat from a later layer replaces the earlier hat with the same id in place; new
/// hats follow in their layer's order.
fn merge_hats(mut base: Vec<RawHat>, over: Vec<RawHat>) -> Vec<RawHat> {
    for hat in over {
        match base.iter_mut().find(|h| h.id.value == hat.id.value) {
            Some(slot) => *slot = hat,
            None => base.push(hat),
        }
    }
    base
}

/// A later layer's price replaces the earlier price of the same model in place; new
/// models follow in their layer's order.
fn merge_pricing(mut base: Vec<RawPrice>, over: Vec<RawPrice>) -> Vec<RawPrice> {
    for price in over {
        match base
            .iter_mut()
            .find(|p| same_model(&p.model.value, &price.model.value))
        {
            Some(slot) => *slot = price,
            None => base.push(price),
        }
    }
    base
}
