//! Claude Code's stream-json: one `assistant` line per content block and large tool
//! results carried twice (`content` and `tool_use_result`).

use std::fmt::Write as _;

use super::text::{Rng, push_json_str};
use super::{Expect, Generated, PROMISE, TokenCounts};

/// The shape of a generated Claude stream.
#[derive(Clone, Debug)]
pub struct ClaudeSpec {
    pub turns: usize,
    pub text_bytes: usize,
    pub tool_output_bytes: usize,
    pub thinking: bool,
    pub unicode: bool,
    pub seed: u64,
}

impl ClaudeSpec {
    /// About 200 MB: 400 turns with 300 KB tool outputs.
    pub fn large() -> Self {
        ClaudeSpec {
            turns: 400,
            text_bytes: 3000,
            tool_output_bytes: 300_000,
            thinking: true,
            unicode: true,
            seed: 7,
        }
    }

    /// About 10 MB.
    pub fn medium() -> Self {
        ClaudeSpec {
            turns: 60,
            text_bytes: 1500,
            tool_output_bytes: 100_000,
            thinking: true,
            unicode: true,
            seed: 7,
        }
    }
}

/// A Claude Code stream-json session.
pub fn claude_stream(spec: &ClaudeSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::new();
    let mut expect = Expect::default();
    let session = "89135a7e-9ab6-4b39-a46a-2c30e731ec87";
    let _ = writeln!(
        out,
        r#"{{"type":"system","subtype":"init","cwd":"/work","session_id":"{session}","tools":["Bash","Read","Edit","Write"],"mcp_servers":[],"model":"claude-opus-4-5","permissionMode":"bypassPermissions","apiKeySource":"ANTHROPIC_API_KEY","claude_code_version":"2.1.332","uuid":"u0"}}"#
    );
    let assistant = |out: &mut String, id: &str, block: &str| {
        let _ = writeln!(
            out,
            r#"{{"type":"assistant","message":{{"model":"claude-opus-4-5","id":"{id}","type":"message","role":"assistant","content":[{block}],"stop_reason":null,"stop_sequence":null,"usage":{{"input_tokens":3,"cache_creation_input_tokens":120,"cache_read_input_tokens":40000,"output_tokens":1}}}},"parent_tool_use_id":null,"session_id":"{session}","uuid":"u"}}"#
        );
    };
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        let id = format!("msg_{turn:06}");
        if spec.thinking {
            let mut block = String::from(r#"{"type":"thinking","thinking":"#);
            push_json_str(&mut block, &rng.text(spec.text_bytes / 2, spec.unicode));
            block.push_str(r#","signature":"c2lnbmF0dXJl"}"#);
            assistant(&mut out, &id, &block);
        }
        let mut text = rng.text(spec.text_bytes, spec.unicode);
        if last {
            text.push_str("\n\n");
            text.push_str(PROMISE);
        }
        let mut block = String::from(r#"{"type":"text","text":"#);
        push_json_str(&mut block, &text);
        block.push('}');
        assistant(&mut out, &id, &block);
        expect.text.push_str(&text);
        expect.text_deltas += 1;
        expect.turns += 1;
        if last {
            expect.final_text = text;
            break;
        }
        let call = format!("toolu_{turn:06}");
        assistant(
            &mut out,
            &id,
            &format!(
                r#"{{"type":"tool_use","id":"{call}","name":"Bash","input":{{"command":"cargo test -p mod_{turn}","description":"Run tests"}}}}"#
            ),
        );
        expect.tool_calls += 1;
        let mut content = String::new();
        push_json_str(
            &mut content,
            &rng.text(spec.tool_output_bytes, spec.unicode),
        );
        let _ = writeln!(
            out,
            r#"{{"type":"user","message":{{"role":"user","content":[{{"tool_use_id":"{call}","type":"tool_result","content":{content},"is_error":false}}]}},"parent_tool_use_id":null,"session_id":"{session}","uuid":"u","tool_use_result":{{"stdout":{content},"stderr":"","interrupted":false,"isImage":false}}}}"#
        );
    }
    expect.cost_usd = 0.0123 * spec.turns as f64 + 0.5;
    expect.tokens = TokenCounts {
        input: 50,
        output: 12000,
        cache_read: 900_000,
        cache_write: 20000,
    };
    expect.model = "claude-opus-4-5".to_owned();
    let mut result = String::new();
    push_json_str(&mut result, &expect.final_text);
    let _ = writeln!(
        out,
        r#"{{"duration_api_ms":9000,"type":"result","subtype":"success","is_error":false,"duration_ms":10000,"num_turns":{},"result":{result},"session_id":"{session}","total_cost_usd":{},"usage":{{"input_tokens":50,"cache_creation_input_tokens":20000,"cache_read_input_tokens":900000,"output_tokens":12000}},"modelUsage":{{"claude-opus-4-5":{{"inputTokens":50,"outputTokens":12000,"cacheReadInputTokens":900000,"cacheCreationInputTokens":20000,"costUSD":{}}}}},"uuid":"u"}}"#,
        spec.turns, expect.cost_usd, expect.cost_usd
    );
    Generated {
        bytes: out.into_bytes(),
        expect,
    }
}
