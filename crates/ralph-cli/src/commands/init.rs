//! `ralph init [--backend NAME] [--force] [--preset NAME]`: writes the commented
//! `ralph.yml` template (with a built-in preset's workflow when one is named);
//! `ralph init --list-presets` prints the presets.
//!
//! The template is checked (parsed and resolved like any config) before anything is
//! written, so `ralph init` never leaves a file that `ralph run` would refuse. An existing
//! file is only replaced with `--force` (whole, and only a regular file); without it
//! the file is created exclusively, so two `ralph init`s cannot both write.

use std::fs::OpenOptions;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use ralph_core::config::{
    DEFAULT_PROMPT_FILE, PRESETS, PROJECT_CONFIG_FILE, RawConfig, ResolveEnv, init_template, merge,
    parse_layer, preset, preset_template, resolve,
};

use ralph_core::fsafe;
use ralph_core::store::{Durability, replace};

use crate::cli::InitArgs;
use crate::error::CliError;
use crate::exit::CommandOutcome;
use crate::shell_words::config_flag;

pub(crate) fn run(args: &InitArgs) -> Result<CommandOutcome, CliError> {
    if args.list_presets {
        return list_presets();
    }
    let preset = args.preset.as_deref().map(preset).transpose()?;
    let cwd = super::working_directory()?;
    let shown = args
        .config
        .clone()
        .unwrap_or_else(|| PathBuf::from(PROJECT_CONFIG_FILE));
    let path = cwd.join(&shown);
    let text = match preset {
        Some(p) => preset_template(args.backend, p),
        None => init_template(args.backend),
    };
    check(&text, &shown, &cwd)?;
    write(&path, &text, args.force).map_err(|e| match e.kind() {
        io::ErrorKind::AlreadyExists => CliError::ConfigExists(shown.clone()),
        _ => CliError::io("write", &path, e),
    })?;
    let mut out = io::stdout();
    // A config elsewhere than `ralph.yml` is only read when named: every command that
    // follows must name it too.
    let with_config = config_flag(args.config.as_deref());
    // Where the run will look for the task: beside the config, not here.
    let prompt = super::default_prompt_file(args.config.as_deref());
    let next = if cwd.join(&prompt).exists() {
        format!("`ralph run{with_config}`")
    } else {
        format!(
            "write the task in {} and `ralph run{with_config}` (or `ralph plan{with_config}` \
             to write a spec with the agent first)",
            prompt.display()
        )
    };
    let workflow = preset.map_or_else(String::new, |p| format!(", preset: {}", p.name));
    writeln!(
        out,
        "wrote {} (backend: {}{workflow}); `ralph doctor{with_config}` checks the setup; \
         next: {next}",
        shown.display(),
        args.backend
    )
    .map_err(CliError::write)?;
    Ok(CommandOutcome::Success)
}

/// One preset a line: its name, padded so the descriptions line up, then what it is for.
fn list_presets() -> Result<CommandOutcome, CliError> {
    let width = PRESETS.iter().map(|p| p.name.len()).max().unwrap_or(0);
    let mut out = io::stdout().lock();
    for p in PRESETS {
        writeln!(out, "{:width$}  {}", p.name, p.description).map_err(CliError::write)?;
    }
    Ok(CommandOutcome::Success)
}

/// The template must be a valid config on its own: a failure here is a bug in ralph,
/// reported rather than written.
fn check(text: &str, shown: &Path, cwd: &Path) -> Result<(), CliError> {
    let parsed = parse_layer(text, shown).map_err(CliError::Config)?;
    let env = ResolveEnv {
        cwd: cwd.to_path_buf(),
        default_prompt_file: PathBuf::from(DEFAULT_PROMPT_FILE),
        sources: vec![shown.to_path_buf()],
    };
    resolve(merge(RawConfig::default(), parsed.config), &env).map_err(CliError::Config)?;
    Ok(())
}

/// Writes `text` at `path`: a new file only, or with `force` in place of the file there,
/// whole (written aside, then renamed over it). A link is followed, so that a config
/// kept elsewhere and linked in is the one updated; anything but a regular file at the
/// end of it (a FIFO, a device such as `/dev/null`) is refused, never written into.
fn write(path: &Path, text: &str, force: bool) -> io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    if force {
        let target = match std::fs::canonicalize(path) {
            Ok(target) => target,
            // Nothing there yet, or a dangling link: the new file takes the name.
            Err(e) if e.kind() == io::ErrorKind::NotFound => path.to_path_buf(),
            Err(e) => return Err(e),
        };
        fsafe::check_replaceable(&target)?;
        return replace(&target, text.as_bytes(), Durability::Durable);
    }
    let mut file = OpenOptions::new().write(true).create_new(true).open(path)?;
    file.write_all(text.as_bytes())
}
