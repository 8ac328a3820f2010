//! The resolved configuration written back as `ralph.yml` YAML (`--dry-run`).
//!
//! Every key is written out, defaults included, so the dump shows exactly what a run
//! would use; and it is itself a valid config that resolves to the same values (the
//! prompt is written as the file it came from, or inline).

use std::fmt;

use saphyr::{Yaml, YamlEmitter};

use super::key::{Dump, Key, Section};
use super::resolved::{
    GateConfig, HatBackend, HatConfig, ModelPricing, ResolvedConfig, SkillOverride,
};
use super::yaml_value::Map;

impl ResolvedConfig {
    /// The configuration as YAML, preceded by a comment naming the files it came from.
    pub fn to_yaml(&self) -> String {
        let mut out = String::from("# Resolved ralph configuration (built-in defaults");
        for source in &self.sources {
            out.push_str(", then ");
            out.push_str(&source.display().to_string());
        }
        out.push_str(", then the command line)\n");
        let mut body = String::new();
        let mut emitter = YamlEmitter::new(&mut body);
        emitter.multiline(true);
        // Writing into a String cannot fail, and every node built here is a plain
        // string, number, list or mapping the emitter accepts.
        if emitter.dump(&self.to_yaml_tree()).is_err() {
            body = String::from("# (the configuration could not be written as YAML)");
        }
        out.push_str(body.strip_prefix("---\n").unwrap_or(&body));
        out.push('\n');
        out
    }

    fn to_yaml_tree(&self) -> Yaml<'static> {
        section(Section::Top, Part::Config(self)).into_yaml()
    }
}

/// The part of the resolved configuration a section describes.
#[derive(Clone, Copy)]
enum Part<'a> {
    Config(&'a ResolvedConfig),
    Hat(&'a HatConfig),
    Backend(&'a HatBackend),
    Price(&'a ModelPricing),
    Gate(&'a GateConfig),
    SkillOverride(&'a SkillOverride),
}

/// `part` as a mapping of `section`'s keys, each written by its entry's [`Dump`], in
/// the order the table declares them.
fn section(section: Section, part: Part<'_>) -> Map {
    let mut map = Map::default();
    for key in section.keys() {
        map.opt(key.name, value(key, part));
    }
    map
}

fn value(key: &Key, part: Part<'_>) -> Option<Yaml<'static>> {
    match (key.dump, part) {
        (Dump::Skip | Dump::InHooks, _) => None,
        (Dump::Keys, _) => {
            let opened = Section::opened_by(key)?;
            let part = match (opened, part) {
                // A hat without a backend of its own runs `cli`'s: nothing to write.
                (Section::HatBackend, Part::Hat(hat)) => Part::Backend(hat.backend.as_ref()?),
                (_, part) => part,
            };
            Some(section(opened, part).into_yaml())
        }
        (Dump::Hats, Part::Config(config)) => {
            let mut hats = Map::default();
            for hat in &config.hats {
                hats.entry_owned(
                    hat.id.clone(),
                    section(Section::Hat, Part::Hat(hat)).into_yaml(),
                );
            }
            (!config.hats.is_empty()).then(|| hats.into_yaml())
        }
        (Dump::Prices, Part::Config(config)) => {
            let mut prices = Map::default();
            for price in &config.pricing {
                let entry = section(Section::Price, Part::Price(price)).into_yaml();
                prices.entry_owned(price.model.clone(), entry);
            }
            (!config.pricing.is_empty()).then(|| prices.into_yaml())
        }
        (Dump::Gates, Part::Config(config)) => {
            let gates = config
                .gates
                .iter()
                .map(|gate| section(Section::Gate, Part::Gate(gate)).into_yaml())
                .collect();
            (!config.gates.is_empty()).then(|| Yaml::Sequence(gates))
        }
        (Dump::Hooks, Part::Config(config)) => super::hooks::dump_hooks(&config.hooks),
        (Dump::SkillOverrides, Part::Config(config)) => {
            let mut overrides = Map::default();
            for o in &config.skills.overrides {
                let entry = section(Section::SkillOverride, Part::SkillOverride(o)).into_yaml();
                overrides.entry_owned(o.name.clone(), entry);
            }
            (!config.skills.overrides.is_empty()).then(|| overrides.into_yaml())
        }
        (Dump::Config(f), Part::Config(config)) => f(config),
        (Dump::SkillOverride(f), Part::SkillOverride(o)) => f(o),
        (Dump::Gate(f), Part::Gate(gate)) => f(gate),
        (Dump::Hat(f), Part::Hat(hat)) => f(hat),
        (Dump::Backend(f), Part::Backend(backend)) => f(backend),
        (Dump::Price(f), Part::Price(price)) => f(price),
        // An accessor for another kind of part: the table's tests rule this out.
        _ => None,
    }
}

/// A `fallback` list: each backend as a hat's `backend` mapping.
pub(super) fn backend_list(backends: &[HatBackend]) -> Yaml<'static> {
    Yaml::Sequence(
        backends
            .iter()
            .map(|b| section(Section::HatBackend, Part::Backend(b)).into_yaml())
            .collect(),
    )
}

impl fmt::Display for ResolvedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml())
    }
}
