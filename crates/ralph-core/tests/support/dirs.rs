//! A workspace and a home directory for loading configs from files.

use std::fs;
use std::path::PathBuf;

use ralph_core::config::{LoadOptions, Overrides, Resolved, load};
use tempfile::TempDir;

use super::rendered;

/// A workspace and a home directory, both temporary.
pub struct Dirs {
    pub home: TempDir,
    pub work: TempDir,
}

impl Dirs {
    pub fn new() -> Self {
        Dirs {
            home: tempfile::tempdir().expect("home"),
            work: tempfile::tempdir().expect("work"),
        }
    }

    pub fn user_config(&self, yaml: &str) -> &Self {
        let dir = self.home.path().join(".config/ralph");
        fs::create_dir_all(&dir).expect("mkdir");
        fs::write(dir.join("config.yml"), yaml).expect("write");
        self
    }

    pub fn file(&self, path: &str, text: &str) -> &Self {
        let path = self.work.path().join(path);
        fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        fs::write(path, text).expect("write");
        self
    }

    pub fn options(&self, config_file: Option<&str>, overrides: Overrides) -> LoadOptions {
        LoadOptions {
            cwd: self.work.path().to_path_buf(),
            config_file: config_file.map(PathBuf::from),
            xdg_config_home: None,
            home: Some(self.home.path().as_os_str().to_owned()),
            overrides,
            ..LoadOptions::default()
        }
    }

    pub fn load(&self, overrides: Overrides) -> Resolved {
        load(&self.options(None, overrides)).unwrap_or_else(|e| panic!("load failed:\n{e}"))
    }

    pub fn load_errors(&self, config_file: Option<&str>, overrides: Overrides) -> Vec<String> {
        match load(&self.options(config_file, overrides)) {
            Ok(r) => panic!("expected errors, got {r:?}"),
            Err(e) => rendered(&e.0),
        }
    }

    pub fn user_config_path(&self) -> PathBuf {
        self.home.path().join(".config/ralph/config.yml")
    }
}
