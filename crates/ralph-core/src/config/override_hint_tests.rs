use pretty_assertions::assert_eq;

use super::*;

/// The YAML the hint for `-c ARG` gives.
fn hint(arg: &str) -> String {
    let e = io::Error::new(io::ErrorKind::NotFound, "gone");
    let hint = with_override_hint(e, Path::new(arg)).to_string();
    let (_, yaml) = hint.split_once(", write ").expect("a hint");
    yaml.trim_end_matches(" in ralph.yml (or in the file you pass with -c)")
        .to_owned()
}

#[test]
fn the_yaml_of_the_hint_reads_back_as_the_value_given() {
    assert_eq!(
        hint("core.scratchpad=notes.md"),
        "`scratchpad: notes.md` under `core:`"
    );
    assert_eq!(
        hint("event_loop.prompt=Fix: the tests"),
        "`prompt: \"Fix: the tests\"` under `event_loop:`"
    );
    assert_eq!(
        hint("hats.builder.instructions=# do it"),
        "`instructions: \"# do it\"` under `hats.builder:`"
    );
    assert_eq!(hint("cli.backend=pi"), "`backend: pi` under `cli:`");
    assert_eq!(hint("x=-1"), "`x: \"-1\"`");
}

#[test]
fn a_version_1_key_is_set_where_it_moved() {
    assert_eq!(
        hint("max_iterations=5"),
        "`max_iterations: 5` under `event_loop:`"
    );
    assert_eq!(
        hint("max_runtime=60"),
        "`max_runtime_seconds: 60` under `event_loop:`"
    );
    assert_eq!(hint("agent=claude"), "`backend: claude` under `cli:`");
}

#[test]
fn only_a_missing_file_of_the_override_form_gets_the_hint() {
    let denied = io::Error::new(io::ErrorKind::PermissionDenied, "no");
    assert_eq!(
        with_override_hint(denied, Path::new("a=b")).to_string(),
        "no"
    );
    let gone = io::Error::new(io::ErrorKind::NotFound, "gone");
    assert_eq!(
        with_override_hint(gone, Path::new("dir/a=b")).to_string(),
        "gone"
    );
}
