//! Throughput of the whole stream core (framing, parsing, summary) in memory.
//!
//! Inputs are generated: a ~200 MB pi stream of the snapshot shape (thousands of deltas
//! per message, non-ASCII text), a ~200 MB Claude stream with large escaped tool
//! outputs, and Codex, Gemini CLI, OpenCode and Copilot streams of 100-240 MB shaped like
//! their real captures (large tool outputs, Gemini's and Copilot's small deltas, Copilot's
//! envelope and no-op events). Each is fed in 1 MiB chunks: the figures the issues
//! quote were taken so. ralph itself reads at most 256 KiB at a time
//! (`STDOUT_READ_BYTES`); `scripts/bench-stream-ab.sh` measures that size too, and
//! compares two revisions in one binary. A memchr line count over the same bytes runs in
//! the same group as the reference for "as fast as finding the newlines".

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;
use ralph_stream::Pricing;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_test_support::streamgen;
use ralph_test_support::streamgen::Reports;

const CHUNK: usize = 1 << 20;

/// A generator of one agent's stream.
type Generator = fn(&streamgen::LoopSpec) -> streamgen::Generated;

fn decode(bytes: &[u8], format: Option<StreamFormat>, model: &str) -> (SessionSummary, u64) {
    // ralph passes the model it asked for: Codex never names it.
    let pricing = Pricing::default().with_default_model(model);
    let mut decoder = StreamDecoder::new(format).with_pricing(pricing);
    let mut summary = SessionSummary::default();
    for chunk in bytes.chunks(CHUNK) {
        decoder.feed(chunk, |e| summary.observe(e));
    }
    decoder.finish(|e| summary.observe(e));
    (summary, decoder.lines())
}

fn bench_stream(
    c: &mut Criterion,
    name: &str,
    generated: &streamgen::Generated,
    format: StreamFormat,
) {
    let bytes = &generated.bytes;
    let model = generated.expect.model.as_str();
    // Correctness first: a fast wrong answer is worth nothing.
    let (summary, _) = decode(bytes, Some(format), model);
    assert_eq!(
        summary.final_text.as_deref(),
        Some(generated.expect.final_text.as_str())
    );
    assert!(summary.succeeded);
    match generated.expect.reports {
        Reports::CostAndTokens => {
            assert!((summary.cost_usd.unwrap() - generated.expect.cost_usd).abs() < 1e-6)
        }
        Reports::TokensOnly => assert!(summary.cost_usd.unwrap() > 0.0),
        Reports::Nothing => assert_eq!(summary.cost_usd, None),
    }

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("decode+summary", |b| {
        b.iter(|| black_box(decode(black_box(bytes), Some(format), model)))
    });
    group.bench_function("decode+summary (auto-detect)", |b| {
        b.iter(|| black_box(decode(black_box(bytes), None, model)))
    });
    group.bench_function("reference: memchr line count", |b| {
        b.iter(|| black_box(memchr::memchr_iter(b'\n', black_box(bytes)).count()))
    });
    group.finish();
}

fn throughput(c: &mut Criterion) {
    let pi = streamgen::pi_stream(&streamgen::PiSpec::large());
    eprintln!("pi stream: {} MB", pi.bytes.len() / 1_000_000);
    bench_stream(c, "pi-snapshot-200MB", &pi, StreamFormat::Pi);
    drop(pi);
    let claude = streamgen::claude_stream(&streamgen::ClaudeSpec::large());
    eprintln!("claude stream: {} MB", claude.bytes.len() / 1_000_000);
    bench_stream(c, "claude-200MB", &claude, StreamFormat::Claude);
    drop(claude);
    let large = streamgen::LoopSpec::large();
    // Copilot repeats each tool output five times: fewer turns keep it near 200 MB.
    let copilot = streamgen::LoopSpec {
        turns: large.turns / 2,
        ..large.clone()
    };
    let others: [(&str, Generator, &streamgen::LoopSpec, StreamFormat); 4] = [
        (
            "codex",
            streamgen::codex_stream,
            &large,
            StreamFormat::Codex,
        ),
        (
            "gemini",
            streamgen::gemini_stream,
            &large,
            StreamFormat::Gemini,
        ),
        (
            "opencode",
            streamgen::opencode_stream,
            &large,
            StreamFormat::Opencode,
        ),
        (
            "copilot",
            streamgen::copilot_stream,
            &copilot,
            StreamFormat::Copilot,
        ),
    ];
    for (name, generate, spec, format) in others {
        let generated = generate(spec);
        let mb = generated.bytes.len() / 1_000_000;
        eprintln!("{name} stream: {mb} MB");
        bench_stream(c, &format!("{name}-{mb}MB"), &generated, format);
    }
}

criterion_group!(benches, throughput);
criterion_main!(benches);
