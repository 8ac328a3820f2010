//! `ralph run`: load the configuration, take the workspace lock, check the agents, set
//! up (or resume) the run's files, and drive the loop (see [`crate::run`]).
//!
//! Order matters for "nothing runs on a bad setup": the configuration is checked before
//! anything is written, and every agent binary before the run directory is created.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::time::SystemTime;

use ralph_agent::StopController;
use ralph_core::config::{HatsSource, Overrides, Prompt, PromptSource, ResolvedConfig};
use ralph_core::machine::{Machine, Rules};
use ralph_core::run_event::RunEvent;
use ralph_core::store::{CommandLineLimits, Durability, RalphDir};

use super::worktree;
use crate::cli::{OutputArg, RunArgs};
use crate::diagnostic::diagnostic;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::run::leftovers::{self, AgentRecorder};
use crate::run::steer::Steering;
use crate::run::{Killed, Run, backends, drive, signals};
use crate::view::json::JsonObserver;
use crate::view::observer::Observer;
use crate::view::output_cap::OutputCap;
use crate::view::recorder::Recorder;
use crate::view::term::Detail;
use crate::view::text::{TextObserver, TextOptions};
use crate::view::tui::observer::{NoObserver, TuiObserver};
use crate::view::tui::terminal::color_allowed;

pub(crate) fn run(args: &RunArgs) -> Result<CommandOutcome, CliError> {
    let result = match &args.worktree {
        Some(name) => {
            // Handled before the worktree is made: `git worktree add` runs the
            // repository's hooks and filters, which a signal's default action would
            // leave running (and the worktree half made).
            let (stop, _requests) = StopController::new();
            signals::install(stop.clone())
                .map_err(CliError::Runtime)
                .and_then(|()| in_new_worktree(args, name, stop.clone()))
                .and_then(|(args, seen)| start_and_drive(&args, Some(seen), Some(stop)))
        }
        None => start_and_drive(args, None, None),
    };
    // `--output json` promises a reader JSON lines that say how the run ended: an error
    // (the config, the lock, a file) gets its line too, not only a message on stderr.
    if let (Err(err), OutputArg::Json) = (&result, args.output)
        && !matches!(err, CliError::BrokenPipe)
    {
        let message = err.to_string();
        JsonObserver::stdout().observe(&RunEvent::Error {
            message: &message,
            exit_code: crate::exit::number(err.outcome()),
        });
    }
    result
}

/// `--worktree`: makes the worktree and moves into it, so that the loop runs there as in
/// any workspace (its own `.ralph/`, lock and run). The files the command line names
/// are made absolute first: they were given from the main checkout. Also returns the
/// worktree as seen from where the command was typed, to show the run's paths from there.
fn in_new_worktree(
    args: &RunArgs,
    name: &str,
    stop: StopController,
) -> Result<(RunArgs, PathBuf), CliError> {
    let cwd = super::working_directory()?;
    let task_given = args.prompt.is_some() || args.prompt_file.is_some();
    worktree::from_subdir::refuse_unread_files(&cwd, args.config.is_some(), task_given)?;
    let mut args = args.clone();
    args.prompt_file = args.prompt_file.map(|p| cwd.join(p));
    args.config = args.config.map(|p| cwd.join(p));
    if let Some(HatsSource::File(path)) = &mut args.hats {
        *path = cwd.join(&*path);
    }
    let request = worktree::create::Request {
        name: Some(name).filter(|n| !n.is_empty()),
        base: args.base.as_deref(),
        hint: worktree::create::hint(args.prompt_file.as_deref(), args.prompt.as_deref()),
        stop,
    };
    let created = worktree::create::create(&cwd, &request)?;
    std::env::set_current_dir(&created.path)
        .map_err(|e| CliError::io("enter the worktree", &created.path, e))?;
    Ok((args, worktree::seen_from(&created.path, &cwd)))
}

/// Runs the loop in the working directory; `workspace_seen` is that directory as seen
/// from where ralph was started, when it is elsewhere (`--worktree`). `stop`: the stop
/// the signals are already routed to, if they are.
fn start_and_drive(
    args: &RunArgs,
    workspace_seen: Option<PathBuf>,
    stop: Option<StopController>,
) -> Result<CommandOutcome, CliError> {
    let workspace = super::working_directory()?;
    let mut overrides = Overrides {
        backend: args.backend,
        max_iterations: args.max_iterations,
        max_cost_usd: args.max_cost,
        max_runtime_seconds: args.max_runtime,
        completion_promise: args.completion_promise.clone(),
        prompt: args.prompt.clone(),
        prompt_file: args.prompt_file.clone(),
    };
    let mut hats = args.hats.clone();
    // `--continue` keeps the limits the run was started with on the command line,
    // unless new ones are given: ralph.yml's values would otherwise come back. So with
    // its `-H`: the pending events are topics of those hats.
    if args.resume
        && let Ok(Some(run_dir)) = RalphDir::in_workspace(&workspace).current_run()
        && let Ok(saved) = run_dir.load()
    {
        saved.command_line.fill(&mut overrides);
        if hats.is_none()
            && let Some(saved_hats) = &saved.command_line.hats
        {
            hats = Some(HatsSource::parse(saved_hats).map_err(CliError::from)?);
        }
    }
    let command_line = CommandLineLimits {
        // Saved for `--continue`, which may run in a clone at another path: a file inside
        // the workspace is kept relative to it.
        hats: hats
            .as_ref()
            .map(|h| crate::run::display_path(&h.shown(), &workspace)),
        ..CommandLineLimits::of(&overrides)
    };
    for hint in super::project_hints::project_file_hints(&workspace, args.config.as_deref()) {
        diagnostic(format_args!("warning: {hint}"));
    }
    let mut config =
        super::load_config_with_hats(&workspace, args.config.clone(), overrides, hats)?;
    if args.no_gates && !config.gates.is_empty() {
        diagnostic(format_args!(
            "warning: --no-gates: the {} configured gate(s) will not run; the events they \
             guard are believed as the agent publishes them",
            config.gates.len()
        ));
        config.gates.clear();
    }
    // Said once, where a person sees it: each iteration reads the skills again for its
    // prompt and leaves out, without a word, one it cannot use.
    for problem in ralph_core::skills::discover(&workspace, &config.skills).problems {
        diagnostic(format_args!("warning: {problem}"));
    }
    if args.dry_run {
        let mut out = std::io::stdout();
        out.write_all(config.to_yaml().as_bytes())
            .map_err(CliError::write)?;
        return Ok(CommandOutcome::Success);
    }

    // Before the lock and the run directory: a refused view must leave the last run as
    // it was, still the one `--continue` resumes.
    if args.tui && !std::io::stdout().is_terminal() {
        return Err(CliError::NoTerminal {
            command: "ralph run --tui",
            instead: "in a pipe, leave out --tui for the line view, or add --output json",
        });
    }
    let ralph_dir = RalphDir::in_workspace(&workspace);
    // Also before `.ralph/` is made: a run refused for want of a task, or of a run to
    // continue, leaves the directory as it found it. A stray `.ralph/` in a subdirectory
    // would pass for a workspace, and hide the project's runs from `ralph runs` there.
    let new_objective = match args.resume {
        true => {
            if let Ok(None) = ralph_dir.current_run() {
                return Err(no_run_to_continue(&ralph_dir));
            }
            None
        }
        false => Some(new_objective(&config, args, &workspace)?),
    };
    let fresh = ralph_dir.path().symlink_metadata().is_err();
    let lock = ralph_dir.lock()?;
    if let Some(why) = lock.user_lock_skipped() {
        diagnostic(format_args!(
            "warning: {why}: the loop holds only its lock under .ralph/, which an agent that \
             deletes .ralph/ takes away with it; set XDG_RUNTIME_DIR (or XDG_CACHE_HOME) to \
             a directory you can write to keep a second one"
        ));
    }
    if let Err(e) = ralph_dir.ensure_gitignore() {
        diagnostic(format_args!("warning: {e}"));
    }
    let rules = Rules::from_config(&config);
    let prompt_given = args.prompt.is_some() || args.prompt_file.is_some();

    let result = super::runtime().and_then(|runtime| {
        runtime.block_on(async {
            // Handled from here on, not only once the loop runs: a CI engine or Kubernetes
            // may cancel while the agents are checked, and a signal's default action would
            // end ralph without its state, with 143 instead of 130. The stop is sticky: the
            // loop then ends before its first agent starts, as interrupted.
            let stop = match stop {
                Some(stop) => stop,
                None => {
                    let (stop, _requests) = StopController::new();
                    signals::install(stop.clone()).map_err(CliError::Runtime)?;
                    stop
                }
            };
            // Before anything of this run starts: what a killed ralph left running here.
            let stale = leftovers::stop_stale(&ralph_dir, None).await;
            // A stop while they are checked ends the check; the loop then ends as interrupted
            // before its first agent starts (resumable, as any interrupted run).
            let agents = backends::resolve(&config, stop.requests()).await?;
            for note in agents.steering_notes() {
                diagnostic(format_args!("note: {note}"));
            }
            // A continued run picks up its directory, task, state and inbox offset; a new one
            // starts from the configuration.
            let (run_dir, objective, machine, inbox_offset) = if let Some(objective) = new_objective
            {
                let run_dir = ralph_dir
                    .create_run(SystemTime::now())
                    .map_err(|e| CliError::io("create a run directory in", ralph_dir.path(), e))?;
                (run_dir, objective, Machine::new(rules), 0)
            } else {
                let run_dir = ralph_dir
                    .current_run()
                    .map_err(|e| CliError::io("read the current run of", ralph_dir.path(), e))?
                    .ok_or_else(|| no_run_to_continue(&ralph_dir))?;
                let saved = run_dir.load()?;
                // The ended loop closed the inbox; this one reads on in it.
                run_dir
                    .reopen_inbox()
                    .map_err(|e| CliError::io("reopen", run_dir.inbox_closed_path(), e))?;
                // The state is written after the history line: a crash between the two
                // leaves a record the state does not cover. That iteration runs again, so its
                // record goes (the limited attempts the state covers stay).
                let run_again = saved.state.rate_limit.as_ref().map_or(0, |l| l.run_again);
                let dropped = run_dir
                    .trim_history(saved.state.iterations, run_again, Durability::Durable)
                    .map_err(|e| CliError::io("repair", run_dir.history(), e))?;
                if dropped > 0 {
                    diagnostic(format_args!(
                        "warning: the history recorded {dropped} iteration(s) past the saved \
                     state (ralph stopped between the two): dropped, to run again"
                    ));
                }
                let objective = match (&config.event_loop.prompt, prompt_given) {
                    (Some(prompt), true) => prompt.text.clone(),
                    _ => saved.objective,
                };
                let machine = Machine::resume(rules, saved.state)?;
                (run_dir, objective, machine, saved.inbox_offset)
            };
            let steering = Steering::start(&run_dir, machine.state().iterations.saturating_add(1));
            let recorder = AgentRecorder::hold(&run_dir);
            // Only a continued run reads on in the inbox the killed ralph was reading; read
            // before this run writes to the record, whose last write is the killed ralph's.
            let killed = (args.resume && stale.killed)
                .then(|| Killed::read(&run_dir, machine.state().iterations));
            // The killed ralph saved the run's time at its last iteration's end; it ran on
            // until the kill, and that time counts (the total, `max_runtime`).
            let mut machine = machine;
            if let Some(runtime_ms) = killed.as_ref().and_then(Killed::runtime_ms) {
                machine.count_run_until_kill(runtime_ms);
            }
            let run = Run {
                config: &config,
                workspace: workspace.clone(),
                objective,
                machine,
                inbox_offset,
                resumed: args.resume,
                agents,
                run_dir,
                command_line: command_line.clone(),
                hook_notes: String::new(),
                recorder,
                transcripts: Default::default(),
                leftovers: stale.notice,
                killed,
                earlier_attempt: None,
                github: crate::run::github::GitHub {
                    workspace_shown: workspace_seen.clone(),
                    ..crate::run::github::GitHub::from_env(
                        !matches!(args.output, OutputArg::Text) || args.tui,
                    )
                },
                steering,
            };
            let mut tui = match args.tui {
                true => Some(
                    TuiObserver::start(
                        stop.clone(),
                        args.color.for_stdout() && color_allowed(),
                        workspace_seen.clone(),
                    )
                    .map_err(|e| CliError::io("take over the terminal for", ralph_dir.path(), e))?,
                ),
                false => None,
            };
            let mut observer: Box<dyn Observer> = match args.output {
                _ if tui.is_some() => Box::new(NoObserver),
                OutputArg::Text => {
                    let detail = match (args.quiet, args.verbose) {
                        (true, _) => Detail::Quiet,
                        (false, true) => Detail::Verbose,
                        (false, false) => Detail::Normal,
                    };
                    let view = TextObserver::stdout(TextOptions::for_stdout(
                        detail,
                        args.color.for_stdout(),
                    ))
                    .pausing(&stop);
                    Box::new(match workspace_seen {
                        Some(seen) => view.show_workspace_as(seen),
                        None => view,
                    })
                }
                OutputArg::Json => Box::new(JsonObserver::stdout()),
            };
            let record = run
                .run_dir
                .open_run_events()
                .map_err(|e| {
                    diagnostic(format_args!(
                        "warning: the run's events are not recorded in {}: {e}",
                        run.run_dir.run_events().display()
                    ));
                })
                .ok()
                .map(|file| (run.run_dir.clone(), file));
            // What earlier sessions of the run recorded counts toward its cap on streamed
            // output, so `--continue` does not start that cap afresh.
            let recorded = record
                .as_ref()
                .and_then(|(_, file)| file.metadata().ok())
                .map_or(0, |m| m.len());
            let inner: &mut dyn Observer = match tui.as_mut() {
                Some(tui) => tui,
                None => observer.as_mut(),
            };
            let mut recorder = Recorder::new(inner, record);
            let mut capped = OutputCap::new(&mut recorder, recorded);
            let reason = drive(run, &mut capped, &stop).await;
            drop(recorder);
            if let Some(tui) = tui.as_mut() {
                tui.finish();
            }
            let reason = reason?;
            Ok(CommandOutcome::of_loop(reason.class()))
        })
    });
    // Refused before its run began (an agent missing, a stop while they were checked):
    // the `.ralph/` this run made goes with it. One that held anything before stays.
    if result.is_err() && fresh {
        drop(lock);
        if let Err(e) = ralph_dir.remove_if_bare() {
            diagnostic(format_args!(
                "warning: cannot remove `{}`, made for this run: {e}",
                ralph_dir.path().display()
            ));
        }
    }
    result
}

/// The task of a new run, or why there is none.
fn new_objective(
    config: &ResolvedConfig,
    args: &RunArgs,
    workspace: &std::path::Path,
) -> Result<String, CliError> {
    match &config.event_loop.prompt {
        Some(p) if !p.text.trim().is_empty() => Ok(p.text.clone()),
        Some(Prompt {
            source: PromptSource::File(path),
            ..
        }) => Err(CliError::EmptyPromptFile(path.clone())),
        _ => {
            let file = super::default_prompt_file(args.config.as_deref());
            let near = super::project_hints::prompt_file_near_miss(workspace, &file);
            Err(CliError::NoPrompt { file, near })
        }
    }
}

/// `--continue` where no run was started.
fn no_run_to_continue(ralph_dir: &RalphDir) -> CliError {
    ralph_core::store::StoreError::NoRun(ralph_dir.path().join(ralph_core::store::CURRENT_RUN_FILE))
        .into()
}
