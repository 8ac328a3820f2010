//! The script file format: both shapes, JSON and YAML, and the errors a broken script gives.

use std::path::Path;

use ralph_test_support::{
    Call, Fault, FaultKind, MockError, ReadArgs, Script, Stop, ToolCall, Turn, UsageOverride,
    WriteArgs,
};
use serde_json::json;

fn scripts_dir() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts")
}

#[test]
fn a_bare_json_list_is_one_default_scenario() {
    let script = Script::load(&scripts_dir().join("emit.json")).unwrap();
    let expected = Script::from_turns(vec![
        Turn::shell("ralph emit build.done \"ok\""),
        Turn::text("Done."),
    ]);
    assert_eq!(script, expected);
}

#[test]
fn every_turn_field_parses_from_yaml() {
    let yaml = r#"
default: all
side_text: side
scenarios:
  all:
    - thinking: hm
      text: hi
      calls:
        - shell: ls
        - write: {path: a.txt, content: "x\n"}
        - read: {path: a.txt}
        - tool: {name: Agent, input: {prompt: sub}}
      stop: length
      deltas: 3
      arg_chunk_chars: 4
      delay_ms: 5
      chunk_bytes: 6
      usage: {input: 7, output: 8, cache_read: 9, cache_write: 10}
      fault: {http: 429, times: 2, retry_after: 1, retry_after_ms: 11, should_retry: true, message: m}
    - fault: {drop_after: 3}
    - fault: {sse_error_after: 0, times: 1}
routes:
  - contains: "[[iteration:2]]"
    scenario: tool
"#;
    let script = Script::parse_yaml(yaml).unwrap();
    let first = Turn {
        thinking: Some("hm".to_owned()),
        text: Some("hi".to_owned()),
        calls: vec![
            Call::Shell("ls".to_owned()),
            Call::Write(WriteArgs {
                path: "a.txt".to_owned(),
                content: "x\n".to_owned(),
            }),
            Call::Read(ReadArgs {
                path: "a.txt".to_owned(),
            }),
            Call::Tool(ToolCall {
                name: "Agent".to_owned(),
                input: json!({"prompt": "sub"}),
            }),
        ],
        stop: Some(Stop::Length),
        deltas: Some(3),
        arg_chunk_chars: Some(4),
        delay_ms: Some(5),
        chunk_bytes: Some(6),
        usage: Some(UsageOverride {
            input: Some(7),
            output: Some(8),
            cache_read: Some(9),
            cache_write: Some(10),
        }),
        fault: Some(Fault {
            kind: FaultKind::Http {
                status: 429,
                retry_after_s: Some(1),
                retry_after_ms: Some(11),
                should_retry: Some(true),
                limit_reset_s: None,
            },
            times: Some(2),
            message: Some("m".to_owned()),
        }),
        ..Turn::default()
    };
    let expected = Script {
        default: Some("all".to_owned()),
        side_text: Some("side".to_owned()),
        ..Script::builtin(ralph_test_support::Builtin::Tool)
    }
    .with_scenario(
        "all",
        vec![
            first,
            Turn::default().with_fault(Fault::drop_after(3)),
            Turn::default().with_fault(Fault::sse_error_after(0).times(1)),
        ],
    )
    .with_route("[[iteration:2]]", "tool");
    assert_eq!(script, expected);
}

#[test]
fn a_script_survives_a_json_round_trip() {
    let script = Script::load(&scripts_dir().join("hats.yaml")).unwrap();
    let json = serde_json::to_string(&script).unwrap();
    assert_eq!(Script::parse_json(&json).unwrap(), script);
}

#[test]
fn broken_scripts_say_what_is_wrong() {
    let messages: Vec<String> = [
        Script::parse_yaml("scenarios:\n  a:\n    - txt: typo\n"),
        Script::parse_json(r#"{"default": "missing", "scenarios": {"a": [{"text": "x"}]}}"#),
        Script::parse_json(r#"{"routes": [{"contains": "x", "scenario": "nope"}]}"#),
        Script::parse_json(r#"{"scenarios": {"a": []}}"#),
        Script::parse_json(r#"[{"fault": {"http": 500, "drop_after": 1}}]"#),
        Script::parse_json(r#"[{"fault": {"drop_after": 1, "retry_after": 2}}]"#),
    ]
    .into_iter()
    .map(|result| result.unwrap_err().to_string())
    .collect();
    let checks = [
        messages[0].contains("unknown field `txt`"),
        messages[1].contains("default names scenario `missing`"),
        messages[2].contains("routes[0] names scenario `nope`"),
        messages[3].contains("scenario `a` has no turns"),
        messages[4].contains("exactly one of `http: STATUS`"),
        messages[5].contains("only go with `http`"),
    ];
    assert_eq!(checks, [true; 6], "{messages:#?}");
}

#[test]
fn a_script_file_needs_a_known_extension() {
    let error = Script::load(Path::new("script.txt")).unwrap_err();
    assert!(
        matches!(error, MockError::ReadScript { .. }),
        "a missing file is a read error: {error}"
    );
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("script.toml");
    std::fs::write(&path, "x").unwrap();
    let error = Script::load(&path).unwrap_err();
    assert_eq!(
        error.to_string(),
        format!(
            "mock script {} must end in .json, .yaml or .yml so its format is known",
            path.display()
        )
    );
}
