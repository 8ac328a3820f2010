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
//!
//! `codex_stream`, `gemini_stream`, `opencode_stream` and `copilot_stream` write those
//! agents' JSON lines as their real captures show them (tests/fixtures/<agent>): heavy
//! tool outputs (OpenCode and Copilot carry each one twice), Gemini's and Copilot's
//! small text deltas, Copilot's envelope and its dozens of no-op events per tool call.

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
    /// The cost the agent reports; 0 when it reports none (see `reports`).
    pub cost_usd: f64,
    pub turns: u32,
    pub tool_calls: u32,
    /// Session tokens, normalized as ralph counts them (input without cached tokens).
    pub tokens: Tokens,
    pub reports: Reports,
    /// The model that did the work (Codex streams never name it).
    pub model: String,
}

/// Token counts of a generated stream.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Tokens {
    pub input: u64,
    pub output: u64,
    pub cache_read: u64,
    pub cache_write: u64,
}

/// What an agent's stream says about usage.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Reports {
    /// Tokens and a cost in dollars (pi, Claude Code, OpenCode).
    #[default]
    CostAndTokens,
    /// Tokens only: the cost must be estimated from a price list (Codex, Gemini CLI).
    TokensOnly,
    /// Neither (Copilot).
    Nothing,
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
    let mut expect = Expect {
        model: "claude-sonnet-4-5".to_owned(),
        ..Expect::default()
    };
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
        expect.tokens.input += input;
        expect.tokens.output += output_tokens;
        expect.tokens.cache_read += cache_read;
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
    expect.tokens = Tokens {
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

/// The shape of a generated Codex, Gemini CLI, OpenCode or Copilot stream: `turns` model
/// responses of `text_bytes` (streamed in `deltas` pieces where the agent streams), each
/// but the last followed by a shell command with `tool_output_bytes` of output.
#[derive(Clone, Debug)]
pub struct LoopSpec {
    pub turns: usize,
    pub text_bytes: usize,
    pub deltas: usize,
    pub tool_output_bytes: usize,
    pub unicode: bool,
    pub seed: u64,
}

impl LoopSpec {
    /// About 100 MB of tool output (twice that where the agent repeats it).
    pub fn large() -> Self {
        LoopSpec {
            turns: 400,
            text_bytes: 3000,
            deltas: 60,
            tool_output_bytes: 250_000,
            unicode: true,
            seed: 7,
        }
    }

    /// About 3 MB.
    pub fn medium() -> Self {
        LoopSpec {
            turns: 30,
            text_bytes: 1500,
            deltas: 30,
            tool_output_bytes: 50_000,
            unicode: true,
            seed: 7,
        }
    }
}

/// A JSON string literal of `s`.
fn json(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    push_json_str(&mut out, s);
    out
}

/// The next response's text; the last one ends with the promise.
fn response_text(rng: &mut Rng, spec: &LoopSpec, last: bool) -> String {
    let mut text = rng.text(spec.text_bytes, spec.unicode);
    if last {
        text.push_str("\n\n");
        text.push_str(PROMISE);
    }
    text
}

/// `codex exec --json`: one turn, whole items, usage summed in `turn.completed`.
pub fn codex_stream(spec: &LoopSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::from(
        "{\"type\":\"thread.started\",\"thread_id\":\"01a214bb-6060-73e0-a9f4-57eb2d1a776d\"}\n{\"type\":\"turn.started\"}\n",
    );
    let mut expect = Expect {
        reports: Reports::TokensOnly,
        model: "gpt-5".to_owned(),
        turns: 1,
        ..Expect::default()
    };
    let mut item = 0;
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        let reasoning = json(&rng.text(spec.text_bytes / 4, spec.unicode));
        let _ = writeln!(
            out,
            r#"{{"type":"item.completed","item":{{"id":"item_{item}","type":"reasoning","text":{reasoning}}}}}"#
        );
        let text = response_text(&mut rng, spec, last);
        let _ = writeln!(
            out,
            r#"{{"type":"item.completed","item":{{"id":"item_{}","type":"agent_message","text":{}}}}}"#,
            item + 1,
            json(&text)
        );
        item += 2;
        expect.text.push_str(&text);
        expect.text_deltas += 1;
        if last {
            expect.final_text = text;
            break;
        }
        let command = format!("/bin/bash -lc 'cargo test -p mod_{turn}'");
        let head =
            format!(r#""id":"item_{item}","type":"command_execution","command":"{command}""#);
        let _ = writeln!(
            out,
            r#"{{"type":"item.started","item":{{{head},"aggregated_output":"","exit_code":null,"status":"in_progress"}}}}"#
        );
        let output = json(&rng.text(spec.tool_output_bytes, spec.unicode));
        let _ = writeln!(
            out,
            r#"{{"type":"item.completed","item":{{{head},"aggregated_output":{output},"exit_code":0,"status":"completed"}}}}"#
        );
        item += 1;
        expect.tool_calls += 1;
    }
    let n = spec.turns as u64;
    let _ = writeln!(
        out,
        r#"{{"type":"turn.completed","usage":{{"input_tokens":{},"cached_input_tokens":{},"cache_write_input_tokens":0,"output_tokens":{},"reasoning_output_tokens":0}}}}"#,
        3000 * n,
        2000 * n,
        120 * n
    );
    expect.tokens = Tokens {
        input: 1000 * n,
        output: 120 * n,
        cache_read: 2000 * n,
        cache_write: 0,
    };
    Generated {
        bytes: out.into_bytes(),
        expect,
    }
}

/// `gemini --output-format stream-json`: text deltas, tool use and result, and the run's
/// token counts in the final `result`.
pub fn gemini_stream(spec: &LoopSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::from(
        r#"{"type":"init","timestamp":"2026-11-25T22:01:20.907Z","session_id":"48eba7db-df4e-4b57-9d9b-0511d6849eee","model":"gemini-2.5-pro"}
{"type":"message","timestamp":"2026-11-25T22:01:20.909Z","role":"user","content":"Do the task. Print LOOP_COMPLETE when done."}
"#,
    );
    let mut expect = Expect {
        reports: Reports::TokensOnly,
        model: "gemini-2.5-pro".to_owned(),
        ..Expect::default()
    };
    const TS: &str = r#""timestamp":"2026-11-25T22:01:21.400Z""#;
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        let text = response_text(&mut rng, spec, last);
        for piece in pieces(&text, spec.deltas) {
            let _ = writeln!(
                out,
                r#"{{"type":"message",{TS},"role":"assistant","content":{},"delta":true}}"#,
                json(piece)
            );
            expect.text.push_str(piece);
            expect.text_deltas += 1;
        }
        expect.turns += 1;
        if last {
            expect.final_text = text;
            break;
        }
        let id = format!("run_shell_command__run_shell_command_1795644080989_{turn}");
        let _ = writeln!(
            out,
            r#"{{"type":"tool_use",{TS},"tool_name":"run_shell_command","tool_id":"{id}","parameters":{{"command":"cargo test -p mod_{turn}"}}}}"#
        );
        let output = json(&rng.text(spec.tool_output_bytes, spec.unicode));
        let _ = writeln!(
            out,
            r#"{{"type":"tool_result",{TS},"tool_id":"{id}","status":"success","output":{output}}}"#
        );
        expect.tool_calls += 1;
    }
    // Per response: a 2400-token prompt of which 1600 cached, 100 output and 24 thought tokens.
    let n = spec.turns as u64;
    let counts = format!(
        r#""total_tokens":{},"input_tokens":{},"output_tokens":{},"cached":{},"input":{}"#,
        2524 * n,
        2400 * n,
        100 * n,
        1600 * n,
        800 * n
    );
    let _ = writeln!(
        out,
        r#"{{"type":"result",{TS},"status":"success","stats":{{{counts},"duration_ms":514,"tool_calls":{},"models":{{"gemini-2.5-pro":{{{counts}}}}}}}}}"#,
        expect.tool_calls
    );
    expect.tokens = Tokens {
        input: 800 * n,
        output: 124 * n,
        cache_read: 1600 * n,
        cache_write: 0,
    };
    Generated {
        bytes: out.into_bytes(),
        expect,
    }
}

/// `opencode run --format json`: whole parts, per-step tokens and cost, the tool output
/// twice (`state.output` and `state.metadata.output`), no final event.
pub fn opencode_stream(spec: &LoopSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::new();
    let mut expect = Expect::default();
    let session = r#""sessionID":"ses_deb42ba5dffe2WgjWwuiOdrweI""#;
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        let (ts, message) = (
            1_795_644_287_092u64 + turn as u64,
            format!(r#""messageID":"msg_214bd{turn:021}""#),
        );
        let head = |out: &mut String, ty: &str| {
            let _ = write!(
                out,
                r#"{{"type":"{ty}","timestamp":{ts},{session},"part":{{"id":"prt_214bd6799001ln8Ip7Ig2Fap0F",{message},{session},"#
            );
        };
        head(&mut out, "step_start");
        out.push_str("\"type\":\"step-start\"}}\n");
        head(&mut out, "reasoning");
        let _ = writeln!(
            out,
            r#""type":"reasoning","text":{},"time":{{"start":{ts},"end":{ts}}}}}}}"#,
            json(&rng.text(spec.text_bytes / 4, spec.unicode))
        );
        let text = response_text(&mut rng, spec, last);
        head(&mut out, "text");
        let _ = writeln!(
            out,
            r#""type":"text","text":{},"time":{{"start":{ts},"end":{ts}}}}}}}"#,
            json(&text)
        );
        expect.text.push_str(&text);
        expect.text_deltas += 1;
        if !last {
            let output = json(&rng.text(spec.tool_output_bytes, spec.unicode));
            head(&mut out, "tool_use");
            let _ = writeln!(
                out,
                r#""type":"tool","tool":"bash","callID":"call_{turn:024}","state":{{"status":"completed","input":{{"command":"cargo test -p mod_{turn}","description":"Run tests"}},"output":{output},"metadata":{{"output":{output},"exit":0,"truncated":false}},"title":"cargo test","time":{{"start":{ts},"end":{ts}}}}}}}}}"#
            );
            expect.tool_calls += 1;
        }
        head(&mut out, "step_finish");
        let reason = if last { "stop" } else { "tool-calls" };
        let _ = writeln!(
            out,
            r#""type":"step-finish","reason":"{reason}","tokens":{{"total":1560,"input":500,"output":60,"reasoning":0,"cache":{{"write":0,"read":1000}}}},"cost":0.0024}}}}"#
        );
        expect.turns += 1;
        expect.cost_usd += 0.0024;
        if last {
            expect.final_text = text;
        }
    }
    let n = spec.turns as u64;
    expect.tokens = Tokens {
        input: 500 * n,
        output: 60 * n,
        cache_read: 1000 * n,
        cache_write: 0,
    };
    Generated {
        bytes: out.into_bytes(),
        expect,
    }
}

/// `copilot -p … --output-format json`: the envelope on every line, text deltas, a
/// dozen no-op events per tool call, the output five times over (`tool.shell_output`,
/// two `tool.execution_partial_result`, `result.content` and `result.detailedContent`).
pub fn copilot_stream(spec: &LoopSpec) -> Generated {
    let mut rng = Rng(spec.seed | 1);
    let mut out = String::new();
    let mut expect = Expect {
        reports: Reports::Nothing,
        model: "gpt-4.1".to_owned(),
        ..Expect::default()
    };
    let mut n = 0u64;
    let mut line = |out: &mut String, ty: &str, data: &str, ephemeral: bool| {
        n += 1;
        let eph = if ephemeral {
            r#","ephemeral":true"#
        } else {
            ""
        };
        let _ = writeln!(
            out,
            r#"{{"type":"{ty}","data":{data}{eph},"id":"{n:08x}-3f6c-4bd3-9a1e-84b6e0c2f1d7","timestamp":"2026-11-25T22:04:50.031Z","parentId":"c4a233ca-6f8f-47a3-9bcd-{n:012x}"}}"#
        );
    };
    line(
        &mut out,
        "session.mcp_servers_loaded",
        r#"{"servers":[]}"#,
        true,
    );
    line(
        &mut out,
        "session.tools_updated",
        r#"{"model":"gpt-4.1"}"#,
        true,
    );
    line(
        &mut out,
        "user.message",
        r#"{"content":"Do the task.","transformedContent":"Do the task.","messageId":"3d75b180-ac58-4f97-8eef-976d3f480922","turnId":"0"}"#,
        false,
    );
    for turn in 0..spec.turns {
        let last = turn + 1 == spec.turns;
        let ids =
            format!(r#""turnId":"{turn}","interactionId":"9d570e1f-7477-4426-b66a-444cda325fe6""#);
        let message = format!(r#""messageId":"fcf56ba4-2067-4d5d-af70-{turn:012x}""#);
        line(
            &mut out,
            "assistant.turn_start",
            &format!("{{{ids}}}"),
            false,
        );
        line(
            &mut out,
            "model.call_start",
            &format!(r#"{{"turnId":"{turn}","model":"gpt-4.1"}}"#),
            true,
        );
        line(
            &mut out,
            "assistant.message_start",
            &format!("{{{message}}}"),
            true,
        );
        let text = response_text(&mut rng, spec, last);
        for piece in pieces(&text, spec.deltas) {
            line(
                &mut out,
                "assistant.message_delta",
                &format!(r#"{{{message},"deltaContent":{}}}"#, json(piece)),
                true,
            );
            expect.text.push_str(piece);
            expect.text_deltas += 1;
        }
        let call = format!(r#""toolCallId":"call_{turn:024x}""#);
        let args = format!(r#"{{"command":"cargo test -p mod_{turn}","description":"Run tests"}}"#);
        let requests = if last {
            String::new()
        } else {
            format!(r#"{{{call},"name":"bash","arguments":{args},"type":"function"}}"#)
        };
        line(
            &mut out,
            "model.call_finished",
            &format!(r#"{{{ids},"outcome":"success"}}"#),
            true,
        );
        line(
            &mut out,
            "assistant.message",
            &format!(
                r#"{{{message},"model":"gpt-4.1","content":{},"toolRequests":[{requests}],{ids},"apiCallId":"chatcmpl-237e5e0ad3974b6286195500"}}"#,
                json(&text)
            ),
            false,
        );
        expect.turns += 1;
        if last {
            expect.final_text = text;
            break;
        }
        line(
            &mut out,
            "tool.execution_start",
            &format!(
                r#"{{{call},"toolName":"bash","arguments":{args},"turnId":"{turn}","model":"gpt-4.1"}}"#
            ),
            false,
        );
        let output = rng.text(spec.tool_output_bytes, spec.unicode);
        for _ in 0..10 {
            line(&mut out, "session.background_tasks_changed", "{}", true);
        }
        line(
            &mut out,
            "tool.shell_output",
            &format!(
                r#"{{{call},"stream":"stdout","text":{},"sequence":0}}"#,
                json(&output)
            ),
            true,
        );
        let output = json(&output);
        for _ in 0..2 {
            line(
                &mut out,
                "tool.execution_partial_result",
                &format!(r#"{{{call},"partialOutput":{output}}}"#),
                true,
            );
        }
        line(
            &mut out,
            "tool.execution_complete",
            &format!(
                r#"{{{call},"model":"gpt-4.1",{ids},"shellExecution":{{"exitCode":0}},"success":true,"result":{{"content":{output},"detailedContent":{output}}},"toolTelemetry":{{"metrics":{{"result_token_count":15}}}}}}"#
            ),
            false,
        );
        line(
            &mut out,
            "assistant.turn_end",
            &format!(r#"{{"turnId":"{turn}"}}"#),
            false,
        );
        expect.tool_calls += 1;
    }
    line(&mut out, "assistant.idle", "{}", true);
    out.push_str(r#"{"type":"result","timestamp":"2026-11-25T22:04:51.249Z","sessionId":"bd24baf1-1f68-48ba-bb9a-0b264f3040bc","exitCode":0,"usage":{"premiumRequests":0,"totalApiDurationMs":120,"sessionDurationMs":1633,"codeChanges":{"linesAdded":0,"linesRemoved":0,"filesModified":[]}}}"#);
    out.push('\n');
    Generated {
        bytes: out.into_bytes(),
        expect,
    }
}
