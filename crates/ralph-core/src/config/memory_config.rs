//! `memories:` and `skills:` resolved: what the loop's working memory shows the agent.

use std::path::PathBuf;

use super::raw::{RawMemories, RawSkillOverride, RawSkills};
use crate::memory::MemoryType;

/// Default for `memories.budget`: the most tokens of memories a prompt carries (2000
/// characters, see `memory::select::CHARS_PER_TOKEN`). About 20 memories of a line or
/// two: enough to carry the lessons that matter, small next to a prompt of a few
/// kilobytes.
pub const DEFAULT_MEMORY_BUDGET: u32 = 500;
/// What `memories.budget: 0` ("no limit" in ralph-orchestrator) means in a prompt: still
/// a cap (64 KiB of text), so a file of thousands of memories cannot swamp every
/// iteration.
pub const MEMORY_BUDGET_CAP: u32 = 16 * 1024;

/// `memories:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemoriesConfig {
    pub enabled: bool,
    pub inject: MemoryInject,
    /// The most tokens of memories a prompt carries (`0` in the file means
    /// [`MEMORY_BUDGET_CAP`]).
    pub budget: u32,
    pub filter: MemoryFilter,
}

impl Default for MemoriesConfig {
    fn default() -> Self {
        MemoriesConfig {
            enabled: true,
            inject: MemoryInject::Auto,
            budget: DEFAULT_MEMORY_BUDGET,
            filter: MemoryFilter::default(),
        }
    }
}

impl MemoriesConfig {
    /// Whether the prompt says anything about memories.
    pub fn in_prompt(&self) -> bool {
        self.enabled && self.inject != MemoryInject::None
    }
}

/// `memories.inject`: what each prompt carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MemoryInject {
    /// The memories (within the budget) and how to add more.
    Auto,
    /// How to read (`ralph tools memory prime`) and add them; not the memories.
    Manual,
    /// Nothing about memories.
    None,
}

impl MemoryInject {
    pub const ALL: [MemoryInject; 3] =
        [MemoryInject::Auto, MemoryInject::Manual, MemoryInject::None];

    pub fn name(self) -> &'static str {
        match self {
            MemoryInject::Auto => "auto",
            MemoryInject::Manual => "manual",
            MemoryInject::None => "none",
        }
    }
}

/// `memories.filter`: which memories a prompt may carry.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MemoryFilter {
    /// Only these types (all when empty).
    pub types: Vec<MemoryType>,
    /// Only memories with one of these tags (all when empty).
    pub tags: Vec<String>,
    /// Only memories of the last this many days.
    pub recent: Option<u32>,
}

/// `skills:`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SkillsConfig {
    pub enabled: bool,
    /// Where skills are looked for, relative to the workspace.
    pub dirs: Vec<PathBuf>,
    /// Per skill name, in file order.
    pub overrides: Vec<SkillOverride>,
}

impl Default for SkillsConfig {
    fn default() -> Self {
        SkillsConfig {
            enabled: true,
            dirs: Vec::new(),
            overrides: Vec::new(),
        }
    }
}

impl SkillsConfig {
    /// The override for the skill `name`.
    pub fn override_for(&self, name: &str) -> Option<&SkillOverride> {
        self.overrides.iter().find(|o| o.name == name)
    }
}

/// `skills.overrides.<name>`: what the configuration changes about one skill.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SkillOverride {
    pub name: String,
    /// `Some(false)`: the skill is hidden.
    pub enabled: Option<bool>,
    /// Only these hats see it (replaces the skill's own list when not empty).
    pub hats: Vec<String>,
    /// Only agents of these backends see it (replaces the skill's own list when not
    /// empty).
    pub backends: Vec<String>,
    /// Whether its whole text goes into the prompt instead of its index line.
    pub auto_inject: Option<bool>,
}

pub(super) fn memories(raw: RawMemories) -> MemoriesConfig {
    let base = MemoriesConfig::default();
    MemoriesConfig {
        enabled: raw.enabled.map_or(base.enabled, |v| v.value),
        inject: raw.inject.map_or(base.inject, |v| v.value),
        budget: match raw.budget.map(|v| v.value) {
            None => base.budget,
            Some(0) => MEMORY_BUDGET_CAP,
            Some(n) => n.min(MEMORY_BUDGET_CAP),
        },
        filter: MemoryFilter {
            types: raw
                .filter
                .types
                .map(|t| t.value.into_iter().map(|t| t.value).collect())
                .unwrap_or_default(),
            tags: raw.filter.tags.map(|t| t.value).unwrap_or_default(),
            recent: raw.filter.recent.map(|r| r.value),
        },
    }
}

pub(super) fn skills(raw: RawSkills) -> SkillsConfig {
    SkillsConfig {
        enabled: raw.enabled.is_none_or(|v| v.value),
        dirs: raw
            .dirs
            .map(|d| d.value.into_iter().map(PathBuf::from).collect())
            .unwrap_or_default(),
        overrides: raw.overrides.into_iter().map(skill_override).collect(),
    }
}

fn skill_override(raw: RawSkillOverride) -> SkillOverride {
    SkillOverride {
        name: raw.name.value,
        enabled: raw.enabled.map(|v| v.value),
        hats: raw.hats.map(|v| v.value).unwrap_or_default(),
        backends: raw.backends.map(|v| v.value).unwrap_or_default(),
        auto_inject: raw.auto_inject.map(|v| v.value),
    }
}
