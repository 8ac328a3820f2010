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

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Duration;

use anstyle::Style;
use ralph_agent::supervise::{Flow, OutputSink, StopRequests};
use ralph_agent::{
    BackendKind, BackendProfile, CommandBuilder, CommandLine, RunDeadlines, SpawnSpec, StdinSource,
    probe::VERSION_PROBE_TIMEOUT, resolve_binary,
};
use ralph_core::config::{
    AgentConfig, HatConfig, HatsSource, LoadOptions, Overrides, PromptSource, ResolvedConfig,
    load_detailed,
};
use serde::Serialize;

use crate::cli::{DoctorArgs, FormatArg};
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::backends::{agent_chain, agent_label, can_run};
use crate::run::launch::{command_line, probe_target};
use crate::shell_words::shell_line;

/// Stands for the prompt in the command lines shown.
const PROMPT_PLACEHOLDER: &str = "<prompt>";
/// Most of a version command's output kept (its first line is shown).
const VERSION_OUTPUT_BYTES: usize = 4096;
/// SIGTERM-to-SIGKILL grace for a version command that timed out.
const PROBE_KILL_GRACE: Duration = Duration::from_millis(500);
/// Why a problem with a hat without triggers is only a warning.
const UNREACHABLE: &str =
    "the hat has no triggers, so it never runs and `ralph run` does not check it";
/// Width of the name column in the text report (the longest backend name, `opencode`).
const NAME_WIDTH: usize = 9;

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

/// What a version command showed.
#[derive(Clone, Debug)]
struct Probe {
    path: Option<PathBuf>,
    version: Option<String>,
    problem: Option<String>,
}

impl Probe {
    fn usable(&self) -> bool {
        self.path.is_some() && self.problem.is_none()
    }
}

/// Keeps the beginning of a version command's stdout.
struct Capture(Vec<u8>);

impl OutputSink for Capture {
    fn on_stdout(&mut self, bytes: &[u8]) -> Flow {
        let room = VERSION_OUTPUT_BYTES.saturating_sub(self.0.len());
        self.0.extend_from_slice(&bytes[..bytes.len().min(room)]);
        Flow::Continue
    }
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
    let mut probes: HashMap<String, Probe> = HashMap::new();
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
async fn agents(config: &ResolvedConfig, probes: &mut HashMap<String, Probe>) -> Vec<AgentReport> {
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
            Some(program) if kind == BackendKind::Custom => Probe {
                path: resolve_binary(program),
                version: None,
                problem: None,
            },
            Some(program) => probe_cached(probes, program, profile.version_args).await,
            None => Probe {
                path: None,
                version: None,
                problem: None,
            },
        };
        let problem = match (&probe.path, &probe.problem) {
            (None, _) => Some(format!(
                "`{}` is not installed: {}",
                program.unwrap_or("?"),
                profile.install_hint
            )),
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

/// The first usable backend in the configured priority, as `auto` picks it.
async fn auto_detect(
    config: &ResolvedConfig,
    probes: &mut HashMap<String, Probe>,
) -> Option<BackendKind> {
    for &kind in &config.backend_priority {
        let profile = BackendProfile::of(kind);
        let Some(binary) = profile.binary else {
            continue;
        };
        if probe_cached(probes, binary, profile.version_args)
            .await
            .usable()
        {
            return Some(kind);
        }
    }
    None
}

async fn probe_cached(
    probes: &mut HashMap<String, Probe>,
    program: &str,
    version_args: &[&str],
) -> Probe {
    if let Some(hit) = probes.get(program) {
        return hit.clone();
    }
    let probe = probe(program, version_args).await;
    probes.insert(program.to_owned(), probe.clone());
    probe
}

/// Finds `program` and runs its version command (stdin `/dev/null`, under a deadline).
async fn probe(program: &str, version_args: &[&str]) -> Probe {
    let Some(path) = resolve_binary(program) else {
        return Probe {
            path: None,
            version: None,
            problem: None,
        };
    };
    let spec = SpawnSpec::new(path.clone())
        .args(version_args.iter().copied())
        .stdin(StdinSource::Null);
    let deadlines = RunDeadlines {
        wall: Some(VERSION_PROBE_TIMEOUT),
        kill_grace: PROBE_KILL_GRACE,
        ..RunDeadlines::none()
    };
    let mut capture = Capture(Vec::new());
    let outcome =
        ralph_agent::supervise::run(spec, deadlines, &mut capture, StopRequests::never()).await;
    // pi prints its version on stderr.
    let first_line = |text: &str| {
        text.lines()
            .map(str::trim)
            .find(|l| !l.is_empty())
            .map(str::to_owned)
    };
    let version = first_line(&String::from_utf8_lossy(&capture.0))
        .or_else(|| first_line(&outcome.stderr_tail));
    let problem = (!outcome.termination.is_success()).then(|| {
        format!(
            "`{program} {}` did not succeed ({}); reinstall it",
            version_args.join(" "),
            outcome.termination.command_end(VERSION_PROBE_TIMEOUT, None)
        )
    });
    Probe {
        path: Some(path),
        version: if problem.is_none() { version } else { None },
        problem,
    }
}

/// A command line as shown, and whether the prompt goes on stdin.
fn shown(line: &CommandLine) -> (String, bool) {
    let on_stdin = matches!(line.stdin, StdinSource::Bytes(_) | StdinSource::Live(_));
    (shell_line(&line.program, &line.args), on_stdin)
}

fn print_text(report: &Report) -> Result<(), CliError> {
    let stdout = std::io::stdout();
    let color = anstream::AutoStream::choice(&stdout);
    let mut out = anstream::AutoStream::new(stdout.lock(), color);
    let ok = Style::new().fg_color(Some(anstyle::AnsiColor::Green.into()));
    let bad = Style::new().fg_color(Some(anstyle::AnsiColor::Red.into()));
    let dim = Style::new().dimmed();
    let bold = Style::new().bold();
    let mut text = String::new();
    let mut line = |style: Style, s: String| {
        text.push_str(&format!("{}{s}{}\n", style.render(), style.render_reset()));
    };
    line(bold, "Agents".to_owned());
    for b in &report.backends {
        match (&b.path, &b.problem) {
            (Some(path), None) => {
                let version = b.version.as_deref().unwrap_or("version unknown");
                line(
                    ok,
                    format!("  ✓ {:<NAME_WIDTH$} {version}  ({path})", b.name),
                );
                let stdin = if b.prompt_on_stdin {
                    "  (prompt on stdin)"
                } else {
                    ""
                };
                line(dim, format!("      {}{stdin}", b.command));
            }
            (Some(path), Some(problem)) => {
                line(
                    bad,
                    format!("  ✗ {:<NAME_WIDTH$} {problem} ({path})", b.name),
                );
            }
            (None, _) => line(
                dim,
                format!(
                    "  · {:<NAME_WIDTH$} not installed: {}",
                    b.name, b.install_hint
                ),
            ),
        }
    }
    line(Style::new(), String::new());
    let c = &report.config;
    let files = if c.files.is_empty() {
        "no config file: built-in defaults".to_owned()
    } else {
        c.files.join(", ")
    };
    line(bold, format!("Configuration ({files})"));
    for error in &c.errors {
        line(bad, format!("  ✗ {error}"));
    }
    for warning in &c.warnings {
        line(dim, format!("  ! {warning}"));
    }
    for agent in &c.agents {
        let who = agent_label(Some(&agent.hat), agent.fallback);
        let backend = agent.backend.unwrap_or("no agent");
        match (&agent.problem, &agent.command) {
            (None, Some(command)) => {
                let stdin = if agent.prompt_on_stdin {
                    "  (prompt on stdin)"
                } else {
                    ""
                };
                line(ok, format!("  ✓ {who}: {backend}"));
                line(dim, format!("      {command}{stdin}"));
            }
            // `ralph run` does not check a hat that never runs: not a reason to fail.
            (Some(problem), _) if !agent.needed => line(
                dim,
                format!("  ! {who}: {backend}: {problem} ({UNREACHABLE})"),
            ),
            (Some(problem), _) => line(bad, format!("  ✗ {who}: {backend}: {problem}")),
            (None, None) => line(bad, format!("  ✗ {who}: {backend}")),
        }
    }
    if let Some(specs) = &c.specs_dir {
        line(dim, format!("  specs: {specs}"));
    }
    if let Some(task) = &c.task {
        line(dim, format!("  task: {task}"));
    }
    if let Some(note) = &c.task_note {
        line(dim, format!("  ! {note}"));
    }
    line(Style::new(), String::new());
    if report.ok && c.task_note.is_some() {
        line(ok, "✓ ready to run, given a task (`-p` or `-P`)".to_owned());
    } else if report.ok {
        line(ok, "✓ ready to run".to_owned());
    } else {
        line(bad, "✗ not ready: fix what is marked ✗ above".to_owned());
    }
    out.write_all(text.as_bytes()).map_err(CliError::write)?;
    out.flush().map_err(CliError::write)
}
