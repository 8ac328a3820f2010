//! Every real capture: whole summaries, and the same events however the bytes arrive.

mod support;

use std::collections::BTreeMap;

use pretty_assertions::assert_eq;
use ralph_stream::AgentEvent;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use support::events_in_chunks;
use support::fixtures;
use support::name_of;
use support::read;

/// Files up to this size are split in two at every byte offset; larger ones at about
/// [`LARGE_FILE_SPLITS`] offsets (their every offset is still a chunk boundary in the
/// one-byte chunking).
const EXHAUSTIVE_SPLIT_MAX: usize = 8 * 1024;
const LARGE_FILE_SPLITS: usize = 400;

/// Every agent with captures, in the fixture directory's names.
const AGENTS: [&str; 6] = ["pi", "claude", "codex", "gemini", "opencode", "copilot"];

fn all_fixtures() -> Vec<std::path::PathBuf> {
    AGENTS.iter().flat_map(|agent| fixtures(agent)).collect()
}

fn event_counts(events: &[AgentEvent<'_>]) -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for event in events {
        let json = serde_json::to_value(event).unwrap();
        let ty = json["type"].as_str().unwrap().to_owned();
        *counts.entry(ty).or_insert(0) += 1;
    }
    counts
}

#[test]
fn summaries_of_real_captures() {
    for path in all_fixtures() {
        let bytes = read(&path);
        let (format, summary, lines) = ralph_stream::summarize(&bytes, None);
        let events = events_in_chunks(None, [bytes.as_slice()]);
        insta::assert_json_snapshot!(
            name_of(&path),
            serde_json::json!({
                "format": format,
                "lines": lines,
                "summary": summary,
                "events": event_counts(&events),
            })
        );
    }
}

/// A run its stream calls a success while its model said nothing and used no tokens is
/// what an agent makes of a reply that was no model's. Of every real capture, only the one
/// against a server answering with an HTML page is such a run: no genuine answer, however
/// short, and no failed run reads as one.
#[test]
fn only_a_reply_that_was_no_models_answered_nothing() {
    let empty: Vec<String> = all_fixtures()
        .into_iter()
        .filter(|path| {
            ralph_stream::summarize(&read(path), None)
                .1
                .answered_nothing()
        })
        .map(|path| name_of(&path))
        .collect();
    assert_eq!(empty, ["pi_openai_html200_jsonl"]);
}

/// The longest run of empty model calls ([`SessionSummary::empty_calls_in_a_row`]) at any
/// point of each capture: only OpenCode's against an HTML page has more than one (it asks
/// again after each empty step until it is stopped); every genuine run, and pi's one empty
/// answer to the same page, has at most one.
///
/// [`SessionSummary::empty_calls_in_a_row`]: ralph_stream::SessionSummary::empty_calls_in_a_row
#[test]
fn only_an_agent_asking_a_web_page_again_and_again_makes_empty_calls_in_a_row() {
    let mut longest: BTreeMap<String, u32> = BTreeMap::new();
    for path in all_fixtures() {
        let mut summary = ralph_stream::SessionSummary::default();
        let mut most = 0;
        for event in events_in_chunks(None, [read(&path).as_slice()]) {
            summary.observe(&event);
            most = most.max(summary.empty_calls_in_a_row());
        }
        if most > 0 {
            longest.insert(name_of(&path), most);
        }
    }
    assert_eq!(
        longest,
        BTreeMap::from([
            ("opencode_v1_18_33_json_html200_jsonl".to_owned(), 34),
            ("pi_openai_html200_jsonl".to_owned(), 1),
        ])
    );
}

/// Every capture of one agent gives the same events however its bytes are split. One
/// test per agent, so they run in parallel.
fn any_split_gives_the_same_events(agent: &str) {
    for path in fixtures(agent) {
        let bytes = read(&path);
        let whole = events_in_chunks(None, [bytes.as_slice()]);
        let name = name_of(&path);
        for size in [1, 2, 3, 7, 64, 4095, 65536] {
            assert_eq!(
                events_in_chunks(None, bytes.chunks(size)),
                whole,
                "{name}: chunks of {size}"
            );
        }
        let stride = if bytes.len() <= EXHAUSTIVE_SPLIT_MAX {
            1
        } else {
            bytes.len() / LARGE_FILE_SPLITS
        };
        for cut in (0..=bytes.len()).step_by(stride) {
            let (a, b) = bytes.split_at(cut);
            if !same_events(&[a, b], &whole) {
                // Show the difference in full.
                assert_eq!(
                    events_in_chunks(None, [a, b]),
                    whole,
                    "{name}: split at {cut}"
                );
            }
        }
    }
}

#[test]
fn any_split_of_a_pi_capture_gives_the_same_events() {
    any_split_gives_the_same_events("pi");
}

#[test]
fn any_split_of_a_claude_capture_gives_the_same_events() {
    any_split_gives_the_same_events("claude");
}

#[test]
fn any_split_of_a_codex_capture_gives_the_same_events() {
    any_split_gives_the_same_events("codex");
}

#[test]
fn any_split_of_a_gemini_capture_gives_the_same_events() {
    any_split_gives_the_same_events("gemini");
}

#[test]
fn any_split_of_an_opencode_capture_gives_the_same_events() {
    any_split_gives_the_same_events("opencode");
}

#[test]
fn any_split_of_a_copilot_capture_gives_the_same_events() {
    any_split_gives_the_same_events("copilot");
}

/// Whether decoding `chunks` gives exactly `expected`, compared as the events come
/// (nothing is copied: this runs for every offset of every capture).
fn same_events(chunks: &[&[u8]], expected: &[AgentEvent<'static>]) -> bool {
    let mut decoder = ralph_stream::StreamDecoder::new(None);
    let mut seen = 0;
    let mut same = true;
    let mut check = |event: &AgentEvent<'_>| {
        same &= expected.get(seen) == Some(event);
        seen += 1;
    };
    for chunk in chunks {
        decoder.feed(chunk, &mut check);
    }
    decoder.finish(&mut check);
    same && seen == expected.len()
}

/// pi: the text deltas of every message that ended well add up to its final text, so
/// nothing streamed was lost or duplicated (failed attempts' deltas are dropped). The
/// `long` samples are left out: their middle was cut when they were captured.
#[test]
fn pi_deltas_add_up_to_each_message() {
    for path in fixtures("pi")
        .into_iter()
        .filter(|p| !p.starts_with(support::fixtures_dir().join("pi/long")))
    {
        let events = events_in_chunks(Some(StreamFormat::Pi), [read(&path).as_slice()]);
        let mut streamed = String::new();
        for event in &events {
            match event {
                AgentEvent::TextDelta { text } => streamed.push_str(text),
                AgentEvent::MessageFinished { text, stop, .. } => {
                    if !stop.is_failure() && !streamed.is_empty() {
                        assert_eq!(&streamed, text, "{}", name_of(&path));
                    }
                    streamed.clear();
                }
                _ => {}
            }
        }
    }
}

/// Claude Code: the text deltas of every message, cut ones included, are its text, each
/// character once, whether its blocks came whole or also as deltas first
/// (`--include-partial-messages`, the `partial_*` captures), and the deltas say something.
#[test]
fn claude_deltas_are_each_message_once() {
    for path in fixtures("claude") {
        let name = name_of(&path);
        let events = events_in_chunks(Some(StreamFormat::Claude), [read(&path).as_slice()]);
        let (mut streamed, mut deltas) = (String::new(), 0);
        for event in &events {
            match event {
                AgentEvent::TextDelta { text } => {
                    streamed.push_str(text);
                    deltas += 1;
                }
                AgentEvent::MessageFinished { text, .. } => {
                    assert_eq!(&streamed, text, "{name}");
                    streamed.clear();
                }
                _ => {}
            }
        }
        let partial = name.contains("partial");
        let answers = events
            .iter()
            .filter(|e| matches!(e, AgentEvent::MessageFinished { text, .. } if !text.is_empty()))
            .count();
        assert!(
            !partial || deltas > answers,
            "{name}: {deltas} deltas for {answers} messages: the deltas did not stream"
        );
    }
}

/// Claude Code cut at the output limit: its `assistant` lines say `stop_reason: null`, and
/// `max_tokens` comes only in the `message_delta` after them. Each cut message ends with a
/// length stop; Claude Code asks the model to go on, and after its fourth cut gives up
/// with an error message of its own.
#[test]
fn claude_messages_cut_at_the_output_limit_end_with_a_length_stop() {
    use ralph_stream::Stop;
    let stops = |name: &str| -> Vec<Stop> {
        let path = support::fixtures_dir().join(format!("claude/{name}.jsonl"));
        events_in_chunks(Some(StreamFormat::Claude), [read(&path).as_slice()])
            .iter()
            .filter_map(|event| match event {
                AgentEvent::MessageFinished { stop, .. } => Some(*stop),
                _ => None,
            })
            .collect()
    };
    assert_eq!(
        stops("v2.1.332_partial_max_tokens_then_resumed"),
        [Stop::Length, Stop::Completed]
    );
    assert_eq!(
        stops("v2.1.332_partial_max_tokens_gave_up"),
        [
            Stop::Length,
            Stop::Length,
            Stop::Length,
            Stop::Length,
            Stop::Error
        ]
    );
}

/// Codex, Gemini CLI, OpenCode, Copilot: the same, with the agent's own format forced,
/// and every capture is recognised as its agent's. Copilot's deltas can miss a piece of a
/// long answer (`long_answer_lossy_deltas`): there they are followed by the whole answer,
/// so what is shown ends with it, and nothing of it is lost.
#[test]
fn deltas_add_up_to_each_message_of_the_other_agents() {
    let agents = [
        ("codex", StreamFormat::Codex),
        ("gemini", StreamFormat::Gemini),
        ("opencode", StreamFormat::Opencode),
        ("copilot", StreamFormat::Copilot),
    ];
    for (dir, format) in agents {
        for path in fixtures(dir) {
            let bytes = read(&path);
            assert_eq!(ralph_stream::summarize(&bytes, None).0, Some(format));
            let events = events_in_chunks(Some(format), [bytes.as_slice()]);
            let mut streamed = String::new();
            let mut messages = 0;
            for event in &events {
                match event {
                    AgentEvent::TextDelta { text } => streamed.push_str(text),
                    AgentEvent::MessageFinished { text, stop, .. } => {
                        if !stop.is_failure() {
                            let lossy = name_of(&path).contains("lossy_deltas");
                            if lossy && streamed != *text {
                                assert!(streamed.ends_with(&**text), "{}", name_of(&path));
                                assert!(streamed.len() > text.len(), "{}", name_of(&path));
                            } else {
                                assert_eq!(&streamed, text, "{}", name_of(&path));
                            }
                            messages += 1;
                        }
                        streamed.clear();
                    }
                    _ => {}
                }
            }
            let summary = ralph_stream::summarize(&bytes, None).1;
            assert_eq!(
                messages > 0,
                summary.final_text.is_some(),
                "{}",
                name_of(&path)
            );
        }
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(64))]
        #[test]
        fn random_multi_cuts_give_the_same_events(
            which in 0usize..1000,
            cuts in proptest::collection::vec(any::<prop::sample::Index>(), 0..12),
        ) {
            let files = all_fixtures();
            let path = &files[which % files.len()];
            let bytes = read(path);
            let mut cuts: Vec<usize> = cuts.iter().map(|i| i.index(bytes.len() + 1)).collect();
            cuts.sort_unstable();
            let mut chunks = Vec::new();
            let mut prev = 0;
            for c in cuts {
                chunks.push(&bytes[prev..c]);
                prev = c;
            }
            chunks.push(&bytes[prev..]);
            prop_assert_eq!(
                events_in_chunks(None, chunks),
                events_in_chunks(None, [bytes.as_slice()])
            );
        }
    }
}

/// A Claude Code stopped before its `result` (Ctrl-C, an inactivity timeout) counts each
/// call's output as its `message_delta` gave it: what the `result` would have said, however
/// the bytes are split; and the `result`'s totals, when it comes, are not added to them.
/// (A sub-agent's calls stream no counts: `partial_rich`'s are only in its `result`.)
#[test]
fn claude_without_its_result_counts_the_output_its_stream_events_gave() {
    let summary_of = |chunks: &[&[u8]]| {
        let mut decoder = StreamDecoder::new(Some(StreamFormat::Claude));
        let mut summary = SessionSummary::default();
        for chunk in chunks {
            decoder.feed(chunk, |event| summary.observe(event));
        }
        decoder.finish(|event| summary.observe(event));
        summary
    };
    for (name, output) in [
        ("v2.1.332_partial_max_tokens_gave_up.jsonl", 36),
        ("v2.1.332_partial_max_tokens_then_resumed.jsonl", 22),
        ("v2.1.332_partial_text.jsonl", 22),
        ("v2.1.332_partial_overloaded529_once_then_ok.jsonl", 13),
    ] {
        let whole = read(&support::fixtures_dir().join("claude").join(name));
        let finished = summary_of(&[&whole]);
        assert!(finished.terminal_event, "{name}");
        assert_eq!(finished.tokens.output, output, "{name}");
        let text = std::str::from_utf8(&whole).expect("UTF-8");
        // The `result` line, whose `type` is not its first key.
        let result = text.find(r#""type":"result""#).expect("its result line");
        let unfinished = &whole[..text[..result].rfind('\n').map_or(0, |at| at + 1)];
        for at in 0..=unfinished.len() {
            let (a, b) = unfinished.split_at(at);
            let summary = summary_of(&[a, b]);
            assert!(!summary.terminal_event, "{name}");
            assert_eq!(summary.tokens, finished.tokens, "{name}: split at {at}");
        }
    }
}
