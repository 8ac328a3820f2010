//! The built-in presets: ready-made hat workflows embedded in the binary, used whole by
//! `ralph init --preset NAME` or for their hats by `ralph run -H builtin:NAME`.
//!
//! Each preset is a `ralph.yml` fragment under `crates/ralph-core/presets/` holding
//! `event_loop` topology keys, `hats` and a commented `gates:` suggestion (a preset
//! cannot know a project's test command). docs/presets.md describes them.

use std::fmt;

use super::suggest::closest;

/// The prefix of `-H` that names a built-in preset instead of a file.
pub const BUILTIN_PREFIX: &str = "builtin:";

/// One built-in workflow.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Preset {
    /// What `--preset` and `builtin:` take.
    pub name: &'static str,
    /// One line for `ralph init --list-presets`.
    pub description: &'static str,
    /// The preset's YAML, comments included.
    pub text: &'static str,
}

macro_rules! preset {
    ($name:literal, $description:literal) => {
        Preset {
            name: $name,
            description: $description,
            text: include_str!(concat!("../../presets/", $name, ".yml")),
        }
    };
}

/// Every built-in preset, in the order `--list-presets` shows them.
pub static PRESETS: &[Preset] = &[
    preset!(
        "code-assist",
        "plan, build with tests, critic, finalize: from a rough description, a spec or a code task"
    ),
    preset!(
        "debug",
        "reproduce, find the root cause, fix with a regression test, verify"
    ),
    preset!(
        "review",
        "review a change and write confirmed findings with a verdict to REVIEW.md"
    ),
    preset!(
        "research",
        "answer a question or run a spike, and write a report with its evidence"
    ),
    preset!(
        "spec-driven",
        "write a spec with acceptance criteria, build to it, verify every criterion"
    ),
    preset!(
        "hatless-baseline",
        "one agent, no hats: the baseline to compare workflows against"
    ),
];

/// A built-in preset of ralph-orchestrator that ralph does not ship, and what to use
/// instead: its users meet these names in their scripts (`-H builtin:NAME`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IncumbentPreset {
    pub name: &'static str,
    /// What takes its place here (docs/presets.md says the same).
    pub instead: &'static str,
}

/// ralph-orchestrator's presets that ralph does not have under the same name.
pub static INCUMBENT_PRESETS: &[IncumbentPreset] = &[
    IncumbentPreset {
        name: "pdd-to-code-assist",
        instead: "`spec-driven` covers its ground (a spec with acceptance criteria, then the \
                  code)",
    },
    IncumbentPreset {
        name: "merge-loop",
        instead: "ralph merges a worktree loop with `ralph runs land` (no loop needed)",
    },
    IncumbentPreset {
        name: "autoresearch",
        instead: "ralph has none like it: copy its hats into a file and run with `-H FILE`",
    },
];

/// The preset called `name`.
pub fn preset(name: &str) -> Result<&'static Preset, UnknownPreset> {
    PRESETS.iter().find(|p| p.name == name).ok_or_else(|| {
        let incumbent = INCUMBENT_PRESETS.iter().find(|p| p.name == name);
        UnknownPreset {
            name: name.to_owned(),
            // A guess at a typo would only distract from the answer.
            suggestion: incumbent
                .is_none()
                .then(|| closest(name, PRESETS.iter().map(|p| p.name)))
                .flatten(),
            incumbent,
        }
    })
}

/// A preset name that is not built in.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UnknownPreset {
    /// The name asked for.
    pub name: String,
    /// The preset it most likely meant.
    pub suggestion: Option<&'static str>,
    /// The ralph-orchestrator preset of that name, which ralph does not ship.
    pub incumbent: Option<&'static IncumbentPreset>,
}

impl fmt::Display for UnknownPreset {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let names: Vec<&str> = PRESETS.iter().map(|p| p.name).collect();
        write!(f, "there is no built-in preset `{}`", self.name)?;
        if let Some(meant) = self.suggestion {
            write!(f, " (did you mean `{meant}`?)")?;
        }
        if let Some(incumbent) = self.incumbent {
            write!(
                f,
                ": that is a preset of ralph-orchestrator; {}",
                incumbent.instead
            )?;
        }
        write!(
            f,
            "; the presets are {} (`ralph init --list-presets` describes them)",
            names.join(", ")
        )
    }
}

impl std::error::Error for UnknownPreset {}
