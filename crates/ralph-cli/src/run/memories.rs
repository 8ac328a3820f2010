//! What an iteration's prompt carries of the loop's working memory: the memories primed
//! within `memories.budget` (the active hat's id as the preferred tag), and the skills
//! its hat and backend see. Read fresh every iteration: the agent changes them.

use std::path::Path;
use std::time::SystemTime;

use ralph_core::config::{MemoryInject, ResolvedConfig};
use ralph_core::memory::{MemoryFile, Prime, Ranked, date, prime};
use ralph_core::prompt_memory::MemoryPrompt;
use ralph_core::skills::{Skill, discover};

use crate::diagnostic::diagnostic;

/// The memories and skills of one iteration's prompt.
pub(crate) struct WorkingMemory {
    /// The primed memories (`inject: auto`) and how many are stored, else `None`;
    /// `Err`: the file (shown as this path) could not be read, and why.
    primed: Option<Result<(Ranked, usize), (String, String)>>,
    show_memories: bool,
    pub(crate) skills: Vec<Skill>,
}

impl WorkingMemory {
    /// Reads them for the iteration of `hat` (none in a run without hats) on `backend`.
    pub(crate) fn read(
        config: &ResolvedConfig,
        workspace: &Path,
        hat: Option<&str>,
        backend: &str,
    ) -> WorkingMemory {
        let memories = &config.memories;
        let primed = (memories.in_prompt() && memories.inject == MemoryInject::Auto)
            .then(|| primed(config, workspace, hat));
        let skills = discover(workspace, &config.skills)
            .skills
            .into_iter()
            .filter(|s| s.visible_to(hat, Some(backend)))
            .collect();
        WorkingMemory {
            primed,
            show_memories: memories.in_prompt(),
            skills,
        }
    }

    /// What the prompt says about memories.
    pub(crate) fn prompt(&self) -> Option<MemoryPrompt<'_>> {
        match &self.primed {
            // Memories the budget left out, none shown: not "none stored".
            Some(Ok((ranked, _))) if ranked.shown == 0 && ranked.left_out > 0 => {
                Some(MemoryPrompt::NoneFit(ranked.left_out))
            }
            // None passed `memories.filter` (without one, every memory passes): not
            // "none stored" either.
            Some(Ok((ranked, stored))) if ranked.shown == 0 && *stored > 0 => {
                Some(MemoryPrompt::Filtered(*stored))
            }
            Some(Ok((ranked, _))) => Some(MemoryPrompt::Primed(&ranked.text)),
            Some(Err((path, why))) => Some(MemoryPrompt::Unreadable { path, why }),
            None if self.show_memories => Some(MemoryPrompt::Manual),
            None => None,
        }
    }
}

fn primed(
    config: &ResolvedConfig,
    workspace: &Path,
    hat: Option<&str>,
) -> Result<(Ranked, usize), (String, String)> {
    let file = MemoryFile::in_workspace(workspace);
    let parsed = match file.read() {
        Ok((_, parsed)) => parsed,
        // The iteration runs without them rather than not at all.
        Err(e) => {
            diagnostic(format_args!(
                "warning: the memories are left out of this prompt: cannot read `{}`: {e}",
                file.path().display()
            ));
            let shown = file.path().strip_prefix(workspace).unwrap_or(file.path());
            return Err((shown.display().to_string(), e.to_string()));
        }
    };
    let filter = &config.memories.filter;
    let prefer: Vec<String> = hat.map(str::to_owned).into_iter().collect();
    let primed = prime(
        parsed.memories(),
        &Prime {
            budget_tokens: usize::try_from(config.memories.budget).ok(),
            recent_days: filter.recent,
            types: &filter.types,
            tags: &filter.tags,
            prefer_tags: &prefer,
            today: date::day_number(SystemTime::now()),
        },
    );
    Ok((primed, parsed.memories().count()))
}
