//! The agents of a run: every backend the configuration names (the global one and each
//! hat's), checked once before the first iteration, so a missing binary is reported
//! before anything runs and each iteration starts exactly the program that was checked.

use std::collections::HashMap;
use std::path::PathBuf;

use ralph_agent::{BackendKind, DetectError, Detector};
use ralph_core::config::{AgentConfig, ResolvedConfig};
use ralph_core::launch::probe_target;
use ralph_core::machine::DEFAULT_HAT;

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
    by_hat: HashMap<String, Agent>,
}

impl Agents {
    /// The agent for `hat` (a hat id or the default hat).
    pub(crate) fn get(&self, hat: &str) -> Option<&Agent> {
        self.by_hat
            .get(hat)
            .or_else(|| self.by_hat.get(DEFAULT_HAT))
    }

    /// The default hat's agent.
    pub(crate) fn default_agent(&self) -> Option<&Agent> {
        self.by_hat.get(DEFAULT_HAT)
    }
}

/// Finds every agent `config` needs; `auto` is detected once, in priority order.
pub(crate) async fn resolve(config: &ResolvedConfig) -> Result<Agents, DetectError> {
    let mut detector = Detector::new().with_priority(config.backend_priority.clone());
    let mut detected: Option<BackendKind> = None;
    let mut entries = vec![(DEFAULT_HAT.to_owned(), config.agent.clone())];
    entries.extend(
        config
            .hats
            .iter()
            .map(|h| (h.id.clone(), config.agent_for(h))),
    );
    let mut by_hat = HashMap::new();
    for (hat, agent) in entries {
        let (kind, command) = match probe_target(&agent) {
            Some((kind, command)) => (kind, command.map(str::to_owned)),
            None => {
                let kind = match detected {
                    Some(kind) => kind,
                    None => *detected.insert(detector.detect().await?),
                };
                (kind, None)
            }
        };
        let program = detector.require(kind, command.as_deref()).await?;
        by_hat.insert(
            hat,
            Agent {
                config: agent,
                kind,
                program,
            },
        );
    }
    Ok(Agents { by_hat })
}
