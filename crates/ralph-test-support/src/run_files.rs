//! Reading a finished run's files back from a workspace, the way a user would after the
//! fact: `.ralph/current-run` names the run, whose directory holds the history, the summary
//! and the saved state. Every harness that drives `ralph run` reads them through here.

use std::path::{Path, PathBuf};

use serde_json::Value;

/// The files of the current run of the workspace at `workspace`.
#[derive(Debug, Clone)]
pub struct RunFiles {
    dir: PathBuf,
}

impl RunFiles {
    /// The run that `.ralph/current-run` names. Panics when there is none: a test calls
    /// this only after a run started.
    pub fn current(workspace: &Path) -> Self {
        let ralph = workspace.join(".ralph");
        let id = std::fs::read_to_string(ralph.join("current-run")).expect("current-run marker");
        Self {
            dir: ralph.join("runs").join(id.trim()),
        }
    }

    /// The run's directory.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// The run's id (its directory's name).
    pub fn id(&self) -> String {
        self.dir
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default()
    }

    /// The records of `history.jsonl`, one JSON value a line.
    pub fn history(&self) -> Vec<Value> {
        std::fs::read_to_string(self.dir.join("history.jsonl"))
            .expect("history")
            .lines()
            .map(|l| serde_json::from_str(l).expect("history line"))
            .collect()
    }

    /// `summary.md`.
    pub fn summary(&self) -> String {
        std::fs::read_to_string(self.dir.join("summary.md")).expect("summary.md")
    }

    /// `state.json`, parsed.
    pub fn saved_state(&self) -> Value {
        let text = std::fs::read_to_string(self.dir.join("state.json")).expect("state");
        serde_json::from_str(&text).expect("state JSON")
    }
}
