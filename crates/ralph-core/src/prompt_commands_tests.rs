use super::spelled_for;
use crate::prompt::{RALPH_BY_NAME, RALPH_BY_PATH_VAR};

fn codex(text: &str) -> String {
    spelled_for(text, RALPH_BY_PATH_VAR).into_owned()
}

#[test]
fn the_agents_commands_are_spelled_through_ralph_bin() {
    assert_eq!(
        codex("`ralph tools memory search <symptom>` may know it; `ralph tools task add` each"),
        "`\"$RALPH_BIN\" tools memory search <symptom>` may know it; \
         `\"$RALPH_BIN\" tools task add` each"
    );
    assert_eq!(
        codex("ralph emit LOOP_COMPLETE\n(ralph events lists them)"),
        "\"$RALPH_BIN\" emit LOOP_COMPLETE\n(\"$RALPH_BIN\" events lists them)"
    );
    assert_eq!(
        codex("x && ralph emit done"),
        "x && \"$RALPH_BIN\" emit done"
    );
}

#[test]
fn other_words_and_paths_stay_as_written() {
    for text in [
        "ralph runs the gate, then ralph-orchestrator's hats",
        "ralph emits nothing here; ralph tools-x is no command",
        "./ralph emit x and /opt/bin/ralph tools task add y",
        "\"ralph emit x\" inside quotes, and $ralph emit",
        "`\"$RALPH_BIN\" emit x` is spelled already",
        "ralph",
        "",
    ] {
        assert_eq!(codex(text), text);
    }
}

#[test]
fn an_agent_that_finds_ralph_on_path_gets_the_text_as_it_is() {
    let text = "`ralph tools task add`";
    assert!(matches!(
        spelled_for(text, RALPH_BY_NAME),
        std::borrow::Cow::Borrowed(t) if t == text
    ));
}
