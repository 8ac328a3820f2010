use std::io;
use std::path::Path;

use super::{with_config_hint, with_hats_hint};
use crate::config::incumbent_presets::PresetDirs;

fn gone() -> io::Error {
    io::Error::new(io::ErrorKind::NotFound, "No such file or directory")
}

fn config(arg: &str) -> String {
    with_config_hint(gone(), Path::new(arg)).to_string()
}

/// The hint for `-H arg` in `cwd`, with no user preset directories.
fn hats(arg: &str, cwd: &Path) -> String {
    with_hats_hint(gone(), Path::new(arg), &in_project(cwd)).to_string()
}

fn in_project(cwd: &Path) -> PresetDirs<'_> {
    PresetDirs {
        cwd,
        xdg_config_home: None,
        home: None,
        from_variables: &[],
    }
}

#[test]
fn a_url_is_told_to_be_downloaded_for_c_and_h() {
    let cwd = tempfile::tempdir().unwrap();
    for text in [
        config("https://example.com/ralph.yml"),
        hats("HTTP://example.com/x.yml", cwd.path()),
    ] {
        assert!(text.starts_with("No such file or directory; "), "{text}");
        assert!(text.contains("downloads nothing"), "{text}");
        assert!(text.contains("pass its path"), "{text}");
    }
}

#[test]
fn c_builtin_points_at_h_builtin() {
    let text = config("builtin:code-assist");
    assert!(text.contains("`-H builtin:code-assist`"), "{text}");
    assert!(text.contains("`ralph init --preset code-assist`"), "{text}");
}

#[test]
fn a_name_in_the_presets_directory_is_given_its_path() {
    let cwd = tempfile::tempdir().unwrap();
    std::fs::create_dir(cwd.path().join("presets")).unwrap();
    std::fs::write(cwd.path().join("presets/mine.yaml"), "hats: {}\n").unwrap();
    let text = hats("mine", cwd.path());
    assert!(
        text.contains("does not search preset directories"),
        "{text}"
    );
    assert!(text.contains("`-H presets/mine.yaml`"), "{text}");
}

#[test]
fn a_bare_name_found_nowhere_gets_the_preset_names() {
    let cwd = tempfile::tempdir().unwrap();
    let text = hats("mine", cwd.path());
    assert!(text.contains("`builtin:NAME`"), "{text}");
    assert!(text.contains("code-assist, debug"), "{text}");
    assert!(text.contains("`ralph init --list-presets`"), "{text}");
    assert!(hats("debug", cwd.path()).contains("`-H builtin:debug`"));
}

#[test]
fn a_path_or_another_error_is_left_as_it_is() {
    let cwd = tempfile::tempdir().unwrap();
    assert_eq!(
        hats("hats/mine.yml", cwd.path()),
        "No such file or directory"
    );
    assert_eq!(config("ci/ralph.yml"), "No such file or directory");
    let denied = io::Error::new(io::ErrorKind::PermissionDenied, "denied");
    assert_eq!(
        with_hats_hint(denied, Path::new("https://x"), &in_project(cwd.path())).to_string(),
        "denied"
    );
}

#[test]
fn a_name_in_a_users_preset_directory_is_given_its_path() {
    let cwd = tempfile::tempdir().unwrap();
    let home = tempfile::tempdir().unwrap();
    let dir = home.path().join(".config/ralph/presets");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("mine.yml"), "hats: {}\n").unwrap();
    let home_var = home.path().as_os_str().to_owned();
    let dirs = PresetDirs {
        home: Some(&home_var),
        ..in_project(cwd.path())
    };
    let text = with_hats_hint(gone(), Path::new("mine"), &dirs).to_string();
    assert!(
        text.contains(&format!("`-H {}`", dir.join("mine.yml").display())),
        "{text}"
    );
}

#[test]
fn an_autoloop_preset_directory_is_named_as_one_ralph_does_not_read() {
    let cwd = tempfile::tempdir().unwrap();
    let dir = cwd.path().join("presets/autocode");
    std::fs::create_dir_all(&dir).unwrap();
    for file in ["autoloops.toml", "topology.toml"] {
        std::fs::write(dir.join(file), "").unwrap();
    }
    let text = hats("autocode", cwd.path());
    assert!(
        text.contains("presets/autocode is an autoloop preset (autoloops.toml and topology.toml)"),
        "{text}"
    );
    assert!(text.contains("-H takes a YAML hats file"), "{text}");
}

/// The words of the command the hint `text` suggests in backquotes after `lead`, as a
/// POSIX shell would split them.
fn suggested(text: &str, lead: &str) -> Vec<String> {
    let from = text
        .find(lead)
        .unwrap_or_else(|| panic!("no {lead} in {text}"))
        + lead.len();
    let end = from + text[from..].find('`').unwrap();
    shlex::split(&text[from..end]).unwrap_or_else(|| panic!("not a shell line: {text}"))
}

#[test]
fn a_suggested_path_with_a_space_or_a_quote_pastes_as_one_word() {
    for dir_name in ["my presets", "it's \"here\" $HOME"] {
        let cwd = tempfile::tempdir().unwrap();
        let home = cwd.path().join(dir_name);
        let dir = home.join(".config/ralph/presets");
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("mine.yml"), "hats: {}\n").unwrap();
        let home_var = home.as_os_str().to_owned();
        let dirs = PresetDirs {
            home: Some(&home_var),
            ..in_project(cwd.path())
        };
        let text = with_hats_hint(gone(), Path::new("mine"), &dirs).to_string();
        let file = dir.join("mine.yml").display().to_string();
        assert_eq!(suggested(&text, "`-H "), vec![file], "{text}");
    }
    let text = config("builtin:my preset");
    assert_eq!(
        suggested(&text, "`-H "),
        vec!["builtin:my preset"],
        "{text}"
    );
    assert_eq!(
        suggested(&text, "`ralph init --preset "),
        vec!["my preset"],
        "{text}"
    );
}
