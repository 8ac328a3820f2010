//! Hostile and broken input for Codex, Gemini CLI, OpenCode and Copilot streams: the
//! decoder reports what it cannot use and reaches the same verdict as on clean input.

mod support;

use pretty_assertions::assert_eq;
use proptest::prelude::*;
use ralph_stream::AgentEvent;
use ralph_stream::SessionSummary;
use ralph_stream::Stop;
use ralph_stream::StreamFormat;
use support::events_in_chunks;
use support::fixtures;
use support::read;

/// The four agents and a capture of each with a tool call.
const AGENTS: [(&str, StreamFormat); 4] = [
    ("codex", StreamFormat::Codex),
    ("gemini", StreamFormat::Gemini),
    ("opencode", StreamFormat::Opencode),
    ("copilot", StreamFormat::Copilot),
];

/// Noise a terminal or npm may print between events.
const NOISE: [&str; 3] = [
    "npm WARN deprecated node-domexception@1.0.0",
    "Reading additional input from stdin...",
    "\u{1b}[33mwarning\u{1b}[0m: something",
];

fn happy(dir: &str) -> Vec<u8> {
    let path = fixtures(dir)
        .into_iter()
        .find(|p| p.to_string_lossy().contains("happy"))
        .unwrap();
    read(&path)
}

/// `clean` with CRLF line ends, blank lines and noise between the events, and the start
/// of its last line again at the end, cut mid-way and without a newline. (The last line,
/// because the parsers read it whole; a cut line of a type nobody reads further than its
/// `type` is not noticed, and needs not be.)
fn hostile(clean: &[u8]) -> (Vec<u8>, u64) {
    let mut out = Vec::new();
    let mut noise = 0;
    for (i, line) in clean
        .split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .enumerate()
    {
        if i % 2 == 0 {
            out.extend_from_slice(NOISE[i % NOISE.len()].as_bytes());
            out.extend_from_slice(b"\r\n   \r\n\r\n");
            noise += 1;
        }
        out.extend_from_slice(line);
        out.extend_from_slice(b"\r\n");
    }
    let last = clean
        .split(|&b| b == b'\n')
        .rfind(|l| !l.is_empty())
        .unwrap();
    out.extend_from_slice(&last[..last.len() / 2]);
    (out, noise + 1)
}

fn summary(bytes: &[u8]) -> (Option<StreamFormat>, SessionSummary) {
    let (format, summary, _) = ralph_stream::summarize(bytes, None);
    (format, summary)
}

#[test]
fn crlf_noise_and_a_truncated_last_line_change_nothing_but_the_noise_count() {
    for (dir, format) in AGENTS {
        let clean = happy(dir);
        let (bytes, noise) = hostile(&clean);
        let (got_format, got) = summary(&bytes);
        let (_, mut want) = summary(&clean);
        want.non_json_lines += noise;
        assert_eq!(got_format, Some(format), "{dir}");
        assert_eq!(got, want, "{dir}");
        for size in [1, 5, 4096] {
            assert_eq!(
                events_in_chunks(None, bytes.chunks(size)),
                events_in_chunks(None, [bytes.as_slice()]),
                "{dir}: chunks of {size}"
            );
        }
    }
}

#[test]
fn invalid_utf8_costs_only_the_broken_characters() {
    let line = b"{\"type\":\"message\",\"role\":\"assistant\",\"content\":\"caf\xc3\xa9 \xff!\",\"delta\":true}\n";
    let events = events_in_chunks(Some(StreamFormat::Gemini), [line.as_slice()]);
    assert_eq!(
        events,
        vec![AgentEvent::TextDelta {
            text: "café \u{fffd}!".into()
        }]
    );
}

#[test]
fn a_stream_that_starts_with_a_shared_type_is_recognised_by_a_later_line() {
    // Codex's `error` has no key of its own; `turn.failed` decides, and the held line
    // is parsed as Codex's.
    let input = concat!(
        r#"{"type":"error","message":"boom"}"#,
        "\n",
        r#"{"type":"turn.failed","error":{"message":"boom"}}"#,
        "\n",
    );
    let (format, summary) = summary(input.as_bytes());
    assert_eq!(format, Some(StreamFormat::Codex));
    assert_eq!(
        (summary.errors, summary.succeeded, summary.terminal_event),
        (vec!["boom".to_owned()], false, true)
    );
    // OpenCode's only line in a failed run is an `error`: its keys decide.
    let opencode =
        read(&support::fixtures_dir().join("opencode/v1.18.33_json_http401_always.jsonl"));
    assert_eq!(summary_format(&opencode), Some(StreamFormat::Opencode));
}

fn summary_format(bytes: &[u8]) -> Option<StreamFormat> {
    summary(bytes).0
}

#[test]
fn known_types_with_missing_or_mistyped_fields_are_never_fatal() {
    const TYPES: [(StreamFormat, &[&str]); 4] = [
        (
            StreamFormat::Codex,
            &[
                "thread.started",
                "turn.started",
                "turn.completed",
                "turn.failed",
                "item.started",
                "item.updated",
                "item.completed",
                "error",
            ],
        ),
        (
            StreamFormat::Gemini,
            &[
                "init",
                "message",
                "tool_use",
                "tool_result",
                "error",
                "result",
            ],
        ),
        (
            StreamFormat::Opencode,
            &[
                "step_start",
                "step_finish",
                "text",
                "reasoning",
                "tool_use",
                "error",
            ],
        ),
        (
            StreamFormat::Copilot,
            &[
                "session.tools_updated",
                "assistant.message_delta",
                "assistant.message",
                "tool.execution_start",
                "tool.execution_complete",
                "model.call_failure",
                "assistant.turn_retry",
                "model.call_final_result",
                "session.error",
                "result",
            ],
        ),
    ];
    // Every field any of the parsers reads, with a value of the wrong type.
    const WRONG: &str = r#""data":1,"part":"x","item":[],"usage":"u","stats":[1],"error":5,"message":{},"text":null,"content":false,"thread_id":{},"tool_id":[],"sessionID":3,"exitCode":"0","status":{}"#;
    for (format, types) in TYPES {
        let mut input = String::new();
        for ty in types {
            input.push_str(&format!(
                "{{\"type\":\"{ty}\"}}\n{{\"type\":\"{ty}\",{WRONG}}}\n"
            ));
        }
        let events = events_in_chunks(Some(format), [input.as_bytes()]);
        let mut summary = SessionSummary::default();
        for event in &events {
            summary.observe(event);
        }
        assert_eq!(summary.non_json_lines, 0, "{format}");
        assert!(
            summary.unknown_events <= 2 * types.len() as u64,
            "{format}: {events:?}"
        );
        // Nothing in there is an answer worth stopping the loop for.
        assert!(
            !events.iter().any(|e| matches!(
                e,
                AgentEvent::MessageFinished { text, stop: Stop::Completed, .. } if !text.is_empty()
            )),
            "{format}: {events:?}"
        );
    }
}

/// Real lines of every capture, mutated at random: the parsers never panic and every
/// line is accounted for.
mod mutations {
    use super::*;

    fn all_lines() -> Vec<(StreamFormat, Vec<u8>)> {
        let mut out = Vec::new();
        for (dir, format) in AGENTS {
            for path in fixtures(dir) {
                for line in read(&path).split(|&b| b == b'\n').filter(|l| !l.is_empty()) {
                    out.push((format, line.to_vec()));
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(512))]
        #[test]
        fn mutated_real_lines_never_panic(
            which in any::<prop::sample::Index>(),
            edits in proptest::collection::vec(
                (any::<prop::sample::Index>(), prop::sample::select(
                    vec![b'"', b'\\', b'{', b'}', b'[', b']', b',', b':', b'0', b'x', 0xff, b'\n']
                ), 0u8..3),
                1..8,
            ),
        ) {
            let lines = all_lines();
            let (format, mut line) = lines[which.index(lines.len())].clone();
            for (at, byte, op) in edits {
                let at = at.index(line.len() + 1);
                match op {
                    0 => line.insert(at, byte),
                    1 if at < line.len() => { line.remove(at); }
                    _ if at < line.len() => line[at] = byte,
                    _ => line.push(byte),
                }
            }
            let mut decoder = ralph_stream::StreamDecoder::new(Some(format));
            let mut summary = SessionSummary::default();
            decoder.feed(&line, |e| summary.observe(e));
            decoder.finish(|e| summary.observe(e));
            prop_assert!(decoder.lines() >= 1);
        }

        /// A mutated line reads the same whole as in pieces: a line held over chunks is
        /// read through the index its pieces built, one that is not through a scan.
        #[test]
        fn mutated_real_lines_read_the_same_in_any_pieces(
            which in any::<prop::sample::Index>(),
            edits in proptest::collection::vec(
                (any::<prop::sample::Index>(), prop::sample::select(
                    vec![b'"', b'\\', b'{', b'}', b'[', b']', b'\n']
                )),
                0..4,
            ),
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 1..6),
        ) {
            let lines = all_lines();
            let (format, mut line) = lines[which.index(lines.len())].clone();
            for (at, byte) in edits {
                line.insert(at.index(line.len() + 1), byte);
            }
            // Not first: the first line is never offered before it is whole.
            let mut stream = b"{}\n".to_vec();
            for _ in 0..2 {
                stream.extend_from_slice(&line);
                stream.push(b'\n');
            }
            let mut cuts: Vec<usize> = cuts.iter().map(|c| c.index(stream.len())).collect();
            cuts.sort_unstable();
            cuts.push(stream.len());
            let mut pieces = Vec::new();
            let mut from = 0;
            for cut in cuts {
                pieces.push(&stream[from..cut]);
                from = cut;
            }
            prop_assert_eq!(
                events_in_chunks(Some(format), pieces),
                events_in_chunks(Some(format), [stream.as_slice()])
            );
        }
    }
}
