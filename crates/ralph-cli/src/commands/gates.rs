//! `ralph gates`: run the configured gates by hand, with the view a run gives them.
//!
//! Unlike a run, every selected gate runs even after one fails (the point is to see
//! them all), and no event is withheld: there is no loop. No workspace lock is taken
//! either, so a gate can be tried while a loop runs (its logs go to `.ralph/gates/`,
//! not to the run's directory).

use ralph_agent::{StopController, StopLevel};
use ralph_core::config::{GateConfig, Overrides};
use ralph_core::machine::GateEnd;
use ralph_core::store::RalphDir;

use crate::cli::{GatesArgs, OutputArg};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::gates::GateRun;
use crate::run::signals;
use crate::view::json::JsonObserver;
use crate::view::observer::Observer;
use crate::view::term::Detail;
use crate::view::text::{TextObserver, TextOptions};

pub(crate) fn run(args: &GatesArgs) -> Result<CommandOutcome, CliError> {
    let workspace = super::enclosing_workspace()?;
    let config = super::load_config(&workspace, args.config.clone(), Overrides::default())?;
    let selected = select(&config.gates, &args.names)?;
    let ralph_dir = RalphDir::in_workspace(&workspace);
    // The logs go under `.ralph/gates/`, maybe in a workspace no run has set up yet:
    // kept out of an agent's `git add -A` as a run's files are.
    let ignored = ralph_core::fsafe::create_dir(ralph_dir.path())
        .map_err(|e| e.to_string())
        .and_then(|()| ralph_dir.ensure_gitignore().map_err(|e| e.to_string()));
    if let Err(e) = ignored {
        diagnostic(format_args!("warning: {e}"));
    }
    let runtime = super::runtime()?;
    runtime.block_on(async {
        let (stop, _requests) = StopController::new();
        signals::install(stop.clone()).map_err(CliError::Runtime)?;
        let mut observer: Box<dyn Observer> = match args.output {
            OutputArg::Text => Box::new(
                TextObserver::stdout(TextOptions::for_stdout(
                    Detail::Normal,
                    args.color.for_stdout(),
                ))
                .pausing(&stop),
            ),
            OutputArg::Json => Box::new(JsonObserver::stdout()),
        };
        // As a run there gives them: a gate may check which worktree loop it is in.
        let env: Vec<_> = crate::run::worktree_env(&workspace).into_iter().collect();
        let gates = GateRun {
            runtime: None,
            workspace: &workspace,
            iteration: None,
            env: &env,
            stop: &stop,
            steering: None,
        };
        let mut all_passed = true;
        for gate in selected {
            if gates.stopping() {
                break;
            }
            let log = ralph_dir.gate_log(&gate.name);
            let result = gates.run(gate, None, log, observer.as_mut()).await;
            all_passed &= result.passed();
            if result.end == GateEnd::Interrupted {
                break;
            }
        }
        Ok(if stop.current() > StopLevel::None {
            CommandOutcome::Interrupted
        } else if all_passed {
            CommandOutcome::Success
        } else {
            CommandOutcome::Failed
        })
    })
}

/// The gates `names` asks for, in the order ralph.yml lists them (all when none is
/// named).
fn select<'a>(gates: &'a [GateConfig], names: &[String]) -> Result<Vec<&'a GateConfig>, CliError> {
    if gates.is_empty() {
        return Err(CliError::NoGates);
    }
    if let Some(name) = names.iter().find(|n| !gates.iter().any(|g| g.name == **n)) {
        return Err(CliError::UnknownGate {
            name: name.clone(),
            known: gates.iter().map(|g| g.name.clone()).collect(),
        });
    }
    Ok(gates
        .iter()
        .filter(|g| names.is_empty() || names.contains(&g.name))
        .collect())
}
