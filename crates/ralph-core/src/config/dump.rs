//! The resolved configuration written back as `ralph.yml` YAML (`--dry-run`).
//!
//! Every key is written out, defaults included, so the dump shows exactly what a run
//! would use; and it is itself a valid config that resolves to the same values (the
//! prompt is written as the file it came from, or inline).

use std::borrow::Cow;
use std::fmt;
use std::path::Path;
use std::time::Duration;

use saphyr::{Mapping, Scalar, Yaml, YamlEmitter};

use super::resolved::{
    AgentBackend, CustomBackend, Deadlines, HatBackend, HatConfig, PromptSource, ResolvedConfig,
};

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
        let mut cli = Map::default();
        cli.entry(
            "backend",
            string(self.agent.backend.kind().map_or("auto", |k| k.name())),
        );
        match &self.agent.backend {
            AgentBackend::Auto => {}
            AgentBackend::Builtin { command, .. } => {
                cli.opt("command", command.as_deref().map(string))
            }
            AgentBackend::Custom(custom) => custom_keys(&mut cli, custom),
        }
        cli.entry("args", strings(&self.agent.args));
        deadline_keys(&mut cli, &self.agent.deadlines);
        cli.entry("pty", Yaml::Value(Scalar::Boolean(self.agent.pty)));
        cli.entry(
            "backend_priority",
            Yaml::Sequence(
                self.backend_priority
                    .iter()
                    .map(|k| string(k.name()))
                    .collect(),
            ),
        );

        let el = &self.event_loop;
        let mut event_loop = Map::default();
        match el.prompt.as_ref().map(|p| (&p.source, &p.text)) {
            Some((PromptSource::Inline, text)) => event_loop.entry("prompt", string(text)),
            Some((PromptSource::File(path), _)) => {
                event_loop.entry("prompt_file", path_value(path))
            }
            None => {}
        }
        event_loop.entry("completion_promise", string(&el.completion_promise));
        event_loop.entry("max_iterations", int(el.max_iterations.into()));
        event_loop.entry("max_runtime_seconds", seconds(el.max_runtime));
        event_loop.opt("max_cost_usd", el.max_cost_usd.map(number));
        event_loop.entry(
            "max_consecutive_failures",
            int(el.max_consecutive_failures.into()),
        );
        event_loop.entry("starting_event", string(&el.starting_event));
        event_loop.entry("required_events", strings(&el.required_events));

        let mut core = Map::default();
        let mut scratchpad = Map::default();
        scratchpad.entry(
            "enabled",
            Yaml::Value(Scalar::Boolean(self.core.scratchpad.is_some())),
        );
        scratchpad.opt("path", self.core.scratchpad.as_deref().map(path_value));
        core.entry("scratchpad", scratchpad.into_yaml());
        core.entry("guardrails", strings(&self.core.guardrails));
        core.entry("specs_dir", path_value(&self.core.specs_dir));

        let mut top = Map::default();
        top.entry("cli", cli.into_yaml());
        top.entry("event_loop", event_loop.into_yaml());
        top.entry("core", core.into_yaml());
        if !self.hats.is_empty() {
            let mut hats = Map::default();
            for hat in &self.hats {
                hats.entry_owned(hat.id.clone(), hat_yaml(hat));
            }
            top.entry("hats", hats.into_yaml());
        }
        // Only the configured prices: the built-in table is not a setting.
        if !self.pricing.is_empty() {
            let mut pricing = Map::default();
            for p in &self.pricing {
                let mut m = Map::default();
                m.entry("input", number(p.price.input));
                m.entry("output", number(p.price.output));
                m.entry("cache_read", number(p.price.cache_read));
                m.entry("cache_write", number(p.price.cache_write));
                pricing.entry_owned(p.model.clone(), m.into_yaml());
            }
            top.entry("pricing", pricing.into_yaml());
        }
        top.into_yaml()
    }
}

impl fmt::Display for ResolvedConfig {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_yaml())
    }
}

fn hat_yaml(hat: &HatConfig) -> Yaml<'static> {
    let mut m = Map::default();
    m.entry("name", string(&hat.name));
    m.entry("description", string(&hat.description));
    m.entry("triggers", strings(&hat.triggers));
    m.entry("publishes", strings(&hat.publishes));
    if !hat.instructions.is_empty() {
        m.entry("instructions", string(&hat.instructions));
    }
    match &hat.backend {
        None => {}
        Some(HatBackend::Builtin { kind, args, .. }) => {
            let mut b = Map::default();
            b.entry("type", string(kind.name()));
            b.entry("args", strings(args));
            m.entry("backend", b.into_yaml());
        }
        Some(HatBackend::Custom { backend, args }) => {
            let mut b = Map::default();
            custom_keys(&mut b, backend);
            b.entry("args", strings(args));
            m.entry("backend", b.into_yaml());
        }
    }
    if !hat.args.is_empty() {
        m.entry("args", strings(&hat.args));
    }
    m.opt(
        "default_publishes",
        hat.default_publishes.as_deref().map(string),
    );
    m.opt(
        "max_activations",
        hat.max_activations.map(|n| int(n.into())),
    );
    deadline_keys(&mut m, &hat.deadlines);
    m.entry("pty", Yaml::Value(Scalar::Boolean(hat.pty)));
    m.into_yaml()
}

fn custom_keys(m: &mut Map, custom: &CustomBackend) {
    m.entry("command", string(&custom.command));
    m.entry("prompt_mode", string(custom.prompt_mode.name()));
    m.opt("prompt_flag", custom.prompt_flag.as_deref().map(string));
    m.entry("output_format", string(custom.output_format.name()));
}

fn deadline_keys(m: &mut Map, d: &Deadlines) {
    m.entry("startup_timeout_seconds", seconds(d.startup));
    m.entry("idle_timeout_seconds", seconds(d.idle));
    m.entry("iteration_timeout_seconds", seconds(d.iteration));
    m.entry("exit_grace_seconds", seconds(d.exit_grace));
}

/// An ordered mapping under construction.
#[derive(Default)]
struct Map(Mapping<'static>);

impl Map {
    fn entry(&mut self, key: &'static str, value: Yaml<'static>) {
        self.0.insert(string(key), value);
    }

    fn entry_owned(&mut self, key: String, value: Yaml<'static>) {
        self.0
            .insert(Yaml::Value(Scalar::String(Cow::Owned(key))), value);
    }

    fn opt(&mut self, key: &'static str, value: Option<Yaml<'static>>) {
        if let Some(v) = value {
            self.entry(key, v);
        }
    }

    fn into_yaml(self) -> Yaml<'static> {
        Yaml::Mapping(self.0)
    }
}

fn string(s: &str) -> Yaml<'static> {
    Yaml::Value(Scalar::String(Cow::Owned(s.to_owned())))
}

fn strings(items: &[String]) -> Yaml<'static> {
    Yaml::Sequence(items.iter().map(|s| string(s)).collect())
}

fn path_value(path: &Path) -> Yaml<'static> {
    string(&path.display().to_string())
}

fn number(n: f64) -> Yaml<'static> {
    Yaml::Value(Scalar::FloatingPoint(n.into()))
}

fn int(n: i64) -> Yaml<'static> {
    Yaml::Value(Scalar::Integer(n))
}

fn seconds(d: Duration) -> Yaml<'static> {
    // Durations here come from whole seconds in the config, which fit in an i64.
    int(i64::try_from(d.as_secs()).unwrap_or(i64::MAX))
}
