#!/usr/bin/env bash
# Parser throughput of this working tree against an earlier revision, both built into one
# binary and timed in alternating rounds on the same generated streams.
#
# `cargo bench -p ralph-stream` run once per revision compares two processes: on a shared
# VM their figures drift by more than a parser change is worth, and the layout the linker
# happens to give the hot loops moves a build by a few percent. Here every round times
# the old parser, the new one and a memchr line count (the reference) back to back on the
# same bytes, so drift cancels in the paired ratio. Layout still moves it; to see by how
# much, run again with RUSTFLAGS="-C llvm-args=-align-all-nofallthru-blocks=6".
#
# The streams are the ones the criterion bench uses, fed in 1 MiB chunks (as that bench
# does), 256 KiB chunks (the most ralph reads from an agent's pipe at once,
# `STDOUT_READ_BYTES`) and 64 KiB chunks (a pipe left at its default size).
#
#   scripts/bench-stream-ab.sh REV [ROUNDS]
#
# Prints, per stream and chunk size, the median throughput of each and the median of
# new/old over the rounds with its quartiles. REV needs the same public decoder API
# (`StreamDecoder`, `SessionSummary`, `Pricing`), which ralph-stream has had since the
# stream core was written.
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REV="${1:?usage: scripts/bench-stream-ab.sh REV [ROUNDS]}"
ROUNDS="${2:-30}"
WORK="$(mktemp -d)"
trap 'rm -rf "$WORK"' EXIT
cd "$REPO"
git rev-parse --verify -q "$REV^{commit}" >/dev/null || {
    echo "bench-stream-ab: $REV is not a commit of this repository" >&2
    exit 2
}

# A copy of ralph-stream (and ralph-types, where the revision has it) under its own
# package names, so both versions link into one binary.
copy_side() {
    local side="$1" from="$2"
    mkdir -p "$WORK/$side"
    if [ "$from" = tree ]; then
        cp -r crates/ralph-stream "$WORK/$side/"
        [ -d crates/ralph-types ] && cp -r crates/ralph-types "$WORK/$side/"
    else
        # ralph-types came later than ralph-stream: older revisions have none.
        local paths=(crates/ralph-stream)
        git cat-file -e "$from:crates/ralph-types" 2>/dev/null && paths+=(crates/ralph-types)
        git archive "$from" "${paths[@]}" | tar -x -C "$WORK/$side" --strip-components=1
    fi
    local crate
    for crate in ralph-stream ralph-types; do
        local manifest="$WORK/$side/$crate/Cargo.toml"
        [ -f "$manifest" ] || continue
        # Workspace keys become plain values; tests, benches and lints are not built.
        awk -v name="$crate-$side" '
            /^\[/ { section = $0 }
            section == "[package]" && /^name *=/ { print "name = \"" name "\""; next }
            section == "[package]" && /\.workspace *= *true/ {
                if ($0 ~ /^version\./) print "version = \"0.1.0\""
                if ($0 ~ /^edition\./) print "edition = \"2024\""
                next
            }
            section == "[lints]" || section == "[dev-dependencies]" || section == "[[bench]]" { next }
            section == "[dependencies]" && /^ralph-types *=/ {
                print "ralph-types = { path = \"../ralph-types\", package = \"ralph-types-" side "\" }"
                next
            }
            { print }
        ' side="$side" "$manifest" >"$manifest.ab"
        mv "$manifest.ab" "$manifest"
    done
}
copy_side old "$REV"
copy_side new tree

mkdir -p "$WORK/harness/src"
cat >"$WORK/Cargo.toml" <<'EOF'
[workspace]
resolver = "3"
members = ["harness"]

[profile.release]
debug = "line-tables-only"
codegen-units = 4
EOF
cat >"$WORK/harness/Cargo.toml" <<'EOF'
[package]
name = "harness"
version = "0.1.0"
edition = "2024"

[dependencies]
memchr = "2.8.3"
old = { path = "../old/ralph-stream", package = "ralph-stream-old" }
new = { path = "../new/ralph-stream", package = "ralph-stream-new" }
EOF
cat >"$WORK/harness/src/main.rs" <<EOF
#![allow(dead_code, unused_imports, unreachable_pub)]

// The generators the criterion bench uses, compiled in from this tree.
#[path = "$REPO/crates/ralph-test-support/src/streamgen/mod.rs"]
mod streamgen;

use std::hint::black_box;
use std::time::Instant;

macro_rules! decode {
    (\$name:ident, \$krate:ident) => {
        fn \$name(bytes: &[u8], chunk: usize, format: &str, model: &str) -> (bool, u64) {
            use \$krate::*;
            let format = match format {
                "pi" => StreamFormat::Pi,
                "claude" => StreamFormat::Claude,
                "codex" => StreamFormat::Codex,
                "gemini" => StreamFormat::Gemini,
                "opencode" => StreamFormat::Opencode,
                _ => StreamFormat::Copilot,
            };
            let pricing = Pricing::default().with_default_model(model);
            let mut decoder = StreamDecoder::new(Some(format)).with_pricing(pricing);
            let mut summary = SessionSummary::default();
            for piece in bytes.chunks(chunk) {
                decoder.feed(piece, |e| summary.observe(e));
            }
            decoder.finish(|e| summary.observe(e));
            (summary.succeeded, decoder.lines())
        }
    };
}
decode!(old_decode, old);
decode!(new_decode, new);

fn reference(bytes: &[u8], _: usize, _: &str, _: &str) -> (bool, u64) {
    (true, memchr::memchr_iter(b'\n', bytes).count() as u64)
}

type Decode = fn(&[u8], usize, &str, &str) -> (bool, u64);

fn quantile(values: &[f64], q: f64) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    sorted[((sorted.len() - 1) as f64 * q).round() as usize]
}

fn main() {
    let rounds: usize = std::env::args().nth(1).and_then(|r| r.parse().ok()).unwrap_or(30);
    let large = streamgen::LoopSpec::large();
    let copilot = streamgen::LoopSpec { turns: large.turns / 2, ..large.clone() };
    let streams: Vec<(&str, streamgen::Generated)> = vec![
        ("pi", streamgen::pi_stream(&streamgen::PiSpec::large())),
        ("claude", streamgen::claude_stream(&streamgen::ClaudeSpec::large())),
        ("codex", streamgen::codex_stream(&large)),
        ("gemini", streamgen::gemini_stream(&large)),
        ("opencode", streamgen::opencode_stream(&large)),
        ("copilot", streamgen::copilot_stream(&copilot)),
    ];
    let sides: [(&str, Decode); 3] = [("ref", reference), ("old", old_decode), ("new", new_decode)];
    println!("{rounds} rounds; GiB/s are medians; new/old is the median of the per-round ratios [quartiles]");
    for (name, generated) in &streams {
        let bytes = &generated.bytes;
        let model = generated.expect.model.as_str();
        // Both must read the stream the same way before their speed means anything.
        let (old_ok, old_lines) = old_decode(bytes, 1 << 20, name, model);
        let (new_ok, new_lines) = new_decode(bytes, 1 << 20, name, model);
        assert!(old_ok && new_ok && old_lines == new_lines, "{name}: old and new disagree");
        let gib = bytes.len() as f64 / f64::from(1u32 << 30);
        for chunk in [1usize << 20, 1 << 18, 1 << 16] {
            let mut seconds = vec![Vec::new(); sides.len()];
            for round in 0..rounds {
                for k in 0..sides.len() {
                    let side = (k + round) % sides.len();
                    let start = Instant::now();
                    black_box(sides[side].1(black_box(bytes), chunk, name, model));
                    seconds[side].push(start.elapsed().as_secs_f64());
                }
            }
            let ratios: Vec<f64> = seconds[1].iter().zip(&seconds[2]).map(|(old, new)| old / new).collect();
            println!(
                "{name:8} {:>4} KiB  ref {:6.2}  old {:6.2}  new {:6.2}  new/old {:.3} [{:.3} {:.3}]",
                chunk >> 10,
                gib / quantile(&seconds[0], 0.5),
                gib / quantile(&seconds[1], 0.5),
                gib / quantile(&seconds[2], 0.5),
                quantile(&ratios, 0.5),
                quantile(&ratios, 0.25),
                quantile(&ratios, 0.75),
            );
        }
    }
}
EOF
CARGO_TARGET_DIR="$WORK/target" cargo build --release -q --manifest-path "$WORK/Cargo.toml" -p harness
echo "old: $(git rev-parse --short "$REV"); new: the working tree at $(git rev-parse --short HEAD)"
"$WORK/target/release/harness" "$ROUNDS"
