//! The built-in scenarios, after the record's pi mock (`shared/realworld/pi/mock_llm.py`), plus
//! `sse_error` and `unicode`. Each is a list of turns built from the prompt's knobs, so the
//! same machinery plays built-in and scripted scenarios.

use crate::fault::{Fault, FaultKind};
use crate::markers::Knobs;
use crate::turn::{Stop, Turn, WriteArgs};

/// The completion promise the built-in scenarios say when they are done.
pub const PROMISE: &str = "LOOP_COMPLETE";

/// `long`: text deltas unless `[[deltas:N]]` says otherwise.
pub const DEFAULT_LONG_DELTAS: usize = 3000;
/// `flaky`: failing attempts unless `[[fail:N]]` says otherwise. The SDK inside pi retries a
/// 500 twice on its own, so this many failures cost pi exactly one auto-retry.
pub const DEFAULT_FLAKY_FAILURES: u32 = 3;
/// `bigwrite`: file size unless `[[bytes:N]]` says otherwise.
pub const DEFAULT_BIGWRITE_BYTES: usize = 20_000;
/// `bigwrite`: argument characters per delta.
const BIGWRITE_ARG_CHUNK_CHARS: usize = 64;
/// `slow`: pause between SSE events unless `[[delay_ms:N]]` says otherwise.
pub const DEFAULT_SLOW_DELAY_MS: u64 = 200;
/// `error429`: the `retry-after` the 429 carries.
const RATE_LIMIT_RETRY_AFTER_S: u64 = 1;
/// `midstream` and `sse_error`: deltas of the partial answer, and how many go out before the
/// fault. The promise sits in the first half, so it is streamed before the failure.
const PARTIAL_DELTAS: usize = 8;
const PARTIAL_DELTAS_BEFORE_FAULT: usize = 4;
const PARTIAL_TEXT: &str =
    "Partial answer: LOOP_COMPLETE would be premature, and this stream is cut before it ends.";
/// `unicode`: the sample (combining marks, CJK, Cyrillic, ZWJ and flag emoji), how often it is
/// repeated, how many deltas the answer is split into (a prime, so cuts land everywhere), and
/// the HTTP chunk size (small and odd, so UTF-8 characters are split across chunks too).
pub const UNICODE_SAMPLE: &str = "Grüße aus Köln — ½ × ∞ ≠ 0; 你好，世界；こんにちは；Привет, мир; \
     e\u{301}a\u{308}o\u{302}; 👩\u{200d}💻 🇩🇪 🦀🚀✨. ";
const UNICODE_REPEAT: usize = 8;
const UNICODE_DELTAS: usize = 97;
const UNICODE_CHUNK_BYTES: usize = 7;

/// The closed set of built-in scenarios.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Builtin {
    /// Text plus bash `echo hello > out.txt && cat out.txt`, then text quoting the output.
    Tool,
    /// One text turn.
    Text,
    /// Thinking, then text.
    Thinking,
    /// Three bash turns (`echo a`, `echo b`, `echo c`), then text.
    Tools3,
    /// Bash `echo oops >&2; exit 3`, then text.
    ToolError,
    /// One text turn of `[[deltas:N]]` deltas.
    Long,
    /// A `write` of `[[bytes:N]]` bytes to big.txt, then text.
    Bigwrite,
    /// HTTP 500 on every attempt.
    Error500,
    /// HTTP 500 on the first `[[fail:N]]` attempts, then text.
    Flaky,
    /// HTTP 429 with a `retry-after` on every attempt.
    Error429,
    /// HTTP 401 on every attempt.
    Error401,
    /// Half of a text (promise included), then the connection is cut.
    Midstream,
    /// Half of a text (promise included), then an SSE error event.
    SseError,
    /// Text that stops at the token limit.
    Length,
    /// Text with a pause between SSE events.
    Slow,
    /// A long multi-byte answer split at arbitrary characters and bytes.
    Unicode,
}

const ALL: [Builtin; 16] = [
    Builtin::Tool,
    Builtin::Text,
    Builtin::Thinking,
    Builtin::Tools3,
    Builtin::ToolError,
    Builtin::Long,
    Builtin::Bigwrite,
    Builtin::Error500,
    Builtin::Flaky,
    Builtin::Error429,
    Builtin::Error401,
    Builtin::Midstream,
    Builtin::SseError,
    Builtin::Length,
    Builtin::Slow,
    Builtin::Unicode,
];

impl Builtin {
    /// Every built-in scenario.
    pub fn all() -> [Builtin; 16] {
        ALL
    }

    /// Every built-in name.
    pub fn names() -> Vec<&'static str> {
        ALL.iter().map(|builtin| builtin.name()).collect()
    }

    /// The name used in `[[scenario:NAME]]`, as a model id, and in scripts.
    pub fn name(self) -> &'static str {
        match self {
            Builtin::Tool => "tool",
            Builtin::Text => "text",
            Builtin::Thinking => "thinking",
            Builtin::Tools3 => "tools3",
            Builtin::ToolError => "tool_error",
            Builtin::Long => "long",
            Builtin::Bigwrite => "bigwrite",
            Builtin::Error500 => "error500",
            Builtin::Flaky => "flaky",
            Builtin::Error429 => "error429",
            Builtin::Error401 => "error401",
            Builtin::Midstream => "midstream",
            Builtin::SseError => "sse_error",
            Builtin::Length => "length",
            Builtin::Slow => "slow",
            Builtin::Unicode => "unicode",
        }
    }

    /// The built-in called `name`.
    pub fn from_name(name: &str) -> Option<Builtin> {
        ALL.into_iter().find(|builtin| builtin.name() == name)
    }

    /// The scenario's turns for these knobs.
    pub fn turns(self, knobs: &Knobs) -> Vec<Turn> {
        let done = |text: &str| Turn::text(format!("{text} {PROMISE}"));
        match self {
            Builtin::Tool => vec![
                Turn {
                    text: Some("I'll create the file and show it.".to_owned()),
                    shell: Some("echo hello > out.txt && cat out.txt".to_owned()),
                    ..Turn::default()
                },
                done("Done. out.txt contains: {{last_tool_result}}."),
            ],
            Builtin::Text => vec![done("Hello from the mock model.")],
            Builtin::Thinking => vec![done("Thought about it. Task finished.").with_thinking(
                "The user wants a short answer. I should reply and signal completion.",
            )],
            Builtin::Tools3 => vec![
                Turn::shell("echo a"),
                Turn::shell("echo b"),
                Turn::shell("echo c"),
                done("All three commands ran."),
            ],
            Builtin::ToolError => vec![
                Turn::shell("echo oops >&2; exit 3"),
                done("The command failed as expected."),
            ],
            Builtin::Long => {
                let deltas = knobs.deltas.unwrap_or(DEFAULT_LONG_DELTAS).max(1);
                let words: String = (0..deltas - 1).map(|i| format!("w{i:05} ")).collect();
                vec![Turn {
                    deltas: Some(deltas),
                    ..Turn::text(format!("{words}{PROMISE}"))
                }]
            }
            Builtin::Bigwrite => vec![
                Turn {
                    write: Some(WriteArgs {
                        path: "big.txt".to_owned(),
                        content: big_content(knobs.bytes.unwrap_or(DEFAULT_BIGWRITE_BYTES)),
                    }),
                    arg_chunk_chars: Some(BIGWRITE_ARG_CHUNK_CHARS),
                    ..Turn::default()
                },
                done("Wrote big.txt."),
            ],
            Builtin::Error500 => vec![Turn::default().with_fault(Fault {
                message: Some("mock internal server error".to_owned()),
                ..Fault::http(500)
            })],
            Builtin::Flaky => {
                let failures = knobs.fail.unwrap_or(DEFAULT_FLAKY_FAILURES);
                vec![done("Recovered after retry.").with_fault(Fault {
                    message: Some("mock transient failure".to_owned()),
                    ..Fault::http(500).times(failures)
                })]
            }
            Builtin::Error429 => vec![Turn::default().with_fault(Fault {
                kind: FaultKind::Http {
                    status: 429,
                    retry_after_s: Some(RATE_LIMIT_RETRY_AFTER_S),
                    retry_after_ms: None,
                    should_retry: None,
                    limit_reset_s: None,
                },
                times: None,
                message: Some("mock rate limit exceeded".to_owned()),
            })],
            Builtin::Error401 => vec![Turn::default().with_fault(Fault {
                message: Some("mock invalid api key".to_owned()),
                ..Fault::http(401)
            })],
            Builtin::Midstream => vec![partial(Fault::drop_after(PARTIAL_DELTAS_BEFORE_FAULT))],
            Builtin::SseError => {
                vec![partial(Fault::sse_error_after(PARTIAL_DELTAS_BEFORE_FAULT))]
            }
            Builtin::Length => vec![Turn {
                stop: Some(Stop::Length),
                ..Turn::text("This answer is truncated because it hit the max")
            }],
            Builtin::Slow => vec![Turn {
                delay_ms: Some(knobs.delay_ms.unwrap_or(DEFAULT_SLOW_DELAY_MS)),
                ..done("Slowly streamed answer.")
            }],
            Builtin::Unicode => vec![Turn {
                deltas: Some(knobs.deltas.unwrap_or(UNICODE_DELTAS)),
                chunk_bytes: Some(UNICODE_CHUNK_BYTES),
                ..done(&UNICODE_SAMPLE.repeat(UNICODE_REPEAT))
            }],
        }
    }
}

fn partial(fault: Fault) -> Turn {
    Turn {
        deltas: Some(PARTIAL_DELTAS),
        ..Turn::text(PARTIAL_TEXT).with_fault(fault)
    }
}

/// `bytes` bytes of numbered ASCII lines.
fn big_content(bytes: usize) -> String {
    const FILLER: usize = 60;
    let filler = "x".repeat(FILLER);
    let mut content = String::with_capacity(bytes + FILLER * 2);
    let mut line = 0;
    while content.len() < bytes {
        content.push_str(&format!("line {line:05} {filler}\n"));
        line += 1;
    }
    content.truncate(bytes);
    content
}
