//! Where config files are found and how they are read: `-c`, the user file under
//! `$XDG_CONFIG_HOME` or the home directory, ralph-orchestrator's user file, files that
//! are not UTF-8 or are links to nothing, and the warnings each layer gives.

mod support;

use std::fs;
use std::path::{Path, PathBuf};

use ralph_core::config::{AgentBackend, LoadOptions, Overrides, load, user_config_path};
use support::dirs::Dirs;
use support::rendered;

#[test]
fn explicit_config_file_must_exist() {
    let dirs = Dirs::new();
    dirs.file("ralph.yml", "cli:\n  backend: pi\n");
    assert_eq!(
        dirs.load_errors(Some("ralph.ci.yml"), Overrides::default()),
        ["ralph.ci.yml: cannot read this config file: No such file or directory (os error 2)"]
    );
}

#[test]
fn a_config_that_is_not_utf8_is_pointed_at_line_and_column() {
    let dirs = Dirs::new();
    fs::write(
        dirs.work.path().join("ralph.yml"),
        b"cli:\n  backend: pi\n  args: [\"\xc3\xa9\xff\"]\n",
    )
    .expect("write");
    assert_eq!(
        dirs.load_errors(None, Overrides::default()),
        [
            "ralph.yml:3:12: the file is not UTF-8 text: byte 0xFF here begins no UTF-8 \
          character; save the file as UTF-8"
        ]
    );
}

#[test]
fn a_config_linked_to_nothing_is_an_error_not_a_missing_file() {
    let dirs = Dirs::new();
    std::os::unix::fs::symlink("gone.yml", dirs.work.path().join("ralph.yml")).expect("link");
    assert_eq!(
        dirs.load_errors(None, Overrides::default()),
        [
            "ralph.yml: cannot read this config file: it is a symbolic link to `gone.yml`, which \
          does not exist; fix or remove the link"
        ]
    );
    fs::create_dir_all(dirs.user_config_path().parent().expect("dir")).expect("mkdir");
    std::os::unix::fs::symlink("/nonexistent/ralph.yml", dirs.user_config_path()).expect("link");
    fs::remove_file(dirs.work.path().join("ralph.yml")).expect("rm");
    let errors = dirs.load_errors(None, Overrides::default());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].ends_with("is a symbolic link to `/nonexistent/ralph.yml`, which does not exist; fix or remove the link"),
        "{errors:?}"
    );
}

#[test]
fn explicit_config_file_replaces_ralph_yml() {
    let dirs = Dirs::new();
    dirs.file("ralph.yml", "event_loop:\n  max_iterations: 7\n")
        .file("ci/ralph.yml", "event_loop:\n  max_iterations: 3\n");
    let resolved = load(&dirs.options(Some("ci/ralph.yml"), Overrides::default()))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        (
            resolved.config.event_loop.max_iterations,
            resolved.config.sources
        ),
        (3, vec![PathBuf::from("ci/ralph.yml")])
    );
}

#[test]
fn user_config_lives_under_xdg_config_home_or_home() {
    let cases = [
        (Some("/xdg"), Some("/home/u"), Some("/xdg/ralph/config.yml")),
        (
            Some("relative/xdg"),
            Some("/home/u"),
            Some("/home/u/.config/ralph/config.yml"),
        ),
        (
            Some(""),
            Some("/home/u"),
            Some("/home/u/.config/ralph/config.yml"),
        ),
        (
            None,
            Some("/home/u"),
            Some("/home/u/.config/ralph/config.yml"),
        ),
        (None, None, None),
        (None, Some(""), None),
    ];
    let got: Vec<_> = cases
        .iter()
        .map(|(xdg, home, _)| user_config_path(xdg.map(Path::new), home.map(Path::new)))
        .collect();
    let expected: Vec<_> = cases
        .iter()
        .map(|(_, _, want)| want.map(PathBuf::from))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn xdg_config_home_is_honoured_by_load() {
    let dirs = Dirs::new();
    let xdg = tempfile::tempdir().expect("xdg");
    fs::create_dir_all(xdg.path().join("ralph")).expect("mkdir");
    fs::write(
        xdg.path().join("ralph/config.yml"),
        "event_loop:\n  max_iterations: 42\n",
    )
    .expect("write");
    let options = LoadOptions {
        xdg_config_home: Some(xdg.path().as_os_str().to_owned()),
        ..dirs.options(None, Overrides::default())
    };
    let resolved = load(&options).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(resolved.config.event_loop.max_iterations, 42);
}

#[test]
fn upstream_user_config_is_pointed_out_not_read() {
    let dirs = Dirs::new();
    fs::create_dir_all(dirs.home.path().join(".ralph")).expect("mkdir");
    fs::write(
        dirs.home.path().join(".ralph/config.yml"),
        "cli:\n  backend: pi\n",
    )
    .expect("write");
    let resolved = dirs.load(Overrides::default());
    assert_eq!(resolved.config.agent.backend, AgentBackend::Auto);
    assert_eq!(
        rendered(&resolved.warnings),
        [format!(
            "{}: this is ralph-orchestrator's user config, which ralph does not read: move the \
             settings you need to {}",
            dirs.home.path().join(".ralph/config.yml").display(),
            dirs.user_config_path().display()
        )]
    );
}

#[test]
fn warnings_of_every_layer_are_returned() {
    let dirs = Dirs::new();
    dirs.user_config("tui:\n  prefix_key: ctrl-b\n")
        .file("ralph.yml", "cli:\n  backend: claude\n  prompt_flag: -p\n");
    assert_eq!(
        rendered(&dirs.load(Overrides::default()).warnings),
        [
            format!(
                "{}:1:1: `tui` is not supported by ralph (yet) and is ignored: the keys of ralph's \
                 full-screen view (`ralph run --tui`, `ralph watch`) are fixed",
                dirs.user_config_path().display()
            ),
            "ralph.yml:3:16: `cli.prompt_flag` only applies to the custom backend and is \
             ignored: `claude` receives its prompt and writes its output its own way"
                .to_owned(),
        ]
    );
}

/// `fallback` is read only under `on_rate_limit: failover`, which may come from another
/// layer: the warning is about the layers as merged, at the list's place.
#[test]
fn a_fallback_no_layer_fails_over_to_is_a_warning_at_the_list() {
    let dirs = Dirs::new();
    dirs.file("ralph.yml", "cli:\n  backend: pi\n  fallback: [claude]\n");
    assert_eq!(
        rendered(&dirs.load(Overrides::default()).warnings),
        [
            "ralph.yml:3:13: `cli.fallback` is never used: only `on_rate_limit: failover` runs a \
          fallback backend, and `cli.on_rate_limit` is `wait` here. Set it to `failover` to \
          switch agents on a rate limit, or remove the list"
        ]
    );
    dirs.user_config("cli:\n  on_rate_limit: failover\n");
    assert_eq!(
        rendered(&dirs.load(Overrides::default()).warnings),
        Vec::<String>::new()
    );
}
