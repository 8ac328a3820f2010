//! The parsers agree with a plain serde_json reading of every real capture.
//!
//! The reference here is deliberately naive (a full `serde_json::Value` per line, the
//! obvious fields): it is slow but easy to trust, so it checks the fast parsers'
//! totals independently of any snapshot.

mod support;

use ralph_stream::CostKind;
use ralph_stream::PriceTable;
use ralph_stream::Pricing;
use ralph_stream::StreamFormat;
use ralph_stream::Tokens;
use serde_json::Value;
use support::fixtures;
use support::name_of;
use support::read;

fn json_lines(bytes: &[u8]) -> Vec<Value> {
    bytes
        .split(|&b| b == b'\n')
        .filter_map(|line| serde_json::from_slice(line.strip_suffix(b"\r").unwrap_or(line)).ok())
        .collect()
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() < 1e-9
}

#[test]
fn pi_cost_tokens_and_final_text_match_the_reference() {
    for path in fixtures("pi") {
        let bytes = read(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, Some(StreamFormat::Pi));
        assert_eq!(format, Some(StreamFormat::Pi));
        let mut cost = 0.0;
        let mut input = 0;
        let mut final_text = None;
        for v in json_lines(&bytes) {
            let m = &v["message"];
            if v["type"] == "message_end" && m["role"] == "assistant" {
                cost += m["usage"]["cost"]["total"].as_f64().unwrap_or(0.0);
                input += m["usage"]["input"].as_u64().unwrap_or(0);
                let stop = m["stopReason"].as_str().unwrap_or("");
                if stop != "error" && stop != "aborted" {
                    let texts: Vec<&str> = m["content"]
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter(|b| b["type"] == "text")
                        .filter_map(|b| b["text"].as_str())
                        .collect();
                    final_text = Some(texts.join("\n"));
                }
            }
        }
        let name = name_of(&path);
        assert!(
            close(summary.cost_usd.unwrap_or(0.0), cost),
            "{name}: {summary:?} vs {cost}"
        );
        assert_eq!(summary.tokens.input, input, "{name}");
        assert_eq!(summary.final_text, final_text, "{name}");
    }
}

#[test]
fn claude_cost_and_final_text_match_the_reference() {
    for path in fixtures("claude") {
        let bytes = read(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        assert_eq!(format, Some(StreamFormat::Claude));
        let results: Vec<Value> = json_lines(&bytes)
            .into_iter()
            .filter(|v| v["type"] == "result")
            .collect();
        let last = results.last().unwrap();
        let name = name_of(&path);
        assert!(
            close(
                summary.cost_usd.unwrap_or(0.0),
                last["total_cost_usd"].as_f64().unwrap()
            ),
            "{name}"
        );
        let is_error = last["is_error"].as_bool().unwrap();
        assert_eq!(summary.succeeded, !is_error, "{name}");
        if !is_error {
            assert_eq!(
                summary.final_text.as_deref(),
                last["result"].as_str(),
                "{name}"
            );
        }
        assert!(summary.terminal_event, "{name}");
    }
}

#[test]
fn codex_tokens_final_text_and_verdict_match_the_reference() {
    let gpt5 = *PriceTable::builtin().price_of("gpt-5").unwrap();
    for path in fixtures("codex") {
        let bytes = read(&path);
        let name = name_of(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        assert_eq!(format, Some(StreamFormat::Codex), "{name}");
        let mut tokens = Tokens::default();
        let mut final_text = None;
        let mut verdict = None;
        for v in json_lines(&bytes) {
            let n = |key: &str| v["usage"][key].as_u64().unwrap_or(0);
            match v["type"].as_str() {
                Some("turn.completed") => {
                    tokens.input += n("input_tokens")
                        - n("cached_input_tokens")
                        - n("cache_write_input_tokens");
                    tokens.output += n("output_tokens");
                    tokens.cache_read += n("cached_input_tokens");
                    tokens.cache_write += n("cache_write_input_tokens");
                    verdict = Some(true);
                }
                Some("turn.failed") => verdict = Some(false),
                Some("item.completed") if v["item"]["type"] == "agent_message" => {
                    final_text = v["item"]["text"].as_str().map(str::to_owned);
                }
                _ => {}
            }
        }
        assert_eq!(summary.tokens, tokens, "{name}");
        assert_eq!(summary.final_text, final_text, "{name}");
        assert_eq!(Some(summary.succeeded), verdict, "{name}");
        // Codex names no model: unpriced unless ralph says which model it asked for.
        assert_eq!(summary.cost_usd, None, "{name}");
        let pricing = Pricing::default().with_default_model("gpt-5");
        let priced = ralph_stream::summarize_with(&bytes, None, pricing).1;
        if verdict == Some(true) {
            let want = (tokens.input as f64 * gpt5.input
                + tokens.output as f64 * gpt5.output
                + tokens.cache_read as f64 * gpt5.cache_read
                + tokens.cache_write as f64 * gpt5.cache_write)
                / 1e6;
            assert!(close(priced.cost_usd.unwrap(), want), "{name}");
            assert_eq!(priced.cost_kind, CostKind::Estimated, "{name}");
        }
    }
}

#[test]
fn gemini_tokens_cost_final_text_and_verdict_match_the_reference() {
    let table = PriceTable::builtin();
    for path in fixtures("gemini") {
        let bytes = read(&path);
        let name = name_of(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        assert_eq!(format, Some(StreamFormat::Gemini), "{name}");
        let lines = json_lines(&bytes);
        let result = lines.iter().rfind(|v| v["type"] == "result").unwrap();
        let tokens_of = |s: &Value| Tokens {
            input: s["input"].as_u64().unwrap(),
            output: s["total_tokens"].as_u64().unwrap() - s["input_tokens"].as_u64().unwrap(),
            cache_read: s["cached"].as_u64().unwrap(),
            cache_write: 0,
        };
        let stats = &result["stats"];
        assert_eq!(summary.tokens, tokens_of(stats), "{name}");
        let mut cost = Some(0.0);
        for (model, counts) in stats["models"].as_object().unwrap() {
            let t = tokens_of(counts);
            if t.total() > 0 {
                cost = match (cost, table.price_of(model)) {
                    (Some(sum), Some(p)) => Some(
                        sum + (t.input as f64 * p.input
                            + t.output as f64 * p.output
                            + t.cache_read as f64 * p.cache_read)
                            / 1e6,
                    ),
                    _ => None,
                };
            }
        }
        assert_eq!(summary.cost_usd.is_some(), cost.is_some(), "{name}");
        if let (Some(got), Some(want)) = (summary.cost_usd, cost) {
            assert!(close(got, want), "{name}: {got} vs {want}");
        }
        let succeeded = result["status"] == "success";
        assert_eq!(summary.succeeded, succeeded, "{name}");
        // The answer: the assistant text after the last tool result.
        let mut text = String::new();
        for v in &lines {
            match v["type"].as_str() {
                Some("tool_result") => text.clear(),
                Some("message") if v["role"] == "assistant" => {
                    text.push_str(v["content"].as_str().unwrap());
                }
                _ => {}
            }
        }
        if succeeded {
            assert_eq!(summary.final_text, Some(text), "{name}");
        }
        assert!(summary.terminal_event, "{name}");
    }
}

#[test]
fn opencode_tokens_cost_final_text_and_verdict_match_the_reference() {
    for path in fixtures("opencode") {
        let bytes = read(&path);
        let name = name_of(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        assert_eq!(format, Some(StreamFormat::Opencode), "{name}");
        let mut tokens = Tokens::default();
        let mut cost = None;
        let mut texts: Vec<String> = Vec::new();
        let mut final_text = None;
        let mut last_reason = None;
        for v in json_lines(&bytes) {
            let part = &v["part"];
            match v["type"].as_str() {
                Some("step_start") => texts.clear(),
                Some("text") => texts.push(part["text"].as_str().unwrap().to_owned()),
                Some("step_finish") => {
                    let t = &part["tokens"];
                    tokens.input += t["input"].as_u64().unwrap();
                    tokens.output += t["output"].as_u64().unwrap();
                    tokens.cache_read += t["cache"]["read"].as_u64().unwrap();
                    tokens.cache_write += t["cache"]["write"].as_u64().unwrap();
                    cost = Some(cost.unwrap_or(0.0) + part["cost"].as_f64().unwrap());
                    final_text = Some(texts.join("\n"));
                    last_reason = part["reason"].as_str().map(str::to_owned);
                }
                Some("error") => last_reason = Some("error".to_owned()),
                _ => {}
            }
        }
        assert_eq!(summary.tokens, tokens, "{name}");
        assert_eq!(summary.cost_usd.is_some(), cost.is_some(), "{name}");
        if let (Some(got), Some(want)) = (summary.cost_usd, cost) {
            assert!(close(got, want), "{name}: {got} vs {want}");
        }
        assert_eq!(summary.final_text, final_text, "{name}");
        // `length`: an answer the output limit cut, which succeeds (its promise does not
        // count: see ralph-core's completion rules).
        assert_eq!(
            summary.succeeded,
            matches!(last_reason.as_deref(), Some("stop" | "length")),
            "{name}"
        );
        // OpenCode has no terminal event.
        assert!(!summary.terminal_event, "{name}");
    }
}

#[test]
fn copilot_final_text_and_verdict_match_the_reference() {
    for path in fixtures("copilot") {
        let bytes = read(&path);
        let name = name_of(&path);
        let (format, summary, _) = ralph_stream::summarize(&bytes, None);
        assert_eq!(format, Some(StreamFormat::Copilot), "{name}");
        let lines = json_lines(&bytes);
        let final_text = lines
            .iter()
            .filter(|v| v["type"] == "assistant.message")
            .filter(|v| v["data"]["parentToolCallId"].is_null())
            .filter_map(|v| v["data"]["content"].as_str())
            .next_back()
            .map(str::to_owned);
        let result = lines.iter().rfind(|v| v["type"] == "result").unwrap();
        assert_eq!(summary.final_text, final_text, "{name}");
        // A stopped Copilot writes `abort`, and still exits 0.
        let aborted = lines.iter().any(|v| v["type"] == "abort");
        assert_eq!(
            summary.succeeded,
            result["exitCode"] == 0 && !aborted,
            "{name}"
        );
        assert_eq!(
            summary.session_id.as_deref(),
            result["sessionId"].as_str(),
            "{name}"
        );
        // No tokens and no cost in Copilot's JSON.
        assert_eq!(
            (summary.tokens, summary.cost_usd, summary.cost_kind),
            (Tokens::default(), None, CostKind::Unknown),
            "{name}"
        );
    }
}
