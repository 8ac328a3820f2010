//! The agents of a run: every backend the configuration names (the global one and each
//! hat's), checked once before the first iteration, so a missing binary is reported
//! before anything runs and each iteration starts exactly the program that was checked.
//! Successful version probes are remembered in the user's cache directory
//! (`ralph_agent::probe_cache`), so a second run starts its agent without waiting for
//! `--version`; `ralph doctor` still probes for real.

use std::collections::HashMap;
use std::path::PathBuf;

use ralph_agent::{BackendKind, BuildError, DetectError, Detector, InteractiveCommand, ProbeCache};
use ralph_core::config::{AgentConfig, HatConfig, ResolvedConfig};

use super::launch::{interactive_command_line, probe_target, steering_between_iterations};

/// One hat's agent, ready to run.
#[derive(Clone, Debug)]
pub(crate) struct Agent {
    pub(crate) config: AgentConfig,
    /// The backend (what `auto` resolved to, when it was `auto`).
    pub(crate) kind: BackendKind,
    /// The program, as found on `PATH` when the run started.
    pub(crate) program: PathBuf,
}

/// The agent of each hat, and of the default hat.
#[derive(Clone, Debug)]
pub(crate) struct Agents {
    default: Agent,
    by_hat: HashMap<String, Agent>,
}

impl Agents {
    /// The agent for `hat`: its own, or the default hat's (`ralph_core::machine::DEFAULT_HAT` included).
    pub(crate) fn get(&self, hat: &str) -> &Agent {
        self.by_hat.get(hat).unwrap_or(&self.default)
    }

    /// The default hat's agent.
    pub(crate) fn default_agent(&self) -> &Agent {
        &self.default
    }

    /// One line per backend that was asked to take steering mid-turn (`steering: true`)
    /// but takes it only between iterations, each backend once.
    pub(crate) fn steering_notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = Vec::new();
        let mut by_hat: Vec<&Agent> = self.by_hat.values().collect();
        by_hat.sort_by_key(|a| a.kind.name());
        for agent in std::iter::once(&self.default).chain(by_hat) {
            if let Some(note) = steering_between_iterations(&agent.config, agent.kind)
                && !notes.contains(&note)
            {
                notes.push(note);
            }
        }
        notes
    }
}

/// Finds every agent `config` needs; `auto` is detected once, in priority order.
pub(crate) async fn resolve(config: &ResolvedConfig) -> Result<Agents, DetectError> {
    let mut detector = detector(config);
    let mut detected: Option<BackendKind> = None;
    let default = find(&mut detector, &mut detected, config.agent.clone()).await?;
    let mut by_hat = HashMap::new();
    // A hat that can never be routed an event never runs: checking (and so probing)
    // its backend would only slow the start, or fail a run that does not need it.
    for hat in config.hats.iter().filter(|hat| can_run(hat)) {
        let agent = find(&mut detector, &mut detected, config.agent_for(hat)).await?;
        by_hat.insert(hat.id.clone(), agent);
    }
    Ok(Agents { default, by_hat })
}

/// Whether the machine can ever pick `hat`: routing is by exact topic, and events
/// nobody triggers on go to the default hat, so a hat without triggers never runs.
fn can_run(hat: &HatConfig) -> bool {
    !hat.triggers.is_empty()
}

/// The default hat's agent alone (what `ralph plan` starts).
pub(crate) async fn resolve_default(config: &ResolvedConfig) -> Result<Agent, DetectError> {
    let mut detector = detector(config);
    find(&mut detector, &mut None, config.agent.clone()).await
}

/// A detector in `config`'s priority order that remembers successful probes across runs.
fn detector(config: &ResolvedConfig) -> Detector {
    Detector::new()
        .with_priority(config.backend_priority.clone())
        .with_cache(ProbeCache::user())
}

/// The interactive command line of `agent` (`ralph plan`), starting with `prompt`.
pub(crate) fn interactive_command(
    agent: &Agent,
    prompt: &str,
) -> Result<InteractiveCommand, BuildError> {
    interactive_command_line(&agent.config, agent.kind, Some(&agent.program), prompt)
}

/// Checks one agent's program (detecting `auto` once per run).
async fn find(
    detector: &mut Detector,
    detected: &mut Option<BackendKind>,
    config: AgentConfig,
) -> Result<Agent, DetectError> {
    let (kind, command) = match probe_target(&config) {
        Some((kind, command)) => (kind, command.map(str::to_owned)),
        None => {
            let kind = match *detected {
                Some(kind) => kind,
                None => *detected.insert(detector.detect().await?),
            };
            (kind, None)
        }
    };
    let program = detector.require(kind, command.as_deref()).await?;
    Ok(Agent {
        config,
        kind,
        program,
    })
}
