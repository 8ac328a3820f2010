//! Layering: a later layer overrides an earlier one key by key.
//!
//! The layer and each of its sections layer field by field (`raw.rs` derives it for
//! every field; hats and prices are layered here), so maps merge deeply (a layer that
//! sets `event_loop.max_iterations` keeps the `event_loop.prompt_file` of the layer
//! below), lists and scalars replace, and hats are replaced whole, per hat id. Two pairs of keys travel together because mixing
//! them across layers would build something no layer asked for:
//! - `prompt` and `prompt_file`: a layer that gives either replaces both (so `-p TEXT`
//!   overrides a `prompt_file` in `ralph.yml`);
//! - a backend and its settings: a layer that switches `cli.backend` to a different
//!   backend drops `command`, `args`, `prompt_mode`, `prompt_flag`, `output_format` and
//!   `pty` from the layers below (the `--model` flag meant for pi must not reach codex,
//!   nor a terminal one agent needed reach another).
//!
//! Gates merge per name: a later layer's gate replaces the earlier gate of that name in
//! place, new gates follow in their layer's order (so a user file can hold gates every
//! project runs, and a project can redefine one).
//!
//! Prices merge per model: a later layer's price of a model replaces the earlier one
//! whole (no `cache_read` left over from a price the user rewrote), other models keep
//! theirs.

use super::choice::BackendChoice;
use super::decode_pricing::same_model;
use super::raw::{Layered, RawCli, RawConfig, RawGate, RawHat, RawPrice, RawSkillOverride};

/// Merges `over` on top of `base`.
pub fn merge(mut base: RawConfig, over: RawConfig) -> RawConfig {
    if switches_backend(&base.cli, &over.cli) {
        base.cli = RawCli {
            backend: None,
            command: None,
            args: None,
            prompt_mode: None,
            prompt_flag: None,
            output_format: None,
            pty: None,
            ..base.cli
        };
    }
    let el = &over.event_loop;
    if el.prompt.is_some() || el.prompt_file.is_some() {
        base.event_loop.prompt = None;
        base.event_loop.prompt_file = None;
    }
    base.layer(over)
}

/// Whether `over` names a backend other than the one `base` runs.
fn switches_backend(base: &RawCli, over: &RawCli) -> bool {
    let effective = |cli: &RawCli| {
        cli.backend
            .as_ref()
            .map_or(BackendChoice::Auto, |b| b.value)
    };
    over.backend.is_some() && effective(over) != effective(base)
}

/// A hat from a later layer replaces the earlier hat with the same id in place; new
/// hats follow in their layer's order.
impl Layered for Vec<RawHat> {
    fn layer(mut self, over: Self) -> Self {
        for hat in over {
            match self.iter_mut().find(|h| h.id.value == hat.id.value) {
                Some(slot) => *slot = hat,
                None => self.push(hat),
            }
        }
        self
    }
}

/// A later layer's price replaces the earlier price of the same model in place; new
/// models follow in their layer's order.
impl Layered for Vec<RawPrice> {
    fn layer(mut self, over: Self) -> Self {
        for price in over {
            match self
                .iter_mut()
                .find(|p| same_model(&p.model.value, &price.model.value))
            {
                Some(slot) => *slot = price,
                None => self.push(price),
            }
        }
        self
    }
}

/// A later layer's gate replaces the earlier gate of the same name in place; new gates
/// follow in their layer's order.
impl Layered for Vec<RawGate> {
    fn layer(mut self, over: Self) -> Self {
        for gate in over {
            match self.iter_mut().find(|g| g.name.value == gate.name.value) {
                Some(slot) => *slot = gate,
                None => self.push(gate),
            }
        }
        self
    }
}

/// A later layer's override of a skill replaces the earlier one of the same name whole;
/// new names follow in their layer's order.
impl Layered for Vec<RawSkillOverride> {
    fn layer(mut self, over: Self) -> Self {
        for o in over {
            match self.iter_mut().find(|s| s.name.value == o.name.value) {
                Some(slot) => *slot = o,
                None => self.push(o),
            }
        }
        self
    }
}
