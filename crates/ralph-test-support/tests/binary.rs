//! The `ralph-mock-llm` binary: port announcement, port file, pi agent dir, request log.

use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Child, Command, Stdio};

use serde_json::{Value, json};

/// Kills the server process when the test ends, however it ends.
struct Server(Child);

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.0.kill();
        let _ = self.0.wait();
    }
}

fn http(method: &str, url: &str, body: Option<&Value>) -> Value {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .build()
        .into();
    let mut response = match body {
        Some(body) => agent
            .post(url)
            .header("content-type", "application/json")
            .send(body.to_string())
            .unwrap(),
        None if method == "GET" => agent.get(url).call().unwrap(),
        None => agent.post(url).send_empty().unwrap(),
    };
    serde_json::from_str(&response.body_mut().read_to_string().unwrap()).unwrap()
}

#[test]
fn the_binary_announces_its_port_writes_pi_config_and_logs_requests() {
    let dir = tempfile::tempdir().unwrap();
    let port_file = dir.path().join("port");
    let agent_dir = dir.path().join("agent");
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/scripts/emit.json");
    let mut child = Command::new(env!("CARGO_BIN_EXE_ralph-mock-llm"))
        .arg("--script")
        .arg(&script)
        .arg("--port-file")
        .arg(&port_file)
        .arg("--write-pi-agent-dir")
        .arg(&agent_dir)
        .arg("--quiet")
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    let stdout = child.stdout.take().unwrap();
    let server = Server(child);
    let mut first_line = String::new();
    BufReader::new(stdout).read_line(&mut first_line).unwrap();
    let port: u16 = std::fs::read_to_string(&port_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert_eq!(first_line, format!("listening on 127.0.0.1:{port}\n"));

    let models: Value =
        serde_json::from_str(&std::fs::read_to_string(agent_dir.join("models.json")).unwrap())
            .unwrap();
    assert_eq!(
        models["providers"]["mock"]["baseUrl"],
        json!(format!("http://127.0.0.1:{port}/v1"))
    );

    let base = format!("http://127.0.0.1:{port}");
    let body = json!({"model": "mock-model", "stream": false,
                      "messages": [{"role": "user", "content": "go"}],
                      "tools": [{"type": "function", "function": {"name": "bash"}}]});
    let answer = http("POST", &format!("{base}/v1/chat/completions"), Some(&body));
    assert_eq!(
        answer["choices"][0]["message"]["tool_calls"][0]["function"],
        json!({"name": "bash", "arguments": "{\"command\":\"ralph emit build.done \\\"ok\\\"\"}"})
    );
    let log = http("GET", &format!("{base}/__log"), None);
    let routed: Vec<Value> = log
        .as_array()
        .unwrap()
        .iter()
        .map(|request| {
            json!([
                request["method"],
                request["path"],
                request["body"]["model"],
                request["routed"]
            ])
        })
        .collect();
    assert_eq!(
        routed,
        vec![json!(["POST", "/v1/chat/completions", "mock-model",
                    {"wire": "chat_completions", "scenario": "main", "turn": 0, "attempt": 0,
                     "outcome": {"kind": "json"}}])]
    );
    assert_eq!(
        http("POST", &format!("{base}/__reset"), None),
        json!({"ok": true})
    );
    assert_eq!(http("GET", &format!("{base}/__log"), None), json!([]));
    drop(server);
}

#[test]
fn the_binary_rejects_a_broken_script_with_a_message() {
    let dir = tempfile::tempdir().unwrap();
    let script = dir.path().join("bad.yaml");
    std::fs::write(&script, "default: nowhere\n").unwrap();
    let output = Command::new(env!("CARGO_BIN_EXE_ralph-mock-llm"))
        .arg("--script")
        .arg(&script)
        .output()
        .unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert_eq!(
        (
            output.status.code(),
            output.stdout.is_empty(),
            stderr.contains("`nowhere`")
        ),
        (Some(1), true, true),
        "{stderr}"
    );
}
