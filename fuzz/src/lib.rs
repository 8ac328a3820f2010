//! What every fuzz target checks: decoding never panics, and the events do not depend on
//! how the bytes were chunked.

use ralph_stream::AgentEvent;
use ralph_stream::Pricing;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;

fn events(format: Option<StreamFormat>, chunks: &[&[u8]]) -> (Vec<AgentEvent<'static>>, SessionSummary) {
    // A default model, so Codex turns (which never name theirs) go through the estimate too.
    let pricing = Pricing::default().with_default_model("gpt-5");
    let mut decoder = StreamDecoder::with_max_line(format, 4096).with_pricing(pricing);
    let mut out = Vec::new();
    let mut summary = SessionSummary::default();
    for chunk in chunks {
        decoder.feed(chunk, |e| {
            summary.observe(e);
            out.push(e.clone().into_owned());
        });
    }
    decoder.finish(|e| {
        summary.observe(e);
        out.push(e.clone().into_owned());
    });
    (out, summary)
}

/// The first byte picks a chunk size; the rest is the stream.
pub fn check(format: Option<StreamFormat>, data: &[u8]) {
    let Some((&size, stream)) = data.split_first() else {
        return;
    };
    let size = usize::from(size % 64) + 1;
    let whole = events(format, &[stream]);
    let chunks: Vec<&[u8]> = stream.chunks(size).collect();
    let chunked = events(format, &chunks);
    assert_eq!(whole.0, chunked.0, "chunking changed the events");
    assert_eq!(whole.1, chunked.1, "chunking changed the summary");
    for event in &whole.0 {
        // The JSON form (what `--events` prints) must always be valid JSON with a type,
        // whatever the agent wrote.
        let json = serde_json::to_string(event).expect("an event serializes");
        let back: serde_json::Value = serde_json::from_str(&json).expect("its JSON parses");
        assert!(back["type"].is_string());
    }
}
