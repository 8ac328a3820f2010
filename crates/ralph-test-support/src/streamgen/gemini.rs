//! Gemini CLI's stream-json as its real captures show them (tests/fixtures/gemini): small
//! text deltas.

use std::fmt::Write as _;

use super::loop_spec::{LoopSpec, response_text};
use super::text::{Rng, json, pieces};
use super::{Expect, Generated, Reports, TokenCounts};

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
    expect.tokens = TokenCounts {
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
