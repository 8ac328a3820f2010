//! Generators of large, realistic agent streams for benchmarks and stress tests.
//!
//! `pi_stream` writes pi's snapshot shape: every `message_update` repeats the whole
//! message so far twice (`assistantMessageEvent.partial` and `message`), so a turn with
//! N deltas costs O(N²) bytes, exactly as pi up to the 0.8x releases does.
//! `claude_stream` writes Claude Code's stream-json: one `assistant` line per content
//! block and large tool results carried twice (`content` and `tool_use_result`).
//! Text mixes ASCII with 2-, 3- and 4-byte UTF-8 characters, quotes, backslashes and
//! newlines, so multi-byte characters and escapes land at arbitrary offsets. Output is
//! deterministic for a given spec; [`Expect`] says what a correct parser must report.

use std::fmt::Write as _;

/// The shape of a generated pi stream.
#[derive(Clone, Debug)]
pub struct PiSpec {
    pub turns: usize,
    pub text_deltas: usize,
    pub delta_bytes: usize,
    pub thinking_deltas: usize,
    pub toolcall_deltas: usize,
    pub tool_updates: usize,
    pub tool_output_bytes: usize,
    pub unicode: bool,
    pub seed: u64,
}

impl PiSpec {
    /// About 200 MB: 5 turns of 700 deltas, lines up to ~250 KB.
    pub fn large() -> Self {
        PiSpec {
            turns: 5,
            text_deltas: 700,
            delta_bytes: 40,
            thinking_deltas: 120,
            toolcall_deltas: 120,
            tool_updates: 40,
            tool_output_bytes: 200_000,
            unicode: true,
            seed: 7,
        }
    }

    /// About 10 MB.
    pub fn medium() -> Self {
        PiSpec {
            turns: 4,
            text_deltas: 200,
            delta_bytes: 24,
            thinking_deltas: 40,
            toolcall_deltas: 40,
            tool_updates: 20,
            tool_output_bytes: 40_000,
            unicode: true,
            seed: 7,
        }
    }

    /// About 100 KB.
    pub fn small() -> Self {
        PiSpec {
            turns: 2,
            text_deltas: 14,
            delta_bytes: 12,
            thinking_deltas: 4,
            toolcall_deltas: 4,
            tool_updates: 2,
            tool_output_bytes: 1500,
            unicode: true,
            seed: 7,
        }
    }
}

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

/// What a correct parser must find in a generated stream.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Expect {
    /// Every text delta, concatenated in order.
    pub text: String,
    pub text_deltas: usize,
    /// The last assistant message's text (it ends with a `LOOP_COMPLETE` line).
    pub final_text: String,
    pub cost_usd: f64,
    pub turns: u32,
    pub tool_calls: u32,
}

/// A generated stream and its ground truth.
#[derive(Clone, Debug)]
pub struct Generated {
    pub bytes: Vec<u8>,
    pub expect: Expect,
}

/// The promise every generated stream ends its final answer with.
pub const PROMISE: &str = "LOOP_COMPLETE";

const WORDS: [&str; 24] = [
    "the",
    "function",
    "returns",
    "a",
    "value",
    "and",
    "we",
    "update",
    "parser",
    "so",
    "each",
    "line",
    "is",
    "handled",
    "once",
    "while",
    "buffer",
    "keeps",
    "remainder",
    "run",
    "cargo",
    "test",
    "fix",
    "commit",
];
const UNICODE: [&str; 6] = [
    "héllo → 世界 🎉",
    "naïve café — “smart quotes”",
    "日本語テキスト",
    "emoji 🚀🔥✅",
    "Ωμέγα ≤ ∞",
    "a \"quoted\" path C:\\tmp\\x\tend",
];

/// xorshift64*: deterministic and dependency-free.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        let mut x = self.0;
        x ^= x >> 12;
        x ^= x << 25;
        x ^= x >> 27;
        self.0 = x;
        x.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// Text of about `bytes` bytes; ~8 % of the pieces are non-ASCII or need escaping.
    fn text(&mut self, bytes: usize, unicode: bool) -> String {
        let mut out = String::new();
        while out.len() < bytes {
            if unicode && self.below(12) == 0 {
                out.push_str(UNICODE[self.below(UNICODE.len())]);
            } else {
                out.push_str(WORDS[self.below(WORDS.len())]);
            }
            out.push(if self.below(16) == 0 { '\n' } else { ' ' });
        }
        out
    }
}

/// Splits `text` into `n` pieces on character boundaries.
fn pieces(text: &str, n: usize) -> Vec<&str> {
    let mut out = Vec::with_capacity(n);
    let mut start = 0;
    for i in 1..=n {
        let mut end = if i == n {
            text.len()
        } else {
            text.len() * i / n
        };
        while !text.is_char_boundary(end) {
            end += 1;
        }
        if end < start {
            end = start;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// Appends `s` as a JSON string literal (quotes included), raw UTF-8 as
/// `JSON.stringify` writes it.
fn push_json_str(out: &mut String, s: &str) {
    out.push('"');
    push_escaped(out, s);
    out.push('"');
}

fn push_escaped(out: &mut String, s: &str) {
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
}

/// A pi stream of the snapshot shape.
pub fn pi_stream(spec: &PiSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::new();
    let mut expect = Expect::default();
    let zero_usage = r#"{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"totalTokens":0,"cost":{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":0}}"#;
    let head = |stop: &str| {
        format!(
            r#""api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{zero_usage},"stopReason":"{stop}","timestamp":1795643697784"#
        )
    };
    out.push_str(r#"{"type":"session","version":3,"id":"01a214b4-6a1f-70bc-9377-d0688eef9e1b","timestamp":"2026-11-25T21:54:57.696Z","cwd":"/work"}"#);
    out.push('\n');
    out.push_str("{\"type\":\"agent_start\"}\n");
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        out.push_str("{\"type\":\"turn_start\"}\n");
        if turn == 0 {
            let user = r#"{"role":"user","content":[{"type":"text","text":"Do the task. Print LOOP_COMPLETE when done."}],"timestamp":1795643697784}"#;
            let _ = writeln!(out, r#"{{"type":"message_start","message":{user}}}"#);
            let _ = writeln!(out, r#"{{"type":"message_end","message":{user}}}"#);
        }
        let _ = writeln!(
            out,
            r#"{{"type":"message_start","message":{{"role":"assistant","content":[],{}}}}}"#,
            head("stop")
        );

        // Content blocks so far, as escaped JSON fragments.
        let mut blocks: Vec<String> = Vec::new();
        let snapshot = |blocks: &[String], open: &str| {
            let mut s = String::from(r#"{"role":"assistant","content":["#);
            for (i, b) in blocks
                .iter()
                .chain(std::iter::once(&open.to_owned()))
                .enumerate()
            {
                if b.is_empty() {
                    continue;
                }
                if i > 0 {
                    s.push(',');
                }
                s.push_str(b);
            }
            s.push_str("],");
            s.push_str(&head("stop"));
            s.push('}');
            s
        };
        let update = |out: &mut String, event: &str, blocks: &[String], open: &str| {
            let snap = snapshot(blocks, open);
            let _ = writeln!(
                out,
                r#"{{"type":"message_update","assistantMessageEvent":{{{event},"partial":{snap}}},"message":{snap}}}"#
            );
        };

        // Thinking.
        let thinking = rng.text(spec.thinking_deltas * spec.delta_bytes, spec.unicode);
        let mut so_far = String::new();
        update(
            &mut out,
            r#""type":"thinking_start","contentIndex":0"#,
            &blocks,
            "",
        );
        for piece in pieces(&thinking, spec.thinking_deltas) {
            push_escaped(&mut so_far, piece);
            let open = format!(r#"{{"type":"thinking","thinking":"{so_far}"}}"#);
            let mut ev = String::from(r#""type":"thinking_delta","contentIndex":0,"delta":"#);
            push_json_str(&mut ev, piece);
            update(&mut out, &ev, &blocks, &open);
        }
        let thinking_block =
            format!(r#"{{"type":"thinking","thinking":"{so_far}","thinkingSignature":"sig"}}"#);
        update(
            &mut out,
            r#""type":"thinking_end","contentIndex":0"#,
            &blocks,
            &thinking_block,
        );
        blocks.push(thinking_block);

        // Text.
        let mut text = rng.text(spec.text_deltas * spec.delta_bytes, spec.unicode);
        if last {
            text.push_str("\n\n");
            text.push_str(PROMISE);
        }
        let mut so_far = String::new();
        update(
            &mut out,
            r#""type":"text_start","contentIndex":1"#,
            &blocks,
            "",
        );
        for piece in pieces(&text, spec.text_deltas) {
            push_escaped(&mut so_far, piece);
            let open = format!(r#"{{"type":"text","text":"{so_far}"}}"#);
            let mut ev = String::from(r#""type":"text_delta","contentIndex":1,"delta":"#);
            push_json_str(&mut ev, piece);
            update(&mut out, &ev, &blocks, &open);
            expect.text.push_str(piece);
            expect.text_deltas += 1;
        }
        let text_block = format!(r#"{{"type":"text","text":"{so_far}"}}"#);
        update(
            &mut out,
            r#""type":"text_end","contentIndex":1"#,
            &blocks,
            &text_block,
        );
        blocks.push(text_block);

        // A tool call on every turn but the last.
        let call_id = format!("toolu_{turn:04}");
        let output = rng.text(spec.tool_output_bytes, spec.unicode);
        let command = format!("cat src/mod_{turn}.rs");
        if !last {
            let args = format!(r#"{{"command":"{command}"}}"#);
            let mut partial = String::new();
            for piece in pieces(&args, spec.toolcall_deltas) {
                push_escaped(&mut partial, piece);
                let open = format!(
                    r#"{{"type":"toolCall","id":"{call_id}","name":"bash","arguments":{{}},"partialArgs":"{partial}"}}"#
                );
                let mut ev = String::from(r#""type":"toolcall_delta","contentIndex":2,"delta":"#);
                push_json_str(&mut ev, piece);
                update(&mut out, &ev, &blocks, &open);
            }
            blocks.push(format!(
                r#"{{"type":"toolCall","id":"{call_id}","name":"bash","arguments":{args}}}"#
            ));
        }

        let (input, output_tokens, cache_read) =
            (1000 + 200 * turn as u64, (text.len() / 4) as u64, 4000);
        let cost = input as f64 * 3e-6 + output_tokens as f64 * 15e-6 + cache_read as f64 * 0.3e-6;
        expect.cost_usd += cost;
        expect.turns += 1;
        let usage = format!(
            r#"{{"input":{input},"output":{output_tokens},"cacheRead":{cache_read},"cacheWrite":0,"totalTokens":{},"cost":{{"input":0,"output":0,"cacheRead":0,"cacheWrite":0,"total":{cost}}}}}"#,
            input + output_tokens + cache_read
        );
        let final_message = format!(
            r#"{{"role":"assistant","content":[{}],"api":"anthropic-messages","provider":"anthropic","model":"claude-sonnet-4-5","usage":{usage},"stopReason":"{}","timestamp":1795643697784}}"#,
            blocks.join(","),
            if last { "stop" } else { "toolUse" }
        );
        let _ = writeln!(out, r#"{{"type":"message_end","message":{final_message}}}"#);
        if last {
            expect.final_text = text.clone();
        } else {
            expect.tool_calls += 1;
            let _ = writeln!(
                out,
                r#"{{"type":"tool_execution_start","toolCallId":"{call_id}","toolName":"bash","args":{{"command":"{command}"}}}}"#
            );
            for piece in 1..=spec.tool_updates {
                let partial = &output
                    [..output.floor_char_boundary(output.len() * piece / spec.tool_updates.max(1))];
                let mut content = String::new();
                push_json_str(&mut content, partial);
                let _ = writeln!(
                    out,
                    r#"{{"type":"tool_execution_update","toolCallId":"{call_id}","toolName":"bash","args":{{"command":"{command}"}},"partialResult":{{"content":[{{"type":"text","text":{content}}}],"details":{{}}}}}}"#
                );
            }
            let mut content = String::new();
            push_json_str(&mut content, &output);
            let _ = writeln!(
                out,
                r#"{{"type":"tool_execution_end","toolCallId":"{call_id}","toolName":"bash","result":{{"content":[{{"type":"text","text":{content}}}]}},"isError":false}}"#
            );
            let result = format!(
                r#"{{"role":"toolResult","toolCallId":"{call_id}","toolName":"bash","content":[{{"type":"text","text":{content}}}],"isError":false,"timestamp":1795643698332}}"#
            );
            let _ = writeln!(out, r#"{{"type":"message_start","message":{result}}}"#);
            let _ = writeln!(out, r#"{{"type":"message_end","message":{result}}}"#);
        }
        let _ = writeln!(
            out,
            r#"{{"type":"turn_end","message":{final_message},"toolResults":[]}}"#
        );
    }
    out.push_str("{\"type\":\"agent_end\",\"messages\":[]}\n");
    Generated {
        bytes: out.into_bytes(),
        expect,
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
