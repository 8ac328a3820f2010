use serde_json::json;

use super::*;

#[test]
fn the_model_and_streaming_come_from_the_path() {
    assert_eq!(
        model_and_stream("/v1beta/models/gemini-2.5-pro:streamGenerateContent"),
        ("gemini-2.5-pro".to_owned(), true)
    );
    assert_eq!(
        model_and_stream("/v1beta/models/gemini-2.5-flash:generateContent"),
        ("gemini-2.5-flash".to_owned(), false)
    );
}

#[test]
fn a_schema_becomes_a_value_that_ends_the_turn() {
    let schema = json!({"type": "OBJECT", "properties": {
        "reasoning": {"type": "STRING"},
        "next_speaker": {"type": "STRING", "enum": ["model", "user"]},
        "steps": {"type": "ARRAY"}, "done": {"type": "BOOLEAN"}, "n": {"type": "INTEGER"},
    }});
    let body = json!({"generationConfig": {"responseMimeType": "application/json",
                                               "responseJsonSchema": schema}});
    let answer: Value =
        serde_json::from_str(&json_side_answer(&body).expect("a JSON answer")).expect("JSON");
    assert_eq!(
        answer,
        json!({"reasoning": "mock", "next_speaker": "user", "steps": [], "done": false, "n": 0})
    );
    assert_eq!(json_side_answer(&json!({"contents": []})), None);
}

#[test]
fn function_responses_are_tool_results_and_model_turns_are_assistant_turns() {
    let body = json!({"contents": [
            {"role": "user", "parts": [{"text": "Run it."}, {"text": "[[scenario:x]]"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "run_shell_command", "args": {}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "run_shell_command",
                                                             "response": {"output": "hello"}}}]},
        ], "tools": [{"functionDeclarations": [{"name": "read_file"}, {"name": "run_shell_command"}]}]});
    let entries = entries(&body);
    assert_eq!(
        entries,
        [
            Entry::Prompt("Run it.\n[[scenario:x]]".to_owned()),
            Entry::Assistant,
            Entry::ToolResult("hello".to_owned()),
        ]
    );
    assert_eq!(tool_names(&body), ["read_file", "run_shell_command"]);
}
