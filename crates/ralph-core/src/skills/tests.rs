use std::fs;

use super::front_matter::split;
use super::*;
use crate::config::{SkillOverride, SkillsConfig};

fn write(path: &std::path::Path, text: &str) {
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn front_matter_names_and_describes_a_skill() {
    let (front, body) = split(
        "---\nname: notes\ndescription: Write notes\nhats: [writer]\nbackends: pi\n---\nBody\n",
    )
    .unwrap();
    assert_eq!(front.name.as_deref(), Some("notes"));
    assert_eq!(front.description.as_deref(), Some("Write notes"));
    assert_eq!(front.hats, ["writer"]);
    assert_eq!(front.backends, ["pi"]);
    assert_eq!(body, "Body\n");
    let (none, body) = split("# Just text\n").unwrap();
    assert_eq!((none.name, body), (None, "# Just text\n"));
    assert!(
        split("---\nname: x\n")
            .unwrap_err()
            .contains("no closing `---`")
    );
    assert!(
        split("---\n[a, b]\n---\n")
            .unwrap_err()
            .contains("not a mapping")
    );
}

#[test]
fn finds_directories_and_single_files_and_applies_overrides() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("skills");
    write(
        &dir.join("notes/SKILL.md"),
        "---\nname: release-notes\ndescription: Notes\n---\nHow to.\n",
    );
    write(&dir.join("tidy.md"), "# Tidy\n\nKeep the tree tidy.\n");
    write(&dir.join("hidden/SKILL.md"), "---\nname: hidden\n---\nx\n");
    write(&dir.join("broken/SKILL.md"), "---\nname: broken\n");
    fs::create_dir_all(dir.join("empty")).unwrap();
    let config = SkillsConfig {
        enabled: true,
        dirs: vec!["skills".into(), "missing".into()],
        overrides: vec![
            SkillOverride {
                name: "hidden".into(),
                enabled: Some(false),
                ..SkillOverride::default()
            },
            SkillOverride {
                name: "tidy".into(),
                hats: vec!["builder".into()],
                auto_inject: Some(true),
                ..SkillOverride::default()
            },
        ],
    };
    let found = discover(tmp.path(), &config);
    let names: Vec<&str> = found.skills.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["release-notes", "tidy"]);
    let tidy = found.get("tidy").unwrap();
    assert_eq!(tidy.description, "Keep the tree tidy.");
    assert!(tidy.auto_inject);
    assert!(tidy.visible_to(None, Some("pi")) && tidy.visible_to(Some("builder"), None));
    assert!(!tidy.visible_to(Some("critic"), None));
    assert_eq!(found.problems.len(), 2, "{:?}", found.problems);
    assert!(
        found.problems[0].contains("broken/SKILL.md") && found.problems[0].contains("no closing")
    );
    assert!(found.problems[1].contains("`") && found.problems[1].contains("does not exist"));
    assert_eq!(
        found.get("release-notes").unwrap().loaded(),
        "<release-notes-skill>\nHow to.\n</release-notes-skill>\n"
    );
    let off = SkillsConfig {
        enabled: false,
        ..config
    };
    assert_eq!(discover(tmp.path(), &off), Found::default());
}

#[test]
fn a_skills_directory_under_ralph_follows_no_links() {
    let tmp = tempfile::tempdir().unwrap();
    let outside = tmp.path().join("outside");
    write(&outside.join("SKILL.md"), "---\nname: planted\n---\nx\n");
    fs::create_dir_all(tmp.path().join(".ralph/skills")).unwrap();
    std::os::unix::fs::symlink(&outside, tmp.path().join(".ralph/skills/planted")).unwrap();
    let config = SkillsConfig {
        dirs: vec![".ralph/skills".into()],
        ..SkillsConfig::default()
    };
    assert_eq!(discover(tmp.path(), &config).skills, []);
}

#[test]
fn names_must_be_typeable() {
    assert!(is_valid_name("release-notes"));
    for bad in [
        "",
        "two words",
        "a/b",
        "<x>",
        &"x".repeat(MAX_NAME_BYTES + 1),
    ] {
        assert!(!is_valid_name(bad), "{bad}");
    }
}

#[test]
fn front_matter_of_the_wrong_type_is_refused_naming_the_key() {
    let problem = |yaml: &str| split(&format!("---\n{yaml}\n---\nBody\n")).unwrap_err();
    assert_eq!(
        problem("hats: 5"),
        "its `hats` is a number (5), not a name or a list of names"
    );
    assert_eq!(
        problem("hats: [writer, {a: 1}]"),
        "its `hats[1]` is a mapping, not a name"
    );
    assert_eq!(
        problem("backends: ['']"),
        "its `backends[0]` is empty: give a name, or remove it"
    );
    assert_eq!(
        problem("hats: ' '"),
        "its `hats` is empty: give a name, or remove it"
    );
    assert_eq!(problem("name: [a, b]"), "its `name` is a list, not text");
    assert_eq!(
        problem("description: true"),
        "its `description` is `true`, not text"
    );
    // No value is no restriction, as no key is.
    let (front, _) = split("---\nname: x\nhats:\nbackends: []\n---\n").unwrap();
    assert_eq!((front.hats, front.backends), (vec![], vec![]));
}

#[test]
fn a_mistyped_restriction_leaves_the_skill_out_instead_of_showing_it_to_every_hat() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("skills/secret.md");
    write(&file, "---\nname: secret\nhats: 5\n---\nFor one hat.\n");
    let config = SkillsConfig {
        dirs: vec!["skills".into()],
        ..SkillsConfig::default()
    };
    let found = discover(tmp.path(), &config);
    assert_eq!(found.skills, []);
    assert_eq!(
        found.problems,
        [format!(
            "the skill `{}` is left out: its `hats` is a number (5), not a name or a list of \
             names; fix its front matter",
            file.display()
        )]
    );
}

#[test]
fn a_second_skill_of_one_name_is_reported_naming_both_files_and_the_one_used() {
    let tmp = tempfile::tempdir().unwrap();
    let first = tmp.path().join("a/notes.md");
    let second = tmp.path().join("b/other/SKILL.md");
    write(&first, "---\nname: notes\n---\nFirst.\n");
    write(&second, "---\nname: notes\n---\nSecond.\n");
    let config = SkillsConfig {
        dirs: vec!["a".into(), "b".into()],
        ..SkillsConfig::default()
    };
    let found = discover(tmp.path(), &config);
    assert_eq!(found.get("notes").unwrap().path, second);
    assert_eq!(found.skills.len(), 1);
    assert_eq!(
        found.problems,
        [format!(
            "the skills `{}` and `{}` are both named `notes`: `{}` is used and the other left \
             out (the one read last wins: `skills.dirs` in order, each directory's files by \
             name); give one of them another `name:`",
            first.display(),
            second.display(),
            second.display()
        )]
    );
}
