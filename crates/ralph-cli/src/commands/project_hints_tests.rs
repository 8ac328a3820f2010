use std::fs;

use super::*;

fn project() -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    fs::create_dir(dir.path().join(".git")).expect(".git");
    fs::write(dir.path().join("ralph.yml"), "cli:\n  backend: pi\n").expect("ralph.yml");
    fs::create_dir_all(dir.path().join("src/deep")).expect("src/deep");
    dir
}

#[test]
fn the_project_file_above_is_found_up_to_the_top_of_the_checkout() {
    let root = project();
    assert_eq!(
        project_file_above(&root.path().join("src")),
        Some(PathBuf::from("../ralph.yml"))
    );
    assert_eq!(
        project_file_above(&root.path().join("src/deep")),
        Some(PathBuf::from("../../ralph.yml"))
    );
    // The nearest wins.
    fs::write(root.path().join("src/ralph.yml"), "").expect("src/ralph.yml");
    assert_eq!(
        project_file_above(&root.path().join("src/deep")),
        Some(PathBuf::from("../ralph.yml"))
    );
}

#[test]
fn nothing_above_the_edge_of_the_project_is_its_own() {
    let root = project();
    // The top of the checkout has nothing above it to find.
    fs::create_dir(root.path().join("src/.git")).expect("src/.git");
    assert_eq!(project_file_above(&root.path().join("src")), None);
    // A workspace of its own in between (it has run loops) is an edge too.
    fs::remove_dir(root.path().join("src/.git")).expect("rm src/.git");
    fs::create_dir(root.path().join("src/.ralph")).expect("src/.ralph");
    assert_eq!(project_file_above(&root.path().join("src/deep")), None);
    // A workspace's own `ralph.yml` is found at its edge.
    fs::write(root.path().join("src/ralph.yml"), "").expect("src/ralph.yml");
    assert_eq!(
        project_file_above(&root.path().join("src/deep")),
        Some(PathBuf::from("../ralph.yml"))
    );
    // No edge at all: no project to speak of.
    let loose = tempfile::tempdir().expect("tempdir");
    fs::write(loose.path().join("ralph.yml"), "").expect("ralph.yml");
    fs::create_dir(loose.path().join("sub")).expect("sub");
    // (Unless the machine's temporary directory lies in a checkout or a workspace.)
    let edge = loose
        .path()
        .ancestors()
        .any(|d| d.join(".git").exists() || d.join(".ralph").is_dir());
    if !edge {
        assert_eq!(project_file_above(&loose.path().join("sub")), None);
    }
}

#[test]
fn the_hint_names_the_file_and_both_ways_to_use_it() {
    let root = project();
    let hints = project_file_hints(&root.path().join("src"), None);
    assert_eq!(hints.len(), 1, "{hints:?}");
    assert!(
        hints[0].starts_with("../ralph.yml is the project's config")
            && hints[0].contains("built-in defaults apply here")
            && hints[0].contains("Run ralph from `..`, or pass `-c ../ralph.yml`"),
        "{}",
        hints[0]
    );
    // `-c`, or a ralph.yml here, is what the person chose: nothing to say.
    let given = Path::new("ci/ralph.yml");
    assert!(project_file_hints(&root.path().join("src"), Some(given)).is_empty());
    fs::write(root.path().join("src/ralph.yml"), "").expect("src/ralph.yml");
    assert!(project_file_hints(&root.path().join("src"), None).is_empty());
}

#[test]
fn a_misnamed_project_file_is_named_with_the_name_ralph_reads() {
    let root = project();
    let sub = root.path().join("src");
    fs::write(sub.join("ralph.yaml"), "cli:\n  backend: codex\n").expect("ralph.yaml");
    fs::write(sub.join(".ralph.yml"), "").expect(".ralph.yml");
    let hints = project_file_hints(&sub, None);
    assert_eq!(hints.len(), 3, "{hints:?}");
    assert_eq!(
        hints[0],
        "ralph.yaml: ralph does not read this file, it reads ralph.yml: the built-in \
         defaults apply here. Rename it to ralph.yml, or pass `-c ralph.yaml`"
    );
    assert!(
        hints[1].starts_with(".ralph.yml: ralph does not read"),
        "{}",
        hints[1]
    );
    assert!(
        hints[2].starts_with("../ralph.yml is the project's config"),
        "{}",
        hints[2]
    );
    // Beside a ralph.yml it is only another file.
    fs::write(sub.join("ralph.yml"), "").expect("ralph.yml");
    assert!(project_file_hints(&sub, None).is_empty());
}
