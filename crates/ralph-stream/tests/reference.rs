//! The parsers agree with a plain serde_json reading of every real capture.
//!
//! The reference here is deliberately naive (a full `serde_json::Value` per line, the
//! obvious fields): it is slow but easy to trust, so it checks the fast parsers'
//! totals independently of any snapshot.

mod support;

use ralph_stream::StreamFormat;
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
