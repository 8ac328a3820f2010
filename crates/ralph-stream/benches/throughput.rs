//! Throughput of the whole stream core (framing, parsing, summary) in memory.
//!
//! Inputs are generated: a ~200 MB pi stream of the snapshot shape (thousands of deltas
//! per message, non-ASCII text) and a ~200 MB Claude stream with large escaped tool
//! outputs. Each is fed in 1 MiB chunks, as a pipe reader would. A memchr line count over
//! the same bytes runs in the same group as the reference for "as fast as finding the
//! newlines".

use std::hint::black_box;
use std::time::Duration;

use criterion::Criterion;
use criterion::Throughput;
use criterion::criterion_group;
use criterion::criterion_main;
use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_test_support::streamgen;

const CHUNK: usize = 1 << 20;

fn decode(bytes: &[u8], format: Option<StreamFormat>) -> (SessionSummary, u64) {
    let mut decoder = StreamDecoder::new(format);
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
    // Correctness first: a fast wrong answer is worth nothing.
    let (summary, _) = decode(bytes, Some(format));
    assert_eq!(
        summary.final_text.as_deref(),
        Some(generated.expect.final_text.as_str())
    );
    assert!((summary.cost_usd.unwrap() - generated.expect.cost_usd).abs() < 1e-6);

    let mut group = c.benchmark_group(name);
    group.throughput(Throughput::Bytes(bytes.len() as u64));
    group.sample_size(10);
    group.measurement_time(Duration::from_secs(8));
    group.bench_function("decode+summary", |b| {
        b.iter(|| black_box(decode(black_box(bytes), Some(format))))
    });
    group.bench_function("decode+summary (auto-detect)", |b| {
        b.iter(|| black_box(decode(black_box(bytes), None)))
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
}

criterion_group!(benches, throughput);
criterion_main!(benches);
