//! Reading a Gemini API request (Gemini CLI's): the model and streaming are in the URL
//! (`/v1beta/models/{model}:streamGenerateContent`), the conversation in `contents` (`user`
//! turns holding text or `functionResponse` parts, `model` turns), the tools in
//! `tools[].functionDeclarations`, and a side request's wanted JSON shape in
//! `generationConfig.responseJsonSchema` (or `responseSchema`).

use serde_json::{Map, Value};

use crate::conversation::Entry;

/// The path suffix of a streamed request.
pub(crate) const STREAM_METHOD: &str = ":streamGenerateContent";
/// The path suffix of a non-streamed request.
pub(crate) const JSON_METHOD: &str = ":generateContent";
/// The path suffix of a token count.
pub(crate) const COUNT_TOKENS_METHOD: &str = ":countTokens";

/// Whether `path` (without its query) is a model request of the Gemini API.
pub(crate) fn is_model_request(path: &str) -> bool {
    path.ends_with(STREAM_METHOD) || path.ends_with(JSON_METHOD)
}

/// The model named in the path, and whether the answer is streamed.
pub(crate) fn model_and_stream(path: &str) -> (String, bool) {
    let model = path
        .rsplit_once("/models/")
        .map(|(_, rest)| rest.split(':').next().unwrap_or_default())
        .unwrap_or_default();
    (model.to_owned(), path.ends_with(STREAM_METHOD))
}

/// The conversation entries of `contents`.
pub(crate) fn entries(body: &Value) -> Vec<Entry> {
    let mut entries = Vec::new();
    for content in body["contents"].as_array().into_iter().flatten() {
        let parts = content["parts"].as_array().map_or(&[][..], Vec::as_slice);
        match content["role"].as_str() {
            Some("model") => entries.push(Entry::Assistant),
            // Tool results travel as user turns of `functionResponse` parts.
            Some("user") | None => match parts.iter().find_map(|p| p.get("functionResponse")) {
                Some(response) => entries.push(Entry::ToolResult(response_text(response))),
                None => entries.push(Entry::Prompt(
                    parts
                        .iter()
                        .filter_map(|p| p["text"].as_str())
                        .collect::<Vec<_>>()
                        .join("\n"),
                )),
            },
            Some(_) => {}
        }
    }
    entries
}

/// What a tool returned: Gemini CLI puts it in `response.output` (or `response.error`).
fn response_text(response: &Value) -> String {
    let inner = &response["response"];
    inner["output"]
        .as_str()
        .or_else(|| inner["error"].as_str())
        .map_or_else(|| inner.to_string(), str::to_owned)
}

/// The names of the declared functions.
pub(crate) fn tool_names(body: &Value) -> Vec<String> {
    body["tools"]
        .as_array()
        .into_iter()
        .flatten()
        .flat_map(|tool| {
            tool["functionDeclarations"]
                .as_array()
                .into_iter()
                .flatten()
        })
        .filter_map(|declaration| declaration["name"].as_str().map(str::to_owned))
        .collect()
}

/// For a request that wants JSON of a given schema (Gemini CLI's next-speaker check, its
/// model router), a value of that schema as JSON text: enums take `user` when they offer
/// it (so the CLI's "who speaks next" check ends the turn), else their first value.
pub(crate) fn json_side_answer(body: &Value) -> Option<String> {
    let config = &body["generationConfig"];
    if config["responseMimeType"] != "application/json" {
        return None;
    }
    let schema = config
        .get("responseJsonSchema")
        .or_else(|| config.get("responseSchema"))
        .unwrap_or(&Value::Null);
    Some(from_schema(schema).to_string())
}

/// The string every free-text field of a schema-built answer gets.
const SCHEMA_TEXT: &str = "mock";

fn from_schema(schema: &Value) -> Value {
    if let Some(choices) = schema["enum"].as_array().filter(|c| !c.is_empty()) {
        let user = choices.iter().find(|c| *c == "user");
        return user.unwrap_or(&choices[0]).clone();
    }
    let kind = schema["type"].as_str().unwrap_or_default().to_lowercase();
    if kind == "object" || schema.get("properties").is_some() {
        let properties = schema["properties"].as_object();
        let object: Map<String, Value> = properties
            .into_iter()
            .flatten()
            .map(|(key, value)| (key.clone(), from_schema(value)))
            .collect();
        return Value::Object(object);
    }
    match kind.as_str() {
        "array" => Value::Array(Vec::new()),
        "boolean" => Value::Bool(false),
        "number" | "integer" => Value::from(0),
        _ => Value::String(SCHEMA_TEXT.to_owned()),
    }
}

#[cfg(test)]
#[path = "gemini_request_tests.rs"]
mod tests;
