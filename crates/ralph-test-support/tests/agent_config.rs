//! The agent configuration helpers: pi's agent dir and Claude Code's environment.

use ralph_test_support::{
    ClaudeOptions, ClaudeSetup, PiOptions, PiProvider, PiSetup, pi_models_json,
};
use serde_json::{Value, json};

fn read_json(path: &std::path::Path) -> Value {
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

#[test]
fn pi_setup_writes_models_settings_and_an_isolated_home() {
    let root = tempfile::tempdir().unwrap();
    let options = PiOptions {
        provider: PiProvider::AnthropicMessages,
        provider_max_retries: Some(0),
        ..PiOptions::default()
    };
    let setup = PiSetup::write(root.path(), "http://127.0.0.1:9", &options).unwrap();
    assert_eq!(
        (setup.home.is_dir(), setup.agent_dir.clone()),
        (true, root.path().join("pi-agent"))
    );
    assert_eq!(
        read_json(&setup.agent_dir.join("settings.json")),
        json!({"defaultProvider": "mock-anthropic", "defaultModel": "mock-model",
               "quietStartup": true, "enableInstallTelemetry": false,
               "retry": {"enabled": true, "maxRetries": 3, "baseDelayMs": 10,
                         "provider": {"maxRetries": 0}}})
    );
    let models = read_json(&setup.agent_dir.join("models.json"));
    assert_eq!(models, pi_models_json("http://127.0.0.1:9"));
    let summary = |provider: &str| {
        let p = &models["providers"][provider];
        let first_two: Vec<Value> = p["models"].as_array().unwrap()[..2]
            .iter()
            .map(|m| json!([m["id"], m["cost"]]))
            .collect();
        json!([p["baseUrl"], p["api"], first_two])
    };
    let priced = json!({"input": 3.0, "output": 15.0, "cacheRead": 0.3, "cacheWrite": 3.75});
    let free = json!({"input": 0.0, "output": 0.0, "cacheRead": 0.0, "cacheWrite": 0.0});
    assert_eq!(
        [summary("mock"), summary("mock-anthropic")],
        [
            json!([
                "http://127.0.0.1:9/v1",
                "openai-completions",
                [["mock-model", priced], ["mock-free", free]]
            ]),
            json!([
                "http://127.0.0.1:9",
                "anthropic-messages",
                [["mock-model", priced], ["mock-free", free]]
            ]),
        ]
    );
    let env: Vec<(String, String)> = setup.env();
    let home = setup.home.display().to_string();
    let agent_dir = setup.agent_dir.display().to_string();
    let expected: Vec<(String, String)> = [
        ("HOME", home.as_str()),
        ("PI_CODING_AGENT_DIR", agent_dir.as_str()),
        ("PI_OFFLINE", "1"),
        ("NO_PROXY", "127.0.0.1,localhost"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    assert_eq!(env, expected);
}

#[test]
fn claude_setup_gives_the_offline_environment() {
    let root = tempfile::tempdir().unwrap();
    let options = ClaudeOptions {
        max_retries: 1,
        model: Some("claude-test".to_owned()),
    };
    let setup = ClaudeSetup::write(root.path(), "http://127.0.0.1:9", options).unwrap();
    let home = setup.home.display().to_string();
    let expected: Vec<(String, String)> = [
        ("HOME", home.as_str()),
        ("ANTHROPIC_BASE_URL", "http://127.0.0.1:9"),
        ("ANTHROPIC_API_KEY", "dummy"),
        ("CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC", "1"),
        ("DISABLE_AUTOUPDATER", "1"),
        ("DISABLE_TELEMETRY", "1"),
        ("DISABLE_ERROR_REPORTING", "1"),
        ("IS_SANDBOX", "1"),
        ("CLAUDE_CODE_MAX_RETRIES", "1"),
        ("NO_PROXY", "127.0.0.1,localhost"),
        ("ANTHROPIC_MODEL", "claude-test"),
    ]
    .iter()
    .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
    .collect();
    assert_eq!((setup.home.is_dir(), setup.env()), (true, expected));
}
