//! The REAL pi (0.73.1 and 0.51.6, installed by scripts/install-agents.sh) against the mock:
//! a bash tool turn, Unicode text, a 500 that pi retries and recovers from, a persistent 500, a
//! cut stream, and thinking. Asserted on pi's `--mode json` stdout and on the mock's request log.

mod common;

use common::agent_run::stderr;
use common::pi::{PI_NEW, PI_OLD, deltas, last_assistant, of_type, outcomes, run_pi, tokens};
use ralph_test_support::{
    Builtin, Fault, MockError, MockServer, PiProvider, ReplyOutcome, Script, Turn, UNICODE_SAMPLE,
};
use serde_json::{Value, json};

/// Characters of the `unicode` scenario's answer: the sample 8 times, then the promise.
const UNICODE_REPEAT: usize = 8;

fn tool_turn(binary: &str, provider: PiProvider) -> Result<(), MockError> {
    let script = Script::from_turns(vec![
        Turn::shell("printf 'made by pi' > made.txt && cat made.txt"),
        Turn::text("Saw: {{last_tool_result}}"),
    ]);
    let server = MockServer::start(script)?;
    let Some(pi) = run_pi(binary, &server, provider, "Make the file.")? else {
        return Ok(());
    };
    let made = std::fs::read_to_string(pi.work.join("made.txt")).unwrap_or_default();
    let tool_end = of_type(&pi.lines, "tool_execution_end")
        .first()
        .map(|line| {
            json!([
                line["toolName"],
                line["isError"],
                line["result"]["content"][0]["text"]
            ])
        });
    let last = last_assistant(&pi.lines);
    assert_eq!(
        (pi.output.status.code(), made.as_str(), tool_end),
        (
            Some(0),
            "made by pi",
            Some(json!(["bash", false, "made by pi"]))
        ),
        "stderr: {}",
        stderr(&pi.output)
    );
    // Turn 1: input 1000 + 200, cache read 4000; "Saw: made by pi" is 15 characters, 3 tokens.
    assert_eq!(
        (
            last["content"].clone(),
            last["stopReason"].clone(),
            tokens(&last["usage"])
        ),
        (
            json!([{"type": "text", "text": "Saw: made by pi"}]),
            json!("stop"),
            json!([1200, 3, 4000, 0, 5203])
        )
    );
    let cost = last["usage"]["cost"]["total"].as_f64().unwrap_or_default();
    let expected_cost = (1200.0 * 3.0 + 3.0 * 15.0 + 4000.0 * 0.3) / 1e6;
    assert!(
        (cost - expected_cost).abs() < 1e-12,
        "cost {cost} != {expected_cost}"
    );
    assert_eq!(
        outcomes(&server),
        vec![
            (0, 0, ReplyOutcome::Streamed),
            (1, 0, ReplyOutcome::Streamed)
        ]
    );
    // pi sent the tool's output back in its second request.
    let second = server.model_requests()[1].body.clone().unwrap_or_default();
    assert!(second.to_string().contains("made by pi"), "{second}");
    Ok(())
}

#[test]
fn pi_new_runs_a_bash_tool_turn_on_the_openai_wire() -> Result<(), MockError> {
    tool_turn(PI_NEW, PiProvider::OpenAiCompletions)
}

#[test]
fn pi_new_runs_a_bash_tool_turn_on_the_anthropic_wire() -> Result<(), MockError> {
    tool_turn(PI_NEW, PiProvider::AnthropicMessages)
}

#[test]
fn pi_old_runs_a_bash_tool_turn_on_the_openai_wire() -> Result<(), MockError> {
    tool_turn(PI_OLD, PiProvider::OpenAiCompletions)
}

fn unicode_text(binary: &str) -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Unicode))?;
    let Some(pi) = run_pi(
        binary,
        &server,
        PiProvider::OpenAiCompletions,
        "Say something.",
    )?
    else {
        return Ok(());
    };
    let expected = format!("{} LOOP_COMPLETE", UNICODE_SAMPLE.repeat(UNICODE_REPEAT));
    let last = last_assistant(&pi.lines);
    assert_eq!(
        (last["content"].clone(), deltas(&pi.lines, "text_delta")),
        (
            json!([{"type": "text", "text": expected}]),
            expected.clone()
        )
    );
    Ok(())
}

#[test]
fn pi_new_receives_unicode_text_split_inside_characters() -> Result<(), MockError> {
    unicode_text(PI_NEW)
}

#[test]
fn pi_old_receives_unicode_text_split_inside_characters() -> Result<(), MockError> {
    unicode_text(PI_OLD)
}

/// A 500 with `retry-after-ms: 1`, so the SDK's own retries inside pi do not wait.
fn fast_500() -> Fault {
    Fault {
        message: Some("mock internal server error".to_owned()),
        ..Fault::http(500).retry_after_ms(1)
    }
}

/// Requests per pi attempt: the first, then the SDK's two retries.
const REQUESTS_PER_PI_ATTEMPT: u32 = 3;

fn recovers_from_500(binary: &str) -> Result<(), MockError> {
    let turn = Turn::text("Recovered.").with_fault(fast_500().times(REQUESTS_PER_PI_ATTEMPT));
    let server = MockServer::start(Script::from_turns(vec![turn]))?;
    let Some(pi) = run_pi(binary, &server, PiProvider::OpenAiCompletions, "Try.")? else {
        return Ok(());
    };
    let retry_start = of_type(&pi.lines, "auto_retry_start")
        .iter()
        .map(|line| json!([line["attempt"], line["errorMessage"]]))
        .collect::<Vec<_>>();
    let retry_end = of_type(&pi.lines, "auto_retry_end")
        .iter()
        .map(|line| line["success"].clone())
        .collect::<Vec<_>>();
    assert_eq!(
        (
            pi.output.status.code(),
            retry_start,
            retry_end,
            last_assistant(&pi.lines)["content"].clone()
        ),
        (
            Some(0),
            vec![json!([1, "500 mock internal server error"])],
            vec![json!(true)],
            json!([{"type": "text", "text": "Recovered."}])
        )
    );
    let error = ReplyOutcome::HttpError { status: 500 };
    assert_eq!(
        outcomes(&server),
        vec![
            (0, 0, error.clone()),
            (0, 1, error.clone()),
            (0, 2, error),
            (0, 3, ReplyOutcome::Streamed)
        ]
    );
    // The SDK numbers its own retries; pi's retry starts a new request.
    let retry_counts: Vec<Option<String>> = server
        .model_requests()
        .iter()
        .map(|request| request.header("x-stainless-retry-count").map(str::to_owned))
        .collect();
    assert_eq!(
        retry_counts,
        ["0", "1", "2", "0"].map(|n| Some(n.to_owned())).to_vec()
    );
    Ok(())
}

#[test]
fn pi_new_retries_an_http_500_and_recovers() -> Result<(), MockError> {
    recovers_from_500(PI_NEW)
}

#[test]
fn pi_old_retries_an_http_500_and_recovers() -> Result<(), MockError> {
    recovers_from_500(PI_OLD)
}

fn persistent_500(binary: &str) -> Result<(), MockError> {
    let server = MockServer::start(Script::from_turns(vec![
        Turn::default().with_fault(fast_500()),
    ]))?;
    let Some(pi) = run_pi(binary, &server, PiProvider::OpenAiCompletions, "Try.")? else {
        return Ok(());
    };
    let last_line = pi.lines.last().cloned().unwrap_or_default();
    let last = last_assistant(&pi.lines);
    // pi exits 0 in json mode even when every attempt failed; the stream says it failed.
    assert_eq!(
        (
            pi.output.status.code(),
            of_type(&pi.lines, "auto_retry_start").len(),
            json!([last_line["type"], last_line["success"]]),
            json!([last["stopReason"], last["errorMessage"]]),
        ),
        (
            Some(0),
            3,
            json!(["auto_retry_end", false]),
            json!(["error", "500 mock internal server error"])
        )
    );
    let attempts = (1 + 3) * REQUESTS_PER_PI_ATTEMPT as usize;
    let statuses: Vec<ReplyOutcome> = outcomes(&server).into_iter().map(|o| o.2).collect();
    assert_eq!(
        statuses,
        vec![ReplyOutcome::HttpError { status: 500 }; attempts]
    );
    Ok(())
}

#[test]
fn pi_new_gives_up_on_a_persistent_500_and_still_exits_0() -> Result<(), MockError> {
    persistent_500(PI_NEW)
}

#[test]
fn pi_old_gives_up_on_a_persistent_500_and_still_exits_0() -> Result<(), MockError> {
    persistent_500(PI_OLD)
}

fn cut_stream(binary: &str, provider: PiProvider) -> Result<(), MockError> {
    // Two deltas of 19 characters; the cut comes after the first.
    let partial = Turn {
        deltas: Some(2),
        ..Turn::text("Maybe LOOP_COMPLETE, or maybe it's not")
            .with_fault(Fault::drop_after(1).times(1))
    };
    let server = MockServer::start(Script::from_turns(vec![partial]))?;
    let Some(pi) = run_pi(binary, &server, provider, "Answer.")? else {
        return Ok(());
    };
    let ends: Vec<Value> = of_type(&pi.lines, "message_end")
        .iter()
        .filter(|line| line["message"]["role"] == "assistant")
        .map(|line| {
            let message = &line["message"];
            json!([
                message["stopReason"],
                message["errorMessage"],
                message["content"][0]["text"]
            ])
        })
        .collect();
    // The failed attempt keeps the text streamed before the cut, promise included; pi's
    // auto-retry then plays the turn again (one request per attempt: the SDK does not retry a
    // stream that broke after its headers).
    assert_eq!(
        (pi.output.status.code(), ends),
        (
            Some(0),
            vec![
                json!(["error", "terminated", "Maybe LOOP_COMPLETE"]),
                json!(["stop", null, "Maybe LOOP_COMPLETE, or maybe it's not"]),
            ]
        )
    );
    assert_eq!(
        outcomes(&server),
        vec![
            (0, 0, ReplyOutcome::Dropped),
            (0, 1, ReplyOutcome::Streamed)
        ]
    );
    Ok(())
}

#[test]
fn pi_new_keeps_partial_text_of_a_cut_stream_and_retries_on_the_openai_wire()
-> Result<(), MockError> {
    cut_stream(PI_NEW, PiProvider::OpenAiCompletions)
}

#[test]
fn pi_new_keeps_partial_text_of_a_cut_stream_and_retries_on_the_anthropic_wire()
-> Result<(), MockError> {
    cut_stream(PI_NEW, PiProvider::AnthropicMessages)
}

#[test]
fn pi_old_keeps_partial_text_of_a_cut_stream_and_retries_on_the_openai_wire()
-> Result<(), MockError> {
    cut_stream(PI_OLD, PiProvider::OpenAiCompletions)
}

fn thinking(binary: &str, provider: PiProvider) -> Result<(), MockError> {
    let server = MockServer::start(Script::builtin(Builtin::Thinking))?;
    let Some(pi) = run_pi(binary, &server, provider, "Think first.")? else {
        return Ok(());
    };
    let thought = "The user wants a short answer. I should reply and signal completion.";
    let last = last_assistant(&pi.lines);
    let blocks: Vec<Value> = last["content"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .iter()
        .map(|block| json!([block["type"], block["thinking"], block["text"]]))
        .collect();
    assert_eq!(
        (blocks, deltas(&pi.lines, "thinking_delta")),
        (
            vec![
                json!(["thinking", thought, null]),
                json!([
                    "text",
                    null,
                    "Thought about it. Task finished. LOOP_COMPLETE"
                ]),
            ],
            thought.to_owned()
        )
    );
    Ok(())
}

#[test]
fn pi_new_streams_thinking_on_the_openai_wire() -> Result<(), MockError> {
    thinking(PI_NEW, PiProvider::OpenAiCompletions)
}

#[test]
fn pi_new_streams_thinking_on_the_anthropic_wire() -> Result<(), MockError> {
    thinking(PI_NEW, PiProvider::AnthropicMessages)
}

#[test]
fn pi_old_streams_thinking_on_the_openai_wire() -> Result<(), MockError> {
    thinking(PI_OLD, PiProvider::OpenAiCompletions)
}
