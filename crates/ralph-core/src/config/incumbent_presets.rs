//! Where ralph-orchestrator looked up a hats file named without a path (`-H NAME`), first
//! match winning: `./presets`, then the user's preset directories and the ones two
//! environment variables name. ralph reads none of them (`-H` takes a path), but a user
//! moving over has presets there, and the error for such a name gives the path found.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The variables that named a preset directory of the user's own, in the order it
/// searched them (the second is the older name of the first).
pub(super) const PRESETS_DIR_VARIABLES: [&str; 2] = ["RALPH_PRESETS_DIR", "AUTOLOOP_PRESETS_DIR"];

/// The directory under the working directory it searched first.
const PROJECT_PRESETS_DIR: &str = "presets";

/// Under `$XDG_CONFIG_HOME`, and under `$HOME/.config`.
const USER_PRESETS_DIR: &str = "ralph/presets";

/// Under `$HOME/.config`: the presets it shared with the autoloop CLI.
const AUTOLOOP_PRESETS_DIR: &str = "autoloop/presets";

/// The extensions of a preset that is one YAML file.
const YAML_EXTENSIONS: [&str; 2] = ["yml", "yaml"];

/// The two files of a preset that is a directory (autoloop's TOML form).
pub(super) const TOML_PRESET_FILES: [&str; 2] = ["autoloops.toml", "topology.toml"];

/// The directories the incumbent searched, and the user's environment they depend on.
#[derive(Debug, Clone, Copy)]
pub(super) struct PresetDirs<'a> {
    pub(super) cwd: &'a Path,
    pub(super) xdg_config_home: Option<&'a OsString>,
    pub(super) home: Option<&'a OsString>,
    /// The values of [`PRESETS_DIR_VARIABLES`], in order.
    pub(super) from_variables: &'a [PathBuf],
}

/// A preset of that name found in one of them.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum FoundPreset {
    /// A YAML file, which `-H` takes by its path: relative to the working directory
    /// under `./presets`, else absolute.
    Yaml(PathBuf),
    /// A directory of autoloop's TOML form, which ralph does not read.
    TomlDirectory(PathBuf),
}

impl PresetDirs<'_> {
    /// The first preset named `name` in the directories, in the incumbent's order.
    pub(super) fn find(&self, name: &str) -> Option<FoundPreset> {
        self.searched().into_iter().find_map(|(dir, shown)| {
            let yaml = YAML_EXTENSIONS
                .iter()
                .map(|ext| format!("{name}.{ext}"))
                .find(|file| dir.join(file).is_file());
            if let Some(file) = yaml {
                return Some(FoundPreset::Yaml(shown.join(file)));
            }
            let toml = dir.join(name);
            (TOML_PRESET_FILES.iter().all(|f| toml.join(f).is_file()))
                .then(|| FoundPreset::TomlDirectory(shown.join(name)))
        })
    }

    /// Each directory as it is looked in, and as a path in the hint is written.
    fn searched(&self) -> Vec<(PathBuf, PathBuf)> {
        let mut dirs = vec![(
            self.cwd.join(PROJECT_PRESETS_DIR),
            PathBuf::from(PROJECT_PRESETS_DIR),
        )];
        let set = |v: Option<&OsString>| v.filter(|v| !v.is_empty()).map(PathBuf::from);
        let mut shown = vec![];
        if let Some(xdg) = set(self.xdg_config_home) {
            shown.push(xdg.join(USER_PRESETS_DIR));
        }
        if let Some(home) = set(self.home) {
            for under in [USER_PRESETS_DIR, AUTOLOOP_PRESETS_DIR] {
                shown.push(home.join(".config").join(under));
            }
        }
        shown.extend(self.from_variables.iter().cloned());
        // A relative one is from where ralph runs, as `-H` reads it.
        dirs.extend(shown.into_iter().map(|dir| (self.cwd.join(&dir), dir)));
        dirs
    }
}

#[cfg(test)]
#[path = "incumbent_presets_tests.rs"]
mod tests;
