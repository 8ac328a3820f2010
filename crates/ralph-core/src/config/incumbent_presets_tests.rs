use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{FoundPreset, PresetDirs};

fn write(path: &Path) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, "hats: {}\n").unwrap();
}

#[test]
fn each_directory_the_incumbent_searched_is_searched_in_its_order() {
    let root = tempfile::tempdir().unwrap();
    let cwd = root.path().join("project");
    let xdg = root.path().join("xdg");
    let home = root.path().join("home");
    let from_variable = root.path().join("mine");
    std::fs::create_dir_all(&cwd).unwrap();
    let (xdg_var, home_var) = (OsString::from(&xdg), OsString::from(&home));
    let variables = [from_variable.clone()];
    let dirs = PresetDirs {
        cwd: &cwd,
        xdg_config_home: Some(&xdg_var),
        home: Some(&home_var),
        from_variables: &variables,
    };
    assert_eq!(dirs.find("p"), None);
    // Each is found where it is alone; the earlier one wins where two are.
    let places = [
        from_variable.join("p.yml"),
        home.join(".config/autoloop/presets/p.yaml"),
        home.join(".config/ralph/presets/p.yml"),
        xdg.join("ralph/presets/p.yml"),
    ];
    for file in &places {
        write(file);
        assert_eq!(dirs.find("p"), Some(FoundPreset::Yaml(file.clone())));
    }
    // The project's comes first, and is shown from where ralph runs.
    write(&cwd.join("presets/p.yaml"));
    assert_eq!(
        dirs.find("p"),
        Some(FoundPreset::Yaml(PathBuf::from("presets/p.yaml")))
    );
}

#[test]
fn a_directory_is_a_preset_only_with_both_toml_files_and_unset_variables_are_skipped() {
    let cwd = tempfile::tempdir().unwrap();
    let empty = OsString::new();
    let dirs = PresetDirs {
        cwd: cwd.path(),
        xdg_config_home: Some(&empty),
        home: None,
        from_variables: &[],
    };
    let preset = cwd.path().join("presets/auto");
    std::fs::create_dir_all(&preset).unwrap();
    std::fs::write(preset.join("autoloops.toml"), "").unwrap();
    assert_eq!(dirs.find("auto"), None, "half an autoloop preset is none");
    std::fs::write(preset.join("topology.toml"), "").unwrap();
    assert_eq!(
        dirs.find("auto"),
        Some(FoundPreset::TomlDirectory(PathBuf::from("presets/auto")))
    );
}
