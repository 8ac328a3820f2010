//! Codex's `exec --json` lines as its real captures show them (tests/fixtures/codex).

use std::fmt::Write as _;

use super::loop_spec::{LoopSpec, response_text};
use super::text::{Rng, json};
use super::{Expect, Generated, Reports, TokenCounts};

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
    expect.tokens = TokenCounts {
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
