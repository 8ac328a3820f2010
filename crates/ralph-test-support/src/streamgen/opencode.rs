//! OpenCode's `run --format json` as its real captures show them (tests/fixtures/opencode):
//! heavy tool outputs carried twice.

use std::fmt::Write as _;

use super::loop_spec::{LoopSpec, response_text};
use super::text::{Rng, json};
use super::{Expect, Generated, TokenCounts};

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
    expect.tokens = TokenCounts {
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
