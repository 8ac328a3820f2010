use serde_json::json;

use super::concrete_call;
use crate::turn::{Call, ReadArgs, ToolCall, WriteArgs};

fn names(names: &[&str]) -> Vec<String> {
    names.iter().map(|name| (*name).to_owned()).collect()
}

#[test]
fn shell_maps_onto_each_agents_shell_tool() {
    let call = Call::Shell("ralph emit build.done ok".to_owned());
    let cases = [
        (
            names(&["read", "bash", "edit", "write"]),
            json!(["bash", {"command": "ralph emit build.done ok"}]),
        ),
        (
            names(&["Agent", "Bash", "Read", "Write"]),
            json!(["Bash", {"command": "ralph emit build.done ok", "description": "Run the scripted command"}]),
        ),
        (
            names(&["exec_command", "write_stdin"]),
            json!(["exec_command", {"cmd": "ralph emit build.done ok"}]),
        ),
        (
            names(&["shell"]),
            json!(["shell", {"command": ["bash", "-lc", "ralph emit build.done ok"]}]),
        ),
        (
            names(&["my_shell_tool"]),
            json!(["my_shell_tool", {"command": "ralph emit build.done ok"}]),
        ),
        (
            names(&[]),
            json!(["bash", {"command": "ralph emit build.done ok"}]),
        ),
    ];
    for (offered, expected) in cases {
        let (name, args) = concrete_call(&call, &offered, None);
        assert_eq!(json!([name, args]), expected, "offered {offered:?}");
    }
}

#[test]
fn write_and_read_use_file_tools_with_absolute_paths_for_claude() {
    let write = Call::Write(WriteArgs {
        path: "notes.txt".to_owned(),
        content: "it's\n".to_owned(),
    });
    let read = Call::Read(ReadArgs {
        path: "notes.txt".to_owned(),
    });
    let pi = names(&["read", "bash", "write"]);
    let claude = names(&["Bash", "Read", "Write"]);
    let codex = names(&["exec_command"]);
    let got = json!([
        concrete_call(&write, &pi, Some("/w")),
        concrete_call(&read, &pi, Some("/w")),
        concrete_call(&write, &claude, Some("/w/")),
        concrete_call(&read, &claude, None),
        concrete_call(&write, &codex, Some("/w")),
        concrete_call(&read, &codex, Some("/w")),
    ]);
    let expected = json!([
        ["write", {"path": "notes.txt", "content": "it's\n"}],
        ["read", {"path": "notes.txt"}],
        ["Write", {"file_path": "/w/notes.txt", "content": "it's\n"}],
        ["Read", {"file_path": "notes.txt"}],
        ["exec_command", {"cmd": "mkdir -p \"$(dirname 'notes.txt')\" && printf '%s' 'it'\\''s\n' > 'notes.txt'"}],
        ["exec_command", {"cmd": "cat 'notes.txt'"}],
    ]);
    assert_eq!(got, expected);
}

#[test]
fn verbatim_tool_calls_pass_through() {
    let call = Call::Tool(ToolCall {
        name: "Agent".to_owned(),
        input: json!({"prompt": "sub task"}),
    });
    assert_eq!(
        concrete_call(&call, &names(&["Bash"]), None),
        ("Agent".to_owned(), json!({"prompt": "sub task"}))
    );
}
