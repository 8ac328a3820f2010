//! Finding and reading the config files, then layering them: built-in defaults, the
//! user file, the project file (or `-c FILE`), the hats of `-H` (see `overlay.rs`),
//! the command line.
//!
//! This and the prompt file read in [`super::resolve`] are the only I/O of the
//! configuration layer; everything else works on text and values.

use std::ffi::OsString;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::decode::parse_layer;
use super::error::{ConfigError, ConfigErrors, ConfigWarning, ConfigWarningKind, FileRole};
use super::incumbent_presets::{PRESETS_DIR_VARIABLES, PresetDirs};
use super::merge::merge;
use super::origin::Origin;
use super::overlay::{HatsSource, apply_overlay, preset_promise, read_overlay};
use super::overrides::Overrides;
use super::raw::RawConfig;
use super::resolve::{ResolveEnv, Resolved, model_pricing, resolve};
use super::resolved::{DEFAULT_COMPLETION_PROMISE, DEFAULT_PROMPT_FILE, ModelPricing};
use super::source_hint::{with_config_hint, with_hats_hint};
use crate::fsafe::{self, Links, MAX_CONFIG_FILE_BYTES};

/// The project config ralph looks for in the working directory.
pub const PROJECT_CONFIG_FILE: &str = "ralph.yml";

/// The user config, under the XDG config directory.
const USER_CONFIG_RELATIVE: &str = "ralph/config.yml";

/// Where ralph-orchestrator keeps its user config, under the home directory.
const LEGACY_USER_CONFIG_RELATIVE: &str = ".ralph/config.yml";

/// What [`load`] reads.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadOptions {
    /// Where ralph runs: `ralph.yml` and relative paths are looked up from here.
    pub cwd: PathBuf,
    /// `-c FILE`: read instead of `ralph.yml` (and it must exist).
    pub config_file: Option<PathBuf>,
    /// `$XDG_CONFIG_HOME`, as found in the environment.
    pub xdg_config_home: Option<OsString>,
    /// `$HOME`, as found in the environment.
    pub home: Option<OsString>,
    /// `$RALPH_PRESETS_DIR`, then `$AUTOLOOP_PRESETS_DIR`, as found in the environment
    /// (those set and not empty). ralph reads no preset directory, but ralph-orchestrator
    /// looked `-H NAME` up there: the error for such a name gives the path of the file.
    pub presets_dirs: Vec<PathBuf>,
    /// The command line's settings.
    pub overrides: Overrides,
    /// `-H`: the hats (and their workflow keys) to use instead of the files' own.
    pub hats: Option<HatsSource>,
}

impl LoadOptions {
    /// Options for `cwd`, with the user's directories taken from the environment.
    pub fn from_env(cwd: PathBuf, config_file: Option<PathBuf>, overrides: Overrides) -> Self {
        LoadOptions {
            cwd,
            config_file,
            xdg_config_home: std::env::var_os("XDG_CONFIG_HOME"),
            home: std::env::var_os("HOME"),
            presets_dirs: PRESETS_DIR_VARIABLES
                .iter()
                .filter_map(std::env::var_os)
                .filter(|dir| !dir.is_empty())
                .map(PathBuf::from)
                .collect(),
            overrides,
            hats: None,
        }
    }

    /// Where ralph-orchestrator looked up `-H NAME`, as these options see them.
    fn preset_dirs(&self) -> PresetDirs<'_> {
        PresetDirs {
            cwd: &self.cwd,
            xdg_config_home: self.xdg_config_home.as_ref(),
            home: self.home.as_ref(),
            from_variables: &self.presets_dirs,
        }
    }

    /// These options with the hats of `source` over the config files' (`-H`).
    #[must_use]
    pub fn with_hats(self, source: Option<HatsSource>) -> Self {
        LoadOptions {
            hats: source,
            ..self
        }
    }
}

/// `$XDG_CONFIG_HOME/ralph/config.yml`, else `$HOME/.config/ralph/config.yml`. An
/// empty or relative `XDG_CONFIG_HOME` is ignored, as the XDG spec requires.
pub fn user_config_path(xdg_config_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    let xdg = xdg_config_home.filter(|p| p.is_absolute());
    let base = match xdg {
        Some(dir) => dir.to_path_buf(),
        None => home.filter(|h| !h.as_os_str().is_empty())?.join(".config"),
    };
    Some(base.join(USER_CONFIG_RELATIVE))
}

/// Loads, layers, checks and resolves the configuration. Errors from every file and
/// the command line are reported together.
pub fn load(options: &LoadOptions) -> Result<Resolved, ConfigErrors> {
    load_detailed(options).map_err(|failure| failure.errors)
}

/// Why [`load_detailed`] has no configuration, with what it found on the way.
#[derive(Debug)]
pub struct LoadFailure {
    pub errors: ConfigErrors,
    /// The config files read (one with errors too), lowest layer first: not a file that
    /// does not exist or could not be read.
    pub files: Vec<PathBuf>,
    /// The warnings about the files read before the errors stopped the load.
    pub warnings: Vec<ConfigWarning>,
}

/// [`load`], keeping on failure the files it read and its warnings, for a report of the
/// whole configuration (`ralph doctor`).
pub fn load_detailed(options: &LoadOptions) -> Result<Resolved, LoadFailure> {
    let FileLayers {
        layers,
        mut sources,
        mut read,
        mut warnings,
        mut errors,
        project_dir,
    } = read_files(options);
    let overlay = options.hats.as_ref().and_then(|source| {
        // A builtin preset is always read; a file only when opening it worked.
        let mut was_read = matches!(source, HatsSource::Builtin(_));
        let overlay = read_overlay(source, &options.cwd, |path| {
            let text = read_file(path, FileRole::Hats);
            was_read = text.is_ok();
            text.map_err(|e| match source {
                HatsSource::File(arg) => with_hats_hint(e, arg, &options.preset_dirs()),
                HatsSource::Builtin(_) => e,
            })
        });
        if was_read {
            read.push(source.shown());
        }
        match overlay {
            Ok(overlay) => {
                sources.push(source.shown());
                warnings.extend(overlay.warnings);
                Some(overlay.layer)
            }
            Err(e) => {
                errors.extend(e.0);
                None
            }
        }
    });
    let command_line = match options.overrides.clone().into_layer() {
        Ok(layer) => layer,
        Err(e) => {
            errors.extend(e.0);
            RawConfig::default()
        }
    };
    let failure = |errors: Vec<ConfigError>, warnings: Vec<ConfigWarning>| LoadFailure {
        errors: ConfigErrors(errors),
        files: read.clone(),
        warnings,
    };
    if !errors.is_empty() {
        return Err(failure(errors, warnings));
    }

    let mut merged = layers.into_iter().fold(RawConfig::default(), merge);
    if let Some(mut overlay) = overlay {
        if matches!(options.hats, Some(HatsSource::Builtin(_))) {
            // The promise the run ends up with: the command line's, else the preset's,
            // else the files'.
            let promise = [&command_line, &overlay, &merged]
                .into_iter()
                .find_map(|layer| layer.event_loop.completion_promise.as_ref())
                .map_or(DEFAULT_COMPLETION_PROMISE, |p| p.value.as_str())
                .to_owned();
            preset_promise(&mut overlay, &promise);
        }
        merged = apply_overlay(merged, overlay);
    }
    let merged = merge(merged, command_line);
    let env = ResolveEnv {
        cwd: options.cwd.clone(),
        default_prompt_file: project_dir.join(DEFAULT_PROMPT_FILE),
        sources,
    };
    let mut resolved = match resolve(merged, &env) {
        Ok(resolved) => resolved,
        Err(e) => return Err(failure(e.0, warnings)),
    };
    warnings.append(&mut resolved.warnings);
    resolved.warnings = warnings;
    Ok(resolved)
}

/// The prices the config files set (`pricing:` of the user file, then of the project
/// file or `-c FILE`), for commands that need nothing else from them (`ralph inspect`).
/// The files must still be valid: a mistake anywhere in them is reported.
pub fn load_pricing(options: &LoadOptions) -> Result<Vec<ModelPricing>, ConfigErrors> {
    let files = read_files(options);
    if !files.errors.is_empty() {
        return Err(ConfigErrors(files.errors));
    }
    let merged = files.layers.into_iter().fold(RawConfig::default(), merge);
    Ok(merged.pricing.into_iter().map(model_pricing).collect())
}

/// The config files, each parsed on its own.
#[derive(Default)]
struct FileLayers {
    layers: Vec<RawConfig>,
    /// The files whose layer is in `layers`.
    sources: Vec<PathBuf>,
    /// The files read, whether they parsed or not.
    read: Vec<PathBuf>,
    warnings: Vec<ConfigWarning>,
    errors: Vec<ConfigError>,
    /// Where the default prompt file is looked for: the project file's directory (empty
    /// when there is no project file).
    project_dir: PathBuf,
}

fn read_files(options: &LoadOptions) -> FileLayers {
    let mut out = FileLayers::default();
    let xdg = options.xdg_config_home.as_deref().map(Path::new);
    let home = options.home.as_deref().map(Path::new);
    if let Some(user) = user_config_path(xdg, home) {
        let read = read_optional(&user);
        if matches!(read, Ok(None))
            && let Some(legacy) = home.map(|h| h.join(LEGACY_USER_CONFIG_RELATIVE))
            && options.cwd.join(&legacy).is_file()
        {
            out.warnings.push(ConfigWarning {
                origin: Origin::WholeFile(Arc::from(legacy.as_path())),
                kind: ConfigWarningKind::LegacyUserConfig {
                    expected: user.clone(),
                },
            });
        }
        out.add_layer(read, &user);
    }

    let (project, required) = match &options.config_file {
        Some(file) => (file.clone(), true),
        None => (PathBuf::from(PROJECT_CONFIG_FILE), false),
    };
    let project_on_disk = options.cwd.join(&project);
    let read = if required {
        read_config(&project_on_disk)
            .map(Some)
            .map_err(|e| with_config_hint(e, &project))
    } else {
        read_optional(&project_on_disk)
    };
    if matches!(read, Ok(Some(_))) {
        out.project_dir = project.parent().map(Path::to_path_buf).unwrap_or_default();
    }
    out.add_layer(read, &project);
    out
}

/// A config file's text: a regular file (a link to one is fine), never more than
/// [`MAX_CONFIG_FILE_BYTES`], and a FIFO is refused instead of waited on.
fn read_config(path: &Path) -> io::Result<String> {
    read_file(path, FileRole::Config)
}

/// [`read_config`] of a file that is `role` to ralph, as its refusals name it.
fn read_file(path: &Path, role: FileRole) -> io::Result<String> {
    fsafe::read_to_string(
        path,
        Links::Follow,
        MAX_CONFIG_FILE_BYTES,
        role.with_article(),
    )
}

/// A file's text, or `None` if there is nothing at its name. A link there that leads
/// nowhere is an error, not "no file": whoever made it meant a config to be read.
fn read_optional(path: &Path) -> io::Result<Option<String>> {
    match read_config(path) {
        Ok(text) => Ok(Some(text)),
        Err(e) if e.kind() == io::ErrorKind::NotFound => match dangling_link(path) {
            Some(link) => Err(link),
            None => Ok(None),
        },
        Err(e) => Err(e),
    }
}

/// The error of a `path` not found: a link to nothing when it is one, else `None` (there
/// is nothing at the name).
pub(super) fn dangling_link(path: &Path) -> Option<io::Error> {
    path.symlink_metadata().ok().map(|_| {
        io::Error::new(
            io::ErrorKind::NotFound,
            DanglingLink(std::fs::read_link(path).unwrap_or_default()),
        )
    })
}

/// A config file's name is a symbolic link to nothing.
#[derive(Debug, thiserror::Error)]
#[error(
    "it is a symbolic link to `{}`, which does not exist; fix or remove the link",
    .0.display()
)]
struct DanglingLink(PathBuf);

impl FileLayers {
    /// The layer of the file shown as `shown_as`, read as `read` (`None`: there is none).
    fn add_layer(&mut self, read: io::Result<Option<String>>, shown_as: &Path) {
        match read {
            Ok(None) => {}
            Ok(Some(text)) => {
                self.read.push(shown_as.to_path_buf());
                match parse_layer(&text, shown_as) {
                    Ok(parsed) => {
                        self.layers.push(parsed.config);
                        self.warnings.extend(parsed.warnings);
                        self.sources.push(shown_as.to_path_buf());
                    }
                    Err(e) => self.errors.extend(e.0),
                }
            }
            Err(source) => {
                (self.errors).push(ConfigError::unreadable(shown_as, FileRole::Config, source));
            }
        }
    }
}
