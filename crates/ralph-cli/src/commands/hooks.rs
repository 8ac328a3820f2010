//! `ralph hooks validate` checks the `hooks:` section and that each hook's command can
//! start; `ralph hooks resume` lets a loop that a suspending hook holds go on.
//!
//! Validation resolves a command the way the runner starts it: a list's program is
//! looked up on `PATH`, or, when it contains a `/`, taken relative to the hook's `cwd`
//! (the workspace by default) and must be an executable file; a string needs only `sh`.

use std::io::Write;
use std::path::Path;

use ralph_agent::resolve_binary;
use ralph_agent::runnable::has_execute_bit;
use ralph_core::config::Overrides;
use ralph_core::hooks::resume::ResumeSignal;
use ralph_core::hooks::{HookPhase, HookSpec, HooksConfig, OnError};
use ralph_core::store::RalphDir;
use ralph_types::{Invocation, SHELL};
use serde::Serialize;

use crate::cli::{FormatArg, HooksArgs, HooksCommand, HooksValidateArgs};
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::output::JsonLines;

pub(crate) fn run(args: &HooksArgs) -> Result<CommandOutcome, CliError> {
    match &args.command {
        HooksCommand::Validate(args) => validate(args),
        HooksCommand::Resume => resume(),
    }
}

/// One hook's check: what `--format json` prints per line (docs/cli.md).
#[derive(Debug, Serialize)]
struct Checked {
    phase: &'static str,
    hook: String,
    command: String,
    /// Whether the phase is reached by ralph and the section is enabled.
    runs: bool,
    /// What stops the command from starting; `null` when it can.
    problem: Option<String>,
}

fn validate(args: &HooksValidateArgs) -> Result<CommandOutcome, CliError> {
    let workspace = super::working_directory()?;
    // A broken section is a config error with file:line:column (exit 1).
    let config = super::load_config(&workspace, args.config.clone(), Overrides::default())?;
    let hooks = &config.hooks;
    let checked: Vec<Checked> = hooks
        .all()
        .map(|(phase, hook)| Checked {
            phase: phase.name(),
            hook: hook.name.clone(),
            command: hook.command.to_string(),
            runs: hooks.enabled && phase.fires(),
            problem: problem(hook, &workspace),
        })
        .collect();
    let failed = checked.iter().any(|c| c.problem.is_some());
    match args.format {
        FormatArg::Json => {
            let mut out = JsonLines::stdout();
            for c in &checked {
                out.write(c)?;
            }
            out.flush()?;
        }
        FormatArg::Text => {
            let mut text = String::new();
            if checked.is_empty() {
                text.push_str("no hooks configured\n");
            } else if !hooks.enabled {
                text.push_str("hooks.enabled is not true: none of these runs\n");
            }
            for c in &checked {
                let mark = if c.problem.is_some() { "✗" } else { "✓" };
                let later = if c.runs || !hooks.enabled {
                    ""
                } else {
                    " (never runs: ralph does not reach this phase)"
                };
                text.push_str(&format!(
                    "{mark} {} {}: {}{later}\n",
                    c.phase, c.hook, c.command
                ));
                if let Some(problem) = &c.problem {
                    text.push_str(&format!("  {problem}\n"));
                }
            }
            let mut stdout = std::io::stdout().lock();
            stdout
                .write_all(text.as_bytes())
                .and_then(|()| stdout.flush())
                .map_err(CliError::write)?;
        }
    }
    Ok(if failed {
        CommandOutcome::Failed
    } else {
        CommandOutcome::Success
    })
}

/// What `ralph doctor` says of the hooks a run would start (the section enabled, a phase
/// ralph reaches): each whose command cannot start, as `validate` finds it. An error when
/// its failure stops or holds the loop (`on_error: block` or `suspend`), so the run is
/// not ready; a warning when it only warns, or when what is missing is a file an earlier
/// hook of the run may create.
#[derive(Debug, Default)]
pub(crate) struct StartProblems {
    pub(crate) errors: Vec<String>,
    pub(crate) warnings: Vec<String>,
}

pub(crate) fn start_problems(hooks: &HooksConfig, workspace: &Path) -> StartProblems {
    let mut found = StartProblems::default();
    // The hook that runs last before each one, in the order a run meets them.
    let mut before: Option<(HookPhase, &HookSpec)> = None;
    let in_run_order = HookPhase::ALL
        .into_iter()
        .filter(|phase| phase.fires())
        .flat_map(|phase| hooks.at(phase).map(move |hook| (phase, hook)));
    for (phase, hook) in in_run_order {
        let earlier = before.replace((phase, hook));
        let Some(problem) = start_problem(hook, workspace) else {
            continue;
        };
        let what = format!(
            "hook `{}` ({}, on_error: {})",
            hook.name,
            phase.name(),
            hook.on_error.name()
        );
        // A file missing now may be one an earlier hook writes (a setup hook that
        // generates the checks): whether it will is that hook's secret, so this is said,
        // not failed. Only a hook counts: an agent writing a hook's script is rare, and a
        // typo in a late hook's path should still fail here.
        if let (true, Some((earlier_phase, earlier))) = (problem.missing, earlier) {
            found.warnings.push(format!(
                "{what} cannot start now: {} (hook `{}` ({}) runs before it and may create \
                 it; if nothing has by then, this hook fails to start; `ralph hooks validate` \
                 checks every hook as things are now)",
                problem.text,
                earlier.name,
                earlier_phase.name()
            ));
            continue;
        }
        let line = format!(
            "{what} cannot start: {} (`ralph hooks validate` checks every hook)",
            problem.text
        );
        match hook.on_error {
            OnError::Block | OnError::Suspend => found.errors.push(line),
            OnError::Warn => found.warnings.push(line),
        }
    }
    found
}

/// Why a hook could not start now.
struct StartProblem {
    text: String,
    /// Its program or `cwd` is a path that does not exist (yet).
    missing: bool,
}

/// Why `hook` could not start, if it could not.
fn problem(hook: &HookSpec, workspace: &Path) -> Option<String> {
    start_problem(hook, workspace).map(|p| p.text)
}

/// [`problem`], saying whether it is a path that is not there.
fn start_problem(hook: &HookSpec, workspace: &Path) -> Option<StartProblem> {
    let other = |text: String| StartProblem {
        text,
        missing: false,
    };
    let cwd = hook
        .cwd
        .as_ref()
        .map_or_else(|| workspace.to_path_buf(), |c| workspace.join(c));
    if !cwd.is_dir() {
        return Some(StartProblem {
            text: format!("its cwd `{}` is not a directory", cwd.display()),
            missing: !cwd.exists(),
        });
    }
    let program = match &hook.command {
        Invocation::Shell(_) => SHELL,
        Invocation::Argv(argv) => argv.first().map_or("", String::as_str),
    };
    if program.contains('/') {
        let path = cwd.join(program);
        return match std::fs::metadata(&path) {
            Err(e) => Some(StartProblem {
                text: format!("`{}`: {e}", path.display()),
                missing: e.kind() == std::io::ErrorKind::NotFound,
            }),
            Ok(meta) if !meta.is_file() => {
                Some(other(format!("`{}` is not a file", path.display())))
            }
            Ok(meta) if !has_execute_bit(&meta) => Some(other(format!(
                "`{}` is not executable (chmod +x it)",
                path.display()
            ))),
            Ok(_) => None,
        };
    }
    resolve_binary(program)
        .is_none()
        .then(|| other(format!("`{program}` was not found on PATH")))
}

fn resume() -> Result<CommandOutcome, CliError> {
    let workspace = super::working_directory()?;
    let ralph_dir = RalphDir::in_workspace(&workspace);
    let signal = ResumeSignal::new(ralph_dir.path());
    let marker = ralph_dir.path().to_path_buf();
    // A marker left by a loop that died while it waited suspends nothing.
    let running = ralph_dir
        .loop_running()
        .map_err(|e| CliError::io("check for a running loop in", &marker, e))?;
    let what = if running {
        signal
            .suspended()
            .map_err(|e| CliError::io("read the suspended-hook marker in", &marker, e))?
    } else {
        None
    };
    let Some(what) = what else {
        return Err(CliError::NothingSuspended(workspace));
    };
    signal
        .request()
        .map_err(|e| CliError::io("write the resume request in", marker, e))?;
    let shown = describe(&what);
    let mut stdout = std::io::stdout().lock();
    writeln!(stdout, "resuming the loop held by {shown}").map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// `pre.loop.start env-guard` as `hook `env-guard` (pre.loop.start)`.
fn describe(marker: &str) -> String {
    match marker.split_once(' ') {
        Some((phase, hook)) if HookPhase::parse(phase).is_some() => {
            format!("hook `{hook}` ({phase})")
        }
        _ => format!("`{marker}`"),
    }
}
