//! Finding a workspace's skills: each `NAME/SKILL.md` and `NAME.md` in the configured
//! directories, read through [`crate::fsafe`] (a directory under `.ralph/` follows no
//! links; one the user named, such as `.claude/skills`, may be a link), each file
//! bounded. A skill that cannot be read is reported and left out, never fatal.

use std::collections::BTreeMap;
use std::io;
use std::path::{Component, Path, PathBuf};

use super::front_matter::split;
use super::{Skill, is_valid_name};
use crate::config::SkillsConfig;
use crate::fsafe::{self, Links};
use crate::store::RALPH_DIR;

/// The file that makes a directory a skill.
pub const SKILL_FILE: &str = "SKILL.md";
/// The most of a skill file ralph reads: instructions, not a data set.
pub const MAX_SKILL_FILE_BYTES: u64 = 256 * 1024;
/// The most entries of one skills directory ralph looks at, so a huge directory named
/// by mistake cannot stall every command and iteration.
pub const MAX_DIR_ENTRIES: usize = 1000;

/// The skills found, and what could not be read.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Found {
    /// By name; when two files give one name, the one read last wins (the later
    /// directory of `skills.dirs`, else the later file name), and a problem says so.
    pub skills: Vec<Skill>,
    /// One sentence each: which file, what is wrong, what to do.
    pub problems: Vec<String>,
}

impl Found {
    /// The skill called `name`.
    pub fn get(&self, name: &str) -> Option<&Skill> {
        self.skills.iter().find(|s| s.name == name)
    }
}

/// The skills of `workspace` as `config` describes them (none when disabled).
pub fn discover(workspace: &Path, config: &SkillsConfig) -> Found {
    let mut found = Found::default();
    if !config.enabled {
        return found;
    }
    let mut by_name: BTreeMap<String, Skill> = BTreeMap::new();
    for dir in &config.dirs {
        let dir = workspace.join(dir);
        for (path, fallback) in candidates(&dir, &mut found.problems) {
            match read_skill(&path, &fallback) {
                Ok(Some(skill)) => {
                    let (name, path) = (skill.name.clone(), skill.path.clone());
                    if let Some(earlier) = by_name.insert(name.clone(), skill) {
                        found.problems.push(duplicate(&name, &earlier.path, &path));
                    }
                }
                Ok(None) => {}
                Err(problem) => found.problems.push(problem),
            }
        }
    }
    for (name, mut skill) in by_name {
        if let Some(o) = config.override_for(&name) {
            if o.enabled == Some(false) {
                continue;
            }
            if !o.hats.is_empty() {
                skill.hats.clone_from(&o.hats);
            }
            if !o.backends.is_empty() {
                skill.backends.clone_from(&o.backends);
            }
            skill.auto_inject = o.auto_inject.unwrap_or(skill.auto_inject);
        }
        found.skills.push(skill);
    }
    found
}

/// What a second skill of one name is told: which file is used, which is left out.
fn duplicate(name: &str, earlier: &Path, later: &Path) -> String {
    format!(
        "the skills `{}` and `{}` are both named `{name}`: `{}` is used and the other left \
         out (the one read last wins: `skills.dirs` in order, each directory's files by \
         name); give one of them another `name:`",
        earlier.display(),
        later.display(),
        later.display()
    )
}

/// Whether links are followed under `path`: not under `.ralph/`, whose content an agent
/// or a cloned repository controls.
fn links_for(path: &Path) -> Links {
    if path
        .components()
        .any(|c| c == Component::Normal(RALPH_DIR.as_ref()))
    {
        Links::Refuse
    } else {
        Links::Follow
    }
}

/// The skill files of `dir` with the name each has without front matter, in name order.
fn candidates(dir: &Path, problems: &mut Vec<String>) -> Vec<(PathBuf, String)> {
    let links = links_for(dir);
    let check = match links {
        Links::Refuse => {
            fsafe::check_ralph_dirs(&dir.join(SKILL_FILE)).and_then(|()| fsafe::check_dir(dir))
        }
        Links::Follow => Ok(()),
    };
    let entries = check.and_then(|()| std::fs::read_dir(dir));
    let entries = match entries {
        Ok(entries) => entries,
        Err(e) => {
            let why = if e.kind() == io::ErrorKind::NotFound {
                "does not exist".to_owned()
            } else {
                format!("cannot be read ({e})")
            };
            problems.push(format!(
                "the skills directory `{}` {why}; create it or remove it from `skills.dirs`",
                dir.display()
            ));
            return Vec::new();
        }
    };
    let mut out: Vec<(PathBuf, String)> = Vec::new();
    for entry in entries.flatten().take(MAX_DIR_ENTRIES) {
        let path = entry.path();
        let Some(name) = path.file_name().and_then(|n| n.to_str()).map(str::to_owned) else {
            continue;
        };
        let meta = match links {
            Links::Follow => std::fs::metadata(&path),
            Links::Refuse => std::fs::symlink_metadata(&path),
        };
        let Ok(meta) = meta else { continue };
        if meta.is_dir() {
            out.push((path.join(SKILL_FILE), name));
        } else if meta.is_file()
            && let Some(stem) = name.strip_suffix(".md")
        {
            out.push((path.clone(), stem.to_owned()));
        }
    }
    out.sort();
    out
}

/// The skill in the file at `path`; `None` when a directory has no `SKILL.md`.
fn read_skill(path: &Path, fallback: &str) -> Result<Option<Skill>, String> {
    let text =
        match fsafe::read_to_string(path, links_for(path), MAX_SKILL_FILE_BYTES, "a skill file") {
            Ok(text) => text,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => {
                return Err(format!(
                    "the skill `{}` cannot be read: {e}",
                    path.display()
                ));
            }
        };
    let (front, body) = split(&text).map_err(|why| {
        format!(
            "the skill `{}` is left out: {why}; fix its front matter",
            path.display()
        )
    })?;
    let name = match front.name {
        Some(name) if is_valid_name(&name) => name,
        Some(name) => {
            return Err(format!(
                "the skill `{}` is left out: its name `{name}` has blanks, `/`, `<`, `>` or \
                 is longer than {} bytes; give it a name that can be typed after `ralph tools \
                 skill load`",
                path.display(),
                super::MAX_NAME_BYTES
            ));
        }
        None if is_valid_name(fallback) => fallback.to_owned(),
        None => {
            return Err(format!(
                "the skill `{}` is left out: it has no `name:` in its front matter and its \
                 file name is no usable name; add a `name:`",
                path.display()
            ));
        }
    };
    let description = front
        .description
        .as_deref()
        .or_else(|| {
            body.lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
        })
        .unwrap_or("")
        .to_owned();
    Ok(Some(Skill {
        name,
        description,
        body: body.to_owned(),
        path: path.to_path_buf(),
        hats: front.hats,
        backends: front.backends,
        auto_inject: false,
    }))
}
