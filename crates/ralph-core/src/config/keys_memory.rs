//! The keys of `memories:` and `skills:`, the loop's working memory (see `keys.rs` for
//! the table's form).

use super::key::{Dump, Init, Key, Read, Section, Type, Value};
use super::keys::{key, value};
use super::memory_config::MemoryInject;
use super::read;
use super::resolved::DEFAULT_MEMORY_BUDGET;
use super::yaml_value::{boolean, int, path_value, string, strings};
use crate::memory::MemoryType;

use super::key::Default::{Keys, Unset};
use Section::{Memories, MemoryFilter, SkillOverride, Skills, Top};

/// The example overrides shown (commented out) in the `ralph init` template.
const EXAMPLE_SKILL_OVERRIDES: &str = "\
overrides:
  release-notes: {hats: [writer], auto_inject: true}
  old-habits: {enabled: false}
";

fn inject_names() -> Vec<&'static str> {
    MemoryInject::ALL.map(MemoryInject::name).to_vec()
}

fn type_names() -> Vec<&'static str> {
    MemoryType::ALL.map(MemoryType::name).to_vec()
}

/// Not reformatted by rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
pub(super) static MEMORY_KEYS: &[Key] = &[
    key(Top, "memories", Type::Mapping, Keys,
        "Lessons the agent keeps for later iterations in `.ralph/agent/memories.md` with \
         `ralph tools memory`, and what each prompt carries of them.",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Top, "skills", Type::Mapping, Keys,
        "Instructions for particular jobs that the agent loads when it needs them \
         (`ralph tools skill load NAME`); each prompt lists them, one line each.",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    // memories
    key(Memories, "enabled", Type::Bool, value(Value::Bool(true)),
        "Whether the agent keeps memories; off, the prompt says nothing about them.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.memories.enabled))),
        Read::Layer(|dec, f, c| c.memories.enabled = dec.boolean(f))),
    key(Memories, "inject", Type::Choice(inject_names), value(Value::Text("auto")),
        "What each prompt carries: `auto` the most relevant memories that fit in \
         `budget`, grouped by kind, and how to add one; `manual` only how to read and add \
         them; `none` nothing.",
        Init::Default,
        Dump::Config(|c| Some(string(c.memories.inject.name()))),
        Read::Layer(|dec, f, c| {
            c.memories.inject = read::choice(dec, f, &MemoryInject::ALL, MemoryInject::name);
        })),
    key(Memories, "budget", Type::Tokens, value(Value::Count(DEFAULT_MEMORY_BUDGET)),
        "The most tokens of memories a prompt carries (a token counted as 4 characters, as \
         ralph-orchestrator counts it), whole memories only; `0` means 16384.",
        Init::Default,
        Dump::Config(|c| Some(int(c.memories.budget.into()))),
        Read::Layer(|dec, f, c| c.memories.budget = read::tokens(dec, f))),
    key(Memories, "filter", Type::Mapping, Keys,
        "Which memories a prompt may carry (`ralph tools memory` sees them all).",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    // memories.filter
    key(MemoryFilter, "types", Type::ChoiceList(type_names), value(Value::EmptyList),
        "Only memories of these types (all when empty).",
        Init::Default,
        Dump::Config(|c| Some(strings(
            &c.memories.filter.types.iter().map(|t| t.name().to_owned()).collect::<Vec<_>>(),
        ))),
        Read::Layer(|dec, f, c| {
            c.memories.filter.types = read::choice_list(dec, f, &MemoryType::ALL, MemoryType::name);
        })),
    key(MemoryFilter, "tags", Type::Strings, value(Value::EmptyList),
        "Only memories with one of these tags (all when empty).",
        Init::Default,
        Dump::Config(|c| Some(strings(&c.memories.filter.tags))),
        Read::Layer(|dec, f, c| c.memories.filter.tags = dec.plain_strings(f))),
    key(MemoryFilter, "recent", Type::Count, Unset("memories of any age"),
        "Only memories written in the last this many days.",
        Init::Example("30"),
        Dump::Config(|c| c.memories.filter.recent.map(|d| int(d.into()))),
        Read::Layer(|dec, f, c| c.memories.filter.recent = read::count(dec, f))),
    // skills
    key(Skills, "enabled", Type::Bool, value(Value::Bool(true)),
        "Whether ralph looks for skills in `dirs` and lists them in the prompt.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.skills.enabled))),
        Read::Layer(|dec, f, c| c.skills.enabled = dec.boolean(f))),
    key(Skills, "dirs", Type::Strings, value(Value::EmptyList),
        "Directories of skills, relative to the workspace (such as `.claude/skills`): each \
         `NAME/SKILL.md` or `NAME.md` in them is a skill, named and described by its front \
         matter (`name:`, `description:`).",
        Init::Default,
        Dump::Config(|c| Some(Yaml::Sequence(c.skills.dirs.iter().map(|d| path_value(d)).collect()))),
        Read::Layer(|dec, f, c| c.skills.dirs = dec.plain_strings(f))),
    key(Skills, "overrides", Type::NamedMappings("skill names"),
        Unset("each skill as its front matter describes it"),
        "Per skill: hide it, show it only to some hats or backends, or put its whole text \
         into the prompt.",
        Init::Block {
            example: EXAMPLE_SKILL_OVERRIDES,
            note: "A skill's `hats` and `backends` replace those of its front matter.",
        },
        Dump::SkillOverrides,
        Read::SkillOverrides),
    // skills.overrides.<name>
    key(SkillOverride, "enabled", Type::Bool, value(Value::Bool(true)),
        "`false` hides the skill from the prompt and from `ralph tools skill`.",
        Init::InExample,
        Dump::SkillOverride(|o| o.enabled.map(boolean)),
        Read::Own),
    key(SkillOverride, "hats", Type::Strings, Unset("the hats its front matter names, else all"),
        "Only these hats see the skill (a run without hats always does).",
        Init::InExample,
        Dump::SkillOverride(|o| (!o.hats.is_empty()).then(|| strings(&o.hats))),
        Read::Own),
    key(SkillOverride, "backends", Type::Strings,
        Unset("the backends its front matter names, else all"),
        "Only agents of these backends see the skill.",
        Init::InExample,
        Dump::SkillOverride(|o| (!o.backends.is_empty()).then(|| strings(&o.backends))),
        Read::Own),
    key(SkillOverride, "auto_inject", Type::Bool, value(Value::Bool(false)),
        "Put the skill's whole text into every prompt that shows it, instead of its index \
         line.",
        Init::InExample,
        Dump::SkillOverride(|o| o.auto_inject.map(boolean)),
        Read::Own),
];

use saphyr::Yaml;
