//! `ralph doctor [--format json]`: is this machine and this configuration ready to run?
//!
//! Every backend ralph knows: installed or not (on `PATH` and answering its version
//! command, as `ralph run` checks it), its version, and the exact command line ralph
//! runs for it. Then the configuration: valid or each error, and for the default hat and
//! each hat the agent and command line a run would use, with the fallbacks it fails over
//! to. Failing (exit 1) when the configuration is broken or an agent it needs is missing,
//! exactly the agents `ralph run` checks at its start: a backend nobody asked for being
//! absent is not a problem, and a hat without triggers (which never runs) only warns.
//! Also failing when a hook that blocks or suspends on failure cannot start (as `ralph
//! hooks validate` checks it), and warning of a missing skills directory (as `ralph run`
//! does). A run with no task of its own is only noted: `-p` may give it one.
//!
//! Here the report and the verdict; `probe` asks the programs their versions, `agents`
//! resolves the agents a run would use, `text` writes the report for people.

mod agents;
mod probe;
mod text;

use std::path::{Path, PathBuf};

use ralph_agent::{BackendKind, BackendProfile, CommandBuilder};
use ralph_core::config::{
    HatsSource, LoadOptions, Overrides, PromptSource, ResolvedConfig, load_detailed,
};
use serde::Serialize;

use crate::cli::{DoctorArgs, FormatArg};
use crate::error::CliError;
use crate::exit::CommandOutcome;
use agents::{agents, shown};
use probe::{Probes, probe_cached};
use text::print_text;

/// Stands for the prompt in the command lines shown.
pub(super) const PROMPT_PLACEHOLDER: &str = "<prompt>";

/// What `--format json` prints: one object, these keys (docs/cli.md).
#[derive(Debug, Serialize)]
struct Report {
    /// The configuration is valid, every agent it needs is installed, and every hook that
    /// blocks or suspends on failure can start.
    ok: bool,
    backends: Vec<BackendReport>,
    config: ConfigReport,
}

#[derive(Debug, Serialize)]
struct BackendReport {
    name: &'static str,
    binary: &'static str,
    installed: bool,
    path: Option<String>,
    /// The first line its version command printed.
    version: Option<String>,
    /// Why an installed binary is not usable (its version command failed).
    problem: Option<String>,
    /// The command line of one iteration, the prompt shown as `<prompt>`.
    command: String,
    /// Whether the prompt goes to the agent's stdin (else it is in `command`).
    prompt_on_stdin: bool,
    install_hint: &'static str,
}

#[derive(Debug, Serialize)]
struct ConfigReport {
    ok: bool,
    /// The config files read, lowest layer first.
    files: Vec<String>,
    errors: Vec<String>,
    warnings: Vec<String>,
    /// The default hat's agent, then each hat's; each followed by its `fallback`
    /// backends when it fails over on a rate limit.
    agents: Vec<AgentReport>,
    specs_dir: Option<String>,
    /// Where a run's task comes from (`event_loop.prompt`, or the prompt file's path);
    /// `None` when there is none, and a run needs `-p` or `-P`.
    task: Option<String>,
    /// What to do about a missing task: a note, not a failure (`-p` may be given).
    task_note: Option<String>,
}

#[derive(Debug, Serialize)]
struct AgentReport {
    hat: String,
    /// Which of the hat's `fallback` backends this is (1 the first); `None` for its own.
    fallback: Option<u32>,
    /// Whether `ralph run` checks this agent before it starts: not for a hat without
    /// triggers, which never runs. A problem with an agent no run needs is a warning.
    needed: bool,
    backend: Option<&'static str>,
    command: Option<String>,
    prompt_on_stdin: bool,
    /// Why this agent cannot run.
    problem: Option<String>,
}

pub(crate) fn run(args: &DoctorArgs) -> Result<CommandOutcome, CliError> {
    let cwd = super::working_directory()?;
    let runtime = super::runtime()?;
    let report = runtime.block_on(examine(&cwd, args.config.clone(), args.hats.clone()));
    match args.format {
        FormatArg::Json => {
            let mut out = crate::output::JsonLines::stdout();
            out.write(&report)?;
            out.flush()?;
        }
        FormatArg::Text => print_text(&report)?,
    }
    Ok(if report.ok {
        CommandOutcome::Success
    } else {
        CommandOutcome::Failed
    })
}

async fn examine(cwd: &Path, config_file: Option<PathBuf>, hats: Option<HatsSource>) -> Report {
    let mut probes = Probes::new();
    let mut backends = Vec::new();
    for kind in BackendKind::ALL {
        let profile = BackendProfile::of(kind);
        let Some(binary) = profile.binary else {
            continue; // custom: only the config can describe it
        };
        let probe = probe_cached(&mut probes, binary, profile.version_args).await;
        let line = CommandBuilder::new(kind)
            .command_override(probe.path.as_deref().and_then(Path::to_str))
            .headless(PROMPT_PLACEHOLDER);
        let (command, prompt_on_stdin) = match &line {
            Ok(line) => shown(line),
            Err(e) => (e.to_string(), false),
        };
        backends.push(BackendReport {
            name: kind.name(),
            binary,
            installed: probe.path.is_some(),
            path: probe.path.as_ref().map(|p| p.display().to_string()),
            version: probe.version.clone(),
            problem: probe.problem.clone(),
            command,
            prompt_on_stdin,
            install_hint: profile.install_hint,
        });
    }

    // Said as `ralph run` says it: the project's ralph.yml that this directory does not read.
    let hints = super::project_hints::project_file_hints(cwd, config_file.as_deref());
    let prompt_file = super::default_prompt_file(config_file.as_deref());
    let loaded = load_detailed(
        &LoadOptions::from_env(cwd.to_path_buf(), config_file, Overrides::default())
            .with_hats(hats),
    );
    let mut config = match loaded {
        // What the load found before it failed: the files it read (a file that is not
        // there was not read) and its warnings, beside the errors.
        Err(failure) => ConfigReport {
            ok: false,
            files: failure
                .files
                .iter()
                .map(|p| p.display().to_string())
                .collect(),
            errors: failure.errors.0.iter().map(ToString::to_string).collect(),
            warnings: failure.warnings.iter().map(ToString::to_string).collect(),
            agents: Vec::new(),
            specs_dir: None,
            task: None,
            task_note: None,
        },
        Ok(resolved) => {
            let agents = agents(&resolved.config, &mut probes).await;
            // What `ralph run` would only find out at its start, or when the hook's
            // phase comes: the same checks as `ralph hooks validate` and run's skills
            // warning.
            let hooks = super::hooks::start_problems(&resolved.config.hooks, cwd);
            let mut warnings: Vec<String> =
                resolved.warnings.iter().map(ToString::to_string).collect();
            warnings.extend(hooks.warnings);
            warnings.extend(ralph_core::skills::discover(cwd, &resolved.config.skills).problems);
            let (task, task_note) = task(&resolved.config, &prompt_file);
            ConfigReport {
                ok: hooks.errors.is_empty()
                    && agents.iter().all(|a| a.problem.is_none() || !a.needed),
                files: resolved
                    .config
                    .sources
                    .iter()
                    .map(|p| p.display().to_string())
                    .collect(),
                errors: hooks.errors,
                warnings,
                agents,
                specs_dir: Some(resolved.config.core.specs_dir.display().to_string()),
                task,
                task_note,
            }
        }
    };
    config.warnings.splice(0..0, hints);
    Report {
        ok: config.ok,
        backends,
        config,
    }
}

/// Where a run of `config` takes its task from, or why it has none (as `ralph run` would
/// refuse it): `prompt_file` is where it looks when nothing else names one.
fn task(config: &ResolvedConfig, prompt_file: &Path) -> (Option<String>, Option<String>) {
    let needs = "a run needs `-p TEXT` or `-P FILE`";
    match &config.event_loop.prompt {
        Some(prompt) if prompt.text.trim().is_empty() => {
            let shown = match &prompt.source {
                PromptSource::File(path) => format!("`{}`", path.display()),
                PromptSource::Inline => "`event_loop.prompt`".to_owned(),
            };
            let note = format!("{shown} holds no task: {needs}, or the task written in it");
            (None, Some(note))
        }
        Some(prompt) => match &prompt.source {
            PromptSource::File(path) => (Some(path.display().to_string()), None),
            PromptSource::Inline => (Some("event_loop.prompt".to_owned()), None),
        },
        None => (
            None,
            Some(format!(
                "no task: {needs}, or the task written in {} (or `event_loop.prompt` in the \
                 config)",
                prompt_file.display()
            )),
        ),
    }
}
