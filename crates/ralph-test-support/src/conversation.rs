//! What a model request says about the conversation so far, read the same way for every
//! wire format: the user prompts (with how many assistant turns followed each), the newest
//! tool result, the tools offered, the agent's working directory. The mock picks its answer
//! from this state, never from a request counter, so retries and side requests do not shift it.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::gemini_request;

/// The wire formats the mock speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Wire {
    /// OpenAI Chat Completions (`POST /v1/chat/completions`): pi's `openai-completions`.
    ChatCompletions,
    /// Anthropic Messages (`POST /v1/messages`): Claude Code, pi's `anthropic-messages`.
    AnthropicMessages,
    /// OpenAI Responses (`POST /v1/responses`): Codex.
    Responses,
    /// Google Gemini (`POST /v1beta/models/{model}:streamGenerateContent`): Gemini CLI.
    Gemini,
}

/// Where the working directory is written in each agent's system prompt.
const CWD_MARKERS: [(&str, &str); 4] = [
    ("Current working directory: ", "\n"),      // pi
    ("Primary working directory: ", "\n"),      // Claude Code
    ("<cwd>", "</cwd>"),                        // Codex
    ("**Workspace Directories:**\n  - ", "\n"), // Gemini CLI
];

/// A user prompt (not a tool result) and the assistant turns that came after it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Prompt {
    pub text: String,
    pub assistant_turns_after: usize,
}

/// The conversation state of one request.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(crate) struct Conversation {
    /// Oldest first.
    pub prompts: Vec<Prompt>,
    /// Assistant turns in the whole conversation.
    pub assistant_turns: usize,
    pub last_tool_result: Option<String>,
    pub tools: Vec<String>,
    pub model: String,
    pub stream: bool,
    /// Chat Completions `stream_options.include_usage`.
    pub include_usage: bool,
    pub cwd: Option<String>,
    /// What a side request that wants JSON of a given schema gets (Gemini CLI's checks).
    pub json_side_answer: Option<String>,
}

#[derive(Debug, PartialEq, Eq)]
pub(crate) enum Entry {
    Prompt(String),
    Assistant,
    ToolResult(String),
}

impl Conversation {
    /// Reads a request of `wire` to `path` (without its query).
    pub(crate) fn read(wire: Wire, path: &str, body: &Value) -> Self {
        let entries = match wire {
            Wire::ChatCompletions => chat_entries(body),
            Wire::AnthropicMessages => anthropic_entries(body),
            Wire::Responses => responses_entries(body),
            Wire::Gemini => gemini_request::entries(body),
        };
        let mut conversation = Conversation {
            tools: match wire {
                Wire::Gemini => gemini_request::tool_names(body),
                Wire::ChatCompletions | Wire::AnthropicMessages | Wire::Responses => {
                    tool_names(body)
                }
            },
            model: body["model"].as_str().unwrap_or_default().to_owned(),
            stream: body["stream"].as_bool().unwrap_or(false),
            include_usage: body["stream_options"]["include_usage"]
                .as_bool()
                .unwrap_or(false),
            cwd: find_cwd(body),
            json_side_answer: gemini_request::json_side_answer(body),
            ..Conversation::default()
        };
        if wire == Wire::Gemini {
            (conversation.model, conversation.stream) = gemini_request::model_and_stream(path);
        }
        for entry in entries {
            match entry {
                Entry::Prompt(text) => conversation.prompts.push(Prompt {
                    text,
                    assistant_turns_after: 0,
                }),
                Entry::Assistant => {
                    conversation.assistant_turns += 1;
                    if let Some(prompt) = conversation.prompts.last_mut() {
                        prompt.assistant_turns_after += 1;
                    }
                }
                Entry::ToolResult(text) => conversation.last_tool_result = Some(text),
            }
        }
        conversation
    }
}

fn chat_entries(body: &Value) -> Vec<Entry> {
    let mut entries = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        match message["role"].as_str() {
            Some("user") => entries.push(Entry::Prompt(text_of(&message["content"]))),
            Some("assistant") => entries.push(Entry::Assistant),
            Some("tool" | "function") => {
                entries.push(Entry::ToolResult(text_of(&message["content"])));
            }
            _ => {}
        }
    }
    entries
}

fn anthropic_entries(body: &Value) -> Vec<Entry> {
    let mut entries = Vec::new();
    for message in body["messages"].as_array().into_iter().flatten() {
        match message["role"].as_str() {
            Some("user") => {
                let content = &message["content"];
                let tool_result = content
                    .as_array()
                    .into_iter()
                    .flatten()
                    .find(|block| block["type"] == "tool_result");
                // Claude Code puts system reminders next to tool results; the message is still
                // a tool result, not a new prompt. A message the user sent during the tool
                // call (stream-json input) also travels there, as text: that is a new prompt.
                match tool_result {
                    Some(block) => {
                        entries.push(Entry::ToolResult(text_of(&block["content"])));
                        let said = user_text_beside_tool_results(content);
                        if !said.is_empty() {
                            entries.push(Entry::Prompt(said));
                        }
                    }
                    None => entries.push(Entry::Prompt(text_of(content))),
                }
            }
            Some("assistant") => entries.push(Entry::Assistant),
            _ => {}
        }
    }
    entries
}

/// The text blocks of a user message that carries tool results, without Claude Code's
/// system reminders: what the user said during the tool call, one block a line.
fn user_text_beside_tool_results(content: &Value) -> String {
    content
        .as_array()
        .into_iter()
        .flatten()
        .filter(|block| block["type"] == "text")
        .filter_map(|block| block["text"].as_str())
        .filter(|text| !text.trim_start().starts_with(SYSTEM_REMINDER))
        .collect::<Vec<_>>()
        .join("\n")
}

/// How Claude Code's system reminders start.
const SYSTEM_REMINDER: &str = "<system-reminder>";

/// Responses input items. One assistant turn can be several items (reasoning, message,
/// function calls), so a run of consecutive assistant-side items counts once.
fn responses_entries(body: &Value) -> Vec<Entry> {
    if let Some(text) = body["input"].as_str() {
        return vec![Entry::Prompt(text.to_owned())];
    }
    let mut entries = Vec::new();
    let mut in_assistant_run = false;
    for item in body["input"].as_array().into_iter().flatten() {
        let kind = item["type"].as_str().unwrap_or("message");
        let role = item["role"].as_str();
        let assistant_side = matches!(
            kind,
            "function_call" | "custom_tool_call" | "local_shell_call" | "reasoning"
        ) || (kind == "message" && role == Some("assistant"));
        if assistant_side {
            if !in_assistant_run {
                entries.push(Entry::Assistant);
            }
            in_assistant_run = true;
            continue;
        }
        in_assistant_run = false;
        match (kind, role) {
            ("message", Some("user")) => entries.push(Entry::Prompt(text_of(&item["content"]))),
            ("function_call_output" | "custom_tool_call_output" | "local_shell_call_output", _) => {
                entries.push(Entry::ToolResult(text_of(&item["output"])));
            }
            _ => {}
        }
    }
    entries
}

/// The text of a content value: a string, or the `text` of each part of an array, one per line.
fn text_of(content: &Value) -> String {
    match content {
        Value::String(text) => text.clone(),
        Value::Array(parts) => parts
            .iter()
            .filter_map(|part| match part {
                Value::String(text) => Some(text.as_str()),
                _ => part["text"].as_str(),
            })
            .collect::<Vec<_>>()
            .join("\n"),
        _ => String::new(),
    }
}

/// Names of the offered tools, for every wire's tool shape.
fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .filter_map(|tool| {
            tool["function"]["name"]
                .as_str()
                .or_else(|| tool["custom"]["name"].as_str())
                .or_else(|| tool["name"].as_str())
                .or_else(|| tool["type"].as_str())
        })
        .map(str::to_owned)
        .collect()
}

/// The working directory written in any string of the body (the system prompt, usually).
fn find_cwd(body: &Value) -> Option<String> {
    match body {
        Value::String(text) => CWD_MARKERS.iter().find_map(|(open, close)| {
            let start = text.find(open)? + open.len();
            let rest = &text[start..];
            let value = rest[..rest.find(close).unwrap_or(rest.len())].trim();
            (!value.is_empty()).then(|| value.to_owned())
        }),
        Value::Array(items) => items.iter().find_map(find_cwd),
        Value::Object(map) => map.values().find_map(find_cwd),
        Value::Null | Value::Bool(_) | Value::Number(_) => None,
    }
}

#[cfg(test)]
#[path = "conversation_tests.rs"]
mod tests;
