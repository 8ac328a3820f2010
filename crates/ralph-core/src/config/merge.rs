//! Layering: a later layer overrides an earlier one key by key.
//!
//! Each section layers field by field (`raw.rs` derives it for every field), so maps
//! merge deeply (a layer that sets `event_loop.max_iterations` keeps the
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
use super::raw::{Layered, RawCli, RawConfig, RawEventLoop, RawHat, RawPrice};

/// Merges `over` on top of `base`.
pub fn merge(base: RawConfig, over: RawConfig) -> RawConfig {
    RawConfig {
        cli: merge_cli(base.cli, over.cli),
        event_loop: merge_event_loop(base.event_loop, over.event_loop),
        core: base.core.layer(over.core),
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
    let base = if switches_backend {
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
    base.layer(over)
}

fn merge_event_loop(mut base: RawEventLoop, over: RawEventLoop) -> RawEventLoop {
    if over.prompt.is_some() || over.prompt_file.is_some() {
        base.prompt = None;
        base.prompt_file = None;
    }
    base.layer(over)
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
