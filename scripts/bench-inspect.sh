#!/usr/bin/env bash
# `ralph inspect` on a generated ~200 MB pi stream of the snapshot shape, against
# `jq -c 'select(.type=="turn_end")'` on the same file, measured in the same run; and ralph's
# peak memory on a 10 MB and a 200 MB stream (it must not grow with the stream).
#
#   scripts/bench-inspect.sh [RUNS]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-5}"
DATA="$REPO/target/bench-data"
cd "$REPO"

command -v jq >/dev/null || { echo "installing jq" >&2; apt-get install -y -qq jq >/dev/null; }
[ -x /usr/bin/time ] || { echo "installing time" >&2; apt-get install -y -qq time >/dev/null; }

cargo build --release -q -p ralph-cli -p ralph-test-support
# Where cargo put the binaries: its target directory, which CARGO_TARGET_DIR may move.
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"
RALPH="$BIN/ralph"
mkdir -p "$DATA"
for size in medium large; do
    [ -s "$DATA/pi-$size.jsonl" ] || "$BIN/ralph-gen-stream" pi "$size" "$DATA/pi-$size.jsonl" 2>/dev/null
done
LARGE="$DATA/pi-large.jsonl"

# median SECONDS_OR_KB... : the middle value.
median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# wall CMD...: wall seconds of one run (output discarded), at microsecond resolution.
wall() {
    local start=$EPOCHREALTIME
    "$@" >/dev/null
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.4f", b - a }'
}
# rss CMD...: peak resident memory of one run, in KB.
rss() { /usr/bin/time -f '%M' "$@" 2>&1 >/dev/null | tail -1; }

cat "$LARGE" >/dev/null # page cache
ralph_t=() jq_t=()
for _ in $(seq "$RUNS"); do
    ralph_t+=("$(wall "$RALPH" inspect "$LARGE")")
    jq_t+=("$(wall jq -c 'select(.type=="turn_end")' "$LARGE")")
done
r=$(median "${ralph_t[@]}"); j=$(median "${jq_t[@]}")
mb=$(( $(stat -c %s "$LARGE") / 1000000 ))
echo "input: $LARGE ($mb MB), median of $RUNS runs"
echo "ralph inspect: ${r}s   jq select(turn_end): ${j}s   ratio jq/ralph: $(awk -v a="$j" -v b="$r" 'BEGIN { printf "%.1fx", a / b }')"

for size in medium large; do
    kb=$(rss "$RALPH" inspect "$DATA/pi-$size.jsonl")
    echo "peak RSS on pi-$size ($(( $(stat -c %s "$DATA/pi-$size.jsonl") / 1000000 )) MB): $((kb / 1024)) MiB"
done
