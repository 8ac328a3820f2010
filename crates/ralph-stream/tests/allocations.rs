//! The hot path allocates nothing per line: pi's snapshot lines are skipped without
//! building anything, and decoded strings go to a scratch buffer that is reused (Claude's
//! escaped tool outputs run to hundreds of KB; allocating them per line costs fresh page
//! faults and halves the speed).

use std::alloc::GlobalAlloc;
use std::alloc::Layout;
use std::alloc::System;
use std::sync::atomic::AtomicU64;
use std::sync::atomic::Ordering;

use ralph_stream::SessionSummary;
use ralph_stream::StreamDecoder;
use ralph_stream::StreamFormat;
use ralph_test_support::streamgen;

struct Counting;

static ALLOCATIONS: AtomicU64 = AtomicU64::new(0);
static ALLOCATED_BYTES: AtomicU64 = AtomicU64::new(0);
static LARGEST: AtomicU64 = AtomicU64::new(0);

// SAFETY: forwards to the system allocator unchanged; only counts calls.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(layout.size() as u64, Ordering::Relaxed);
        LARGEST.fetch_max(layout.size() as u64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as ours.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
        ALLOCATED_BYTES.fetch_add(new_size as u64, Ordering::Relaxed);
        LARGEST.fetch_max(new_size as u64, Ordering::Relaxed);
        // SAFETY: same contract as ours.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// While decoding `bytes` in 1 MiB chunks: the allocations made, the bytes they asked
/// for, the largest one, and the line count.
fn allocations(bytes: &[u8], format: StreamFormat) -> (u64, u64, u64, u64) {
    let mut decoder = StreamDecoder::new(Some(format));
    let mut summary = SessionSummary::default();
    // Warm up: the first pass grows the reusable buffers to their working size; the
    // second pass of the same decoder is the steady state being measured.
    for chunk in bytes.chunks(1 << 20) {
        decoder.feed(chunk, |e| summary.observe(e));
    }
    let before = ALLOCATIONS.load(Ordering::Relaxed);
    let bytes_before = ALLOCATED_BYTES.load(Ordering::Relaxed);
    LARGEST.store(0, Ordering::Relaxed);
    for chunk in bytes.chunks(1 << 20) {
        decoder.feed(chunk, |e| summary.observe(e));
    }
    decoder.finish(|e| summary.observe(e));
    let lines = decoder.lines() / 2;
    (
        ALLOCATIONS.load(Ordering::Relaxed) - before,
        ALLOCATED_BYTES.load(Ordering::Relaxed) - bytes_before,
        LARGEST.load(Ordering::Relaxed),
        lines,
    )
}

#[test]
fn pi_and_claude_streams_decode_without_allocating_per_line() {
    let pi = streamgen::pi_stream(&streamgen::PiSpec::medium());
    let (allocs, allocated, largest, lines) = allocations(&pi.bytes, StreamFormat::Pi);
    eprintln!("pi: {allocs} allocations, {allocated} bytes, largest {largest}, for {lines} lines");
    // What remains is per message (its final text), not per line.
    assert!(
        allocs * 10 < lines,
        "pi: {allocs} allocations for {lines} lines"
    );

    // Claude: a few small allocations per line (its block list, tool ids, the message
    // text), never one the size of a tool output: that is decoded into the reused
    // scratch buffer.
    let spec = streamgen::ClaudeSpec::medium();
    let claude = streamgen::claude_stream(&spec);
    let (allocs, allocated, largest, lines) = allocations(&claude.bytes, StreamFormat::Claude);
    eprintln!(
        "claude: {allocs} allocations, {allocated} bytes, largest {largest}, for {lines} lines"
    );
    assert!(
        allocs < lines * 4,
        "claude: {allocs} allocations for {lines} lines"
    );
    assert!(
        largest < spec.tool_output_bytes as u64 / 4,
        "claude: an allocation of {largest} bytes for tool outputs of {}",
        spec.tool_output_bytes
    );
}
