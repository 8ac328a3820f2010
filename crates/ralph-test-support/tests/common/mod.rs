//! Helpers shared by the integration tests: a plain HTTP client for the mock, SSE parsing, and
//! request bodies shaped like each agent's.
#![allow(dead_code)] // each test binary uses a different subset

pub(crate) mod agent_run;
pub(crate) mod pi;

use std::io::Read;
use std::time::Duration;

use ralph_test_support::{MockServer, Stop, Turn};
use serde_json::{Value, json};

/// Generous: no test waits this long unless something hangs.
const HTTP_TIMEOUT: Duration = Duration::from_secs(30);

/// The turn every wire test answers first: thinking, text (17 characters: two deltas) and a
/// shell call running `shell`.
pub(crate) fn thinking_text_shell(shell: &str) -> Turn {
    Turn {
        thinking: Some("Hmm.".to_owned()),
        text: Some("Hi there, friend!".to_owned()),
        shell: Some(shell.to_owned()),
        ..Turn::default()
    }
}

/// A text turn cut off by the output limit.
pub(crate) fn cut_by_length() -> Turn {
    Turn {
        stop: Some(Stop::Length),
        ..Turn::text("Cut")
    }
}

/// An HTTP answer, read to the end or to the point where the connection broke.
#[derive(Debug)]
pub(crate) struct HttpReply {
    pub(crate) status: u16,
    pub(crate) headers: Vec<(String, String)>,
    pub(crate) body: Vec<u8>,
    /// Whether reading the body failed (the connection was cut).
    pub(crate) cut: bool,
}

impl HttpReply {
    pub(crate) fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    pub(crate) fn text(&self) -> String {
        String::from_utf8(self.body.clone()).expect("the body is UTF-8")
    }

    pub(crate) fn json(&self) -> Value {
        serde_json::from_slice(&self.body).expect("the body is JSON")
    }

    /// The SSE events as `{"event": NAME|null, "data": JSON or the raw string}`.
    pub(crate) fn sse(&self) -> Vec<Value> {
        parse_sse(&self.text())
    }
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(HTTP_TIMEOUT))
        .build()
        .into()
}

fn read_reply(mut response: ureq::http::Response<ureq::Body>) -> HttpReply {
    let status = response.status().as_u16();
    let headers = response
        .headers()
        .iter()
        .map(|(n, v)| {
            (
                n.as_str().to_owned(),
                v.to_str().unwrap_or_default().to_owned(),
            )
        })
        .collect();
    let mut body = Vec::new();
    let mut reader = response.body_mut().as_reader();
    let mut buffer = [0u8; 4096];
    let cut = loop {
        match reader.read(&mut buffer) {
            Ok(0) => break false,
            Ok(n) => body.extend_from_slice(&buffer[..n]),
            Err(_) => break true,
        }
    };
    HttpReply {
        status,
        headers,
        body,
        cut,
    }
}

pub(crate) fn post(server: &MockServer, path: &str, body: &Value) -> HttpReply {
    let response = agent()
        .post(format!("{}{path}", server.base_url()))
        .header("content-type", "application/json")
        .send(body.to_string())
        .expect("the mock answers");
    read_reply(response)
}

pub(crate) fn get(server: &MockServer, path: &str) -> HttpReply {
    let response = agent()
        .get(format!("{}{path}", server.base_url()))
        .call()
        .expect("the mock answers");
    read_reply(response)
}

pub(crate) fn head(server: &MockServer, path: &str) -> HttpReply {
    let response = agent()
        .head(format!("{}{path}", server.base_url()))
        .call()
        .expect("the mock answers");
    read_reply(response)
}

pub(crate) fn parse_sse(text: &str) -> Vec<Value> {
    text.split("\n\n")
        .filter(|block| !block.trim().is_empty())
        .map(|block| {
            let mut event = Value::Null;
            let mut data = String::new();
            for line in block.lines() {
                if let Some(name) = line.strip_prefix("event: ") {
                    event = json!(name);
                } else if let Some(payload) = line.strip_prefix("data: ") {
                    data.push_str(payload);
                }
            }
            let data = serde_json::from_str(&data).unwrap_or(Value::String(data));
            json!({"event": event, "data": data})
        })
        .collect()
}

/// The tools pi offers.
pub(crate) fn pi_chat_tools() -> Value {
    json!(
        ["read", "bash", "edit", "write"]
            .iter()
            .map(|name| json!({"type": "function", "function": {"name": name, "parameters": {}}}))
            .collect::<Vec<_>>()
    )
}

/// The tools Claude Code offers (a subset).
pub(crate) fn claude_tools() -> Value {
    json!(
        ["Agent", "Bash", "Read", "Write"]
            .iter()
            .map(|name| json!({"name": name, "input_schema": {}}))
            .collect::<Vec<_>>()
    )
}

/// A streamed Chat Completions body as pi sends it.
pub(crate) fn chat_body(messages: Value) -> Value {
    json!({"model": "mock-model", "stream": true, "stream_options": {"include_usage": true},
           "messages": messages, "tools": pi_chat_tools()})
}

/// A streamed Messages body as Claude Code sends it.
pub(crate) fn anthropic_body(messages: Value) -> Value {
    json!({"model": "claude-test", "max_tokens": 1000, "stream": true,
           "messages": messages, "tools": claude_tools()})
}

/// A streamed Responses body as Codex sends it.
pub(crate) fn responses_body(input: Value) -> Value {
    json!({"model": "gpt-test", "stream": true, "input": input,
           "tools": [{"type": "function", "name": "exec_command", "parameters": {}}]})
}

/// The `choices[0].delta` of every Chat Completions chunk, `[DONE]` as a string.
pub(crate) fn chat_deltas(events: &[Value]) -> Vec<Value> {
    events
        .iter()
        .map(|event| match &event["data"]["choices"][0]["delta"] {
            Value::Null => event["data"]
                .get("usage")
                .cloned()
                .unwrap_or(event["data"].clone()),
            delta => delta.clone(),
        })
        .collect()
}
