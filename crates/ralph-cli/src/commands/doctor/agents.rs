//! The agents a run of the configuration would use, as `ralph doctor` reports them: the
//! default hat's and each hat's, with their fallbacks, each resolved and probed as
//! `ralph run` checks it before it starts.

use ralph_agent::runnable::why_unrunnable;
use ralph_agent::{BackendKind, BackendProfile, CommandLine, StdinSource, resolve_binary};
use ralph_core::config::{AgentConfig, HatConfig, ResolvedConfig};

use super::probe::{Probe, Probes, auto_detect, probe_cached};
use super::{AgentReport, PROMPT_PLACEHOLDER};
use crate::run::backends::{agent_chain, can_run};
use crate::run::launch::{command_line, probe_target};
use crate::shell_words::shell_line;

/// One agent a run may use: whose it is, which of its backends, and whether a run checks it.
struct Wanted {
    hat: String,
    fallback: Option<u32>,
    needed: bool,
    agent: AgentConfig,
}

/// Every agent `ralph run` checks before it starts (`run/backends.rs`), in the same order:
/// the default hat's, then each hat's, each followed by its `fallback` backends when it
/// fails over on a rate limit. A hat without triggers is listed too, as not needed.
fn wanted(config: &ResolvedConfig) -> Vec<Wanted> {
    let mut wanted = Vec::new();
    chain(&mut wanted, config, None, true);
    for hat in &config.hats {
        chain(&mut wanted, config, Some(hat), can_run(hat));
    }
    wanted
}

/// The primary agent of `hat` (the default hat for `None`) and its fallbacks, as
/// `agent_chain` gives them to a run.
fn chain(wanted: &mut Vec<Wanted>, config: &ResolvedConfig, hat: Option<&HatConfig>, needed: bool) {
    let id = hat.map_or(ralph_core::machine::DEFAULT_HAT, |h| h.id.as_str());
    for (n, agent) in (0..).zip(agent_chain(config, hat)) {
        wanted.push(Wanted {
            hat: id.to_owned(),
            fallback: (n > 0).then_some(n),
            needed,
            agent,
        });
    }
}

/// Each agent a run may use, as the run would resolve it.
pub(super) async fn agents(config: &ResolvedConfig, probes: &mut Probes) -> Vec<AgentReport> {
    let mut reports = Vec::new();
    for Wanted {
        hat,
        fallback,
        needed,
        agent,
    } in wanted(config)
    {
        let (kind, command) = match probe_target(&agent) {
            Some((kind, command)) => (Some(kind), command.map(str::to_owned)),
            None => (auto_detect(config, probes).await, None),
        };
        let Some(kind) = kind else {
            let tried: Vec<&str> = config.backend_priority.iter().map(|k| k.name()).collect();
            reports.push(AgentReport {
                hat,
                fallback,
                needed,
                backend: None,
                command: None,
                prompt_on_stdin: false,
                problem: Some(format!(
                    "`auto` found no agent installed (tried: {}); install one (see the list above)",
                    tried.join(", ")
                )),
            });
            continue;
        };
        let profile = BackendProfile::of(kind);
        let program = command.as_deref().or(profile.binary);
        let probe = match program {
            Some(program) if kind == BackendKind::Custom => {
                let path = resolve_binary(program);
                // As `ralph run` reads it before its first iteration.
                let problem = path
                    .as_deref()
                    .and_then(|found| why_unrunnable(program, Some(found), None))
                    .map(|why| format!("`{program}` cannot run: {why}"));
                Probe {
                    path,
                    version: None,
                    problem,
                }
            }
            Some(program) => probe_cached(probes, program, profile.version_args).await,
            None => Probe {
                path: None,
                version: None,
                problem: None,
            },
        };
        let problem = match (&probe.path, &probe.problem) {
            (None, _) => Some(
                match program.and_then(|program| why_unrunnable(program, None, None)) {
                    Some(why) => why,
                    None => format!(
                        "`{}` is not installed: {}",
                        program.unwrap_or("?"),
                        profile.install_hint
                    ),
                },
            ),
            (Some(_), Some(problem)) => Some(problem.clone()),
            (Some(_), None) => None,
        };
        let line = command_line(&agent, kind, probe.path.as_deref(), PROMPT_PLACEHOLDER);
        let (command, prompt_on_stdin, problem) = match &line {
            Ok(line) => {
                let (command, stdin) = shown(line);
                (Some(command), stdin, problem)
            }
            Err(e) => (None, false, Some(e.to_string())),
        };
        reports.push(AgentReport {
            hat,
            fallback,
            needed,
            backend: Some(kind.name()),
            command,
            prompt_on_stdin,
            problem,
        });
    }
    reports
}

/// A command line as shown, and whether the prompt goes on stdin.
pub(super) fn shown(line: &CommandLine) -> (String, bool) {
    let on_stdin = matches!(line.stdin, StdinSource::Bytes(_) | StdinSource::Live(_));
    (shell_line(&line.program, &line.args), on_stdin)
}
