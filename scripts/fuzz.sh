#!/usr/bin/env bash
# Fuzzes the stream parsers with cargo-fuzz (libFuzzer + AddressSanitizer).
#
#   scripts/fuzz.sh                 # every target, 60 s each
#   scripts/fuzz.sh 1800 decode_pi  # one target, 30 minutes
#
# Each target feeds its input to the stream decoder whole and in chunks, and checks that
# nothing panics and that chunking changes neither the events nor the summary. The corpus
# is seeded from the real captures in tests/fixtures. Crashes land in fuzz/artifacts/.
#
# cargo-fuzz passes `-Z` flags to rustc; the machine has only a stable toolchain, so
# RUSTC_BOOTSTRAP=1 lets stable accept them (for this build only).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SECONDS_PER_TARGET="${1:-60}"
shift || true
TARGETS=("$@")
[ ${#TARGETS[@]} -gt 0 ] || TARGETS=(decode_pi decode_claude decode_codex decode_gemini decode_opencode decode_copilot decode_auto)
CARGO_FUZZ_VERSION=0.13.2
# Inputs larger than this are not worth the fuzzer's time: lines are capped at 4 KiB in the
# targets, so longer inputs only repeat what shorter ones reach.
MAX_LEN=65536

if ! cargo fuzz --version 2>/dev/null | grep -q "$CARGO_FUZZ_VERSION"; then
    cargo install --locked cargo-fuzz --version "$CARGO_FUZZ_VERSION"
fi

cd "$REPO/fuzz"
export RUSTC_BOOTSTRAP=1
for target in "${TARGETS[@]}"; do
    corpus="corpus/$target"
    mkdir -p "$corpus"
    if [ -z "$(ls -A "$corpus")" ]; then
        # A seed is a chunk-size byte followed by a real capture.
        find "$REPO/tests/fixtures" -type f \( -name '*.jsonl' -o -name '*.raw' \) -size -64k |
            while read -r f; do
                { printf '\x07'; cat "$f"; } >"$corpus/$(basename "$(dirname "$f")")-$(basename "$f")"
            done
    fi
    cargo fuzz run -O "$target" "$corpus" -- \
        -max_total_time="$SECONDS_PER_TARGET" -max_len="$MAX_LEN" -print_final_stats=1
done
