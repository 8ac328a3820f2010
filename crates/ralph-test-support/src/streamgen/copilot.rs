//! Copilot's `--output-format json` as its real captures show them (tests/fixtures/copilot):
//! the envelope on every line, small text deltas, dozens of no-op events per tool call.

use std::fmt::Write as _;

use super::loop_spec::{LoopSpec, response_text};
use super::text::{Rng, json, pieces};
use super::{Expect, Generated, Reports};

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
