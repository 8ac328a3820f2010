//! pi's snapshot shape: every `message_update` repeats the whole message so far twice
//! (`assistantMessageEvent.partial` and `message`), so a turn with N deltas costs O(N²)
//! bytes, exactly as pi up to the 0.8x releases does.

use std::fmt::Write as _;

use super::text::{Rng, pieces, push_escaped, push_json_str};
use super::{Expect, Generated, PROMISE};

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

        // Streams one content block (start, a delta a piece, end) after the finished
        // `blocks`, and returns the finished block; `sealed` is what the finished block
        // adds after its text (thinking keeps a signature).
        let stream_block = |out: &mut String,
                            blocks: &[String],
                            kind: &str,
                            index: usize,
                            text: &str,
                            deltas: usize,
                            sealed: &str,
                            on_piece: &mut dyn FnMut(&str)| {
            let mut so_far = String::new();
            let start = format!(r#""type":"{kind}_start","contentIndex":{index}"#);
            update(out, &start, blocks, "");
            for piece in pieces(text, deltas) {
                push_escaped(&mut so_far, piece);
                let open = format!(r#"{{"type":"{kind}","{kind}":"{so_far}"}}"#);
                let mut ev = format!(r#""type":"{kind}_delta","contentIndex":{index},"delta":"#);
                push_json_str(&mut ev, piece);
                update(out, &ev, blocks, &open);
                on_piece(piece);
            }
            let block = format!(r#"{{"type":"{kind}","{kind}":"{so_far}"{sealed}}}"#);
            let end = format!(r#""type":"{kind}_end","contentIndex":{index}"#);
            update(out, &end, blocks, &block);
            block
        };

        // Thinking.
        let thinking = rng.text(spec.thinking_deltas * spec.delta_bytes, spec.unicode);
        let thinking_block = stream_block(
            &mut out,
            &blocks,
            "thinking",
            0,
            &thinking,
            spec.thinking_deltas,
            r#","thinkingSignature":"sig""#,
            &mut |_| {},
        );
        blocks.push(thinking_block);

        // Text.
        let mut text = rng.text(spec.text_deltas * spec.delta_bytes, spec.unicode);
        if last {
            text.push_str("\n\n");
            text.push_str(PROMISE);
        }
        let text_block = stream_block(
            &mut out,
            &blocks,
            "text",
            1,
            &text,
            spec.text_deltas,
            "",
            &mut |piece| {
                expect.text.push_str(piece);
                expect.text_deltas += 1;
            },
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
