//! The agents of a run: every backend the configuration names (the global one and each
//! hat's), checked once before the first iteration, so a missing binary is reported
//! before anything runs and each iteration starts exactly the program that was checked.
//! Successful version probes are remembered in the user's cache directory
//! (`ralph_agent::probe_cache`), so a second run starts its agent without waiting for
//! `--version`; `ralph doctor` still probes for real. A hat whose `on_rate_limit` is
//! `failover` has its `fallback` backends checked as well, after its primary.

use std::collections::HashMap;
use std::path::PathBuf;

use ralph_agent::supervise::StopRequests;
use ralph_agent::{BackendKind, BuildError, DetectError, Detector, InteractiveCommand, ProbeCache};
use ralph_core::config::{AgentConfig, HatConfig, RateLimitPolicy, ResolvedConfig};

use crate::diagnostic::diagnostic;
use crate::error::CliError;

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

/// The agents of each hat, and of the default hat: the primary first, then its
/// `fallback` backends (only with `on_rate_limit: failover`), in order.
#[derive(Clone, Debug)]
pub(crate) struct Agents {
    default: Vec<Agent>,
    by_hat: HashMap<String, Vec<Agent>>,
}

impl Agents {
    /// The agent for `hat` (its own, or the default hat's:
    /// `ralph_core::machine::DEFAULT_HAT` included) on backend `fallback` (0 the primary, `n` the `n`th of its
    /// `fallback`); the primary when it has no such backend (the machine only picks
    /// backends the config names, and they were all checked).
    pub(crate) fn on(&self, hat: &str, fallback: u32) -> &Agent {
        let chain = self.by_hat.get(hat).unwrap_or(&self.default);
        usize::try_from(fallback)
            .ok()
            .and_then(|n| chain.get(n))
            .unwrap_or(&chain[0])
    }

    /// The default hat's agent.
    pub(crate) fn default_agent(&self) -> &Agent {
        &self.default[0]
    }

    /// One line per backend that was asked to take steering mid-turn (`steering: true`)
    /// but takes it only between iterations, each backend once.
    pub(crate) fn steering_notes(&self) -> Vec<String> {
        let mut notes: Vec<String> = Vec::new();
        // Fallbacks included: a steered hat that fails over to Codex takes guidance
        // between iterations there.
        let mut by_hat: Vec<&Agent> = self.by_hat.values().flatten().collect();
        by_hat.sort_by_key(|a| a.kind.name());
        for agent in self.default.iter().chain(by_hat) {
            if let Some(note) = steering_between_iterations(&agent.config, agent.kind)
                && !notes.contains(&note)
            {
                notes.push(note);
            }
        }
        notes
    }
}

/// Finds every agent `config` needs; `auto` is detected once, in priority order. A
/// version command still running when `stop` asks is stopped, and its program taken
/// unchecked (the loop then ends before it starts an agent).
pub(crate) async fn resolve(
    config: &ResolvedConfig,
    stop: StopRequests,
) -> Result<Agents, CliError> {
    let mut detector = detector(config).with_stop(stop);
    let mut detected: Option<BackendKind> = None;
    let default = chain(&mut detector, &mut detected, config, None).await?;
    let mut by_hat = HashMap::new();
    // A hat that can never be routed an event never runs: checking (and so probing)
    // its backend would only slow the start, or fail a run that does not need it.
    for hat in config.hats.iter().filter(|hat| can_run(hat)) {
        let agents = chain(&mut detector, &mut detected, config, Some(hat)).await?;
        by_hat.insert(hat.id.clone(), agents);
    }
    Ok(Agents { default, by_hat })
}

/// The found agents of `hat`'s [`agent_chain`]. One that cannot run is named by its hat
/// (and which fallback it is), as `ralph doctor` names it: with hats, "`claude` was not
/// found" alone does not say which hat's `backend:` to change. The default hat's own
/// agent is the run's, and needs no name.
async fn chain(
    detector: &mut Detector,
    detected: &mut Option<BackendKind>,
    config: &ResolvedConfig,
    hat: Option<&HatConfig>,
) -> Result<Vec<Agent>, CliError> {
    let mut agents = Vec::new();
    for (n, agent) in (0..).zip(agent_chain(config, hat)) {
        let found = find(detector, detected, agent).await;
        agents.push(found.map_err(|source| {
            let fallback = (n > 0).then_some(n);
            match (hat, fallback) {
                (None, None) => CliError::from(source),
                _ => CliError::HatAgent {
                    who: agent_label(hat.map(|h| h.id.as_str()), fallback),
                    source: Box::new(source),
                },
            }
        })?);
    }
    Ok(agents)
}

/// How a hat's agent is named to the user: `hat tester`, `hat tester, fallback 1`,
/// `default hat` (`hat` `None`), in `ralph run`'s errors and `ralph doctor`'s report alike.
pub(crate) fn agent_label(hat: Option<&str>, fallback: Option<u32>) -> String {
    let mut who = match hat {
        None => "default hat".to_owned(),
        Some(id) if id == ralph_core::machine::DEFAULT_HAT => "default hat".to_owned(),
        Some(id) => format!("hat {id}"),
    };
    if let Some(n) = fallback {
        who.push_str(&format!(", fallback {n}"));
    }
    who
}

/// The agents of `hat` (the default hat for `None`) a run checks: its primary, then, with
/// `failover`, each of its `fallback` backends in order (`ralph doctor` lists the same).
pub(crate) fn agent_chain(config: &ResolvedConfig, hat: Option<&HatConfig>) -> Vec<AgentConfig> {
    let primary = hat.map_or_else(|| config.agent.clone(), |h| config.agent_for(h));
    let mut agents = vec![primary];
    if config.rate_limit_policy(hat) == RateLimitPolicy::Failover {
        agents.extend(
            (config.fallback_for(hat).iter()).map(|fallback| config.fallback_agent(hat, fallback)),
        );
    }
    agents
}

/// Whether the machine can ever pick `hat`: events go only to a hat whose trigger takes
/// them (and those nobody's trigger takes to the default hat), so a hat without triggers
/// never runs.
pub(crate) fn can_run(hat: &HatConfig) -> bool {
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
                None => {
                    let found = detector.detect().await;
                    for broken in detector.passed_over() {
                        diagnostic(format_args!(
                            "warning: auto-detection passed over: {broken}"
                        ));
                    }
                    *detected.insert(found?)
                }
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
