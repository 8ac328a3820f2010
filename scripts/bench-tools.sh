#!/usr/bin/env bash
# `ralph tools memory|skill` on a large workspace: 10,000 memories (about 1.3 MB of
# memories.md) and 200 skills. Each command's median wall time beside `ralph --version`
# (the same binary starting and exiting) and `true`, measured in the same run; the bar is
# 20 ms per command.
#
#   scripts/bench-tools.sh [RUNS]
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
RUNS="${1:-21}"
MEMORIES=10000
SKILLS=200
BAR_MS=20
cd "$REPO"
cargo build --release -q -p ralph-cli
# Where cargo put the binaries: its target directory, which CARGO_TARGET_DIR may move.
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"
RALPH="$BIN/ralph"
WS="$(mktemp -d)"
trap 'rm -rf "$WS"' EXIT
mkdir -p "$WS/.ralph/agent" "$WS/skills"

# The incumbent's layout: one section per type, newest first within each.
awk -v n="$MEMORIES" 'BEGIN {
    split("Patterns Decisions Fixes Context", title, " ")
    print "# Memories"
    for (s = 1; s <= 4; s++) {
        printf "\n## %s\n", title[s]
        for (i = s; i <= n; i += 4) {
            printf "\n### mem-%d-%04x\n", 1795000000 + i, i % 65536
            printf "> lesson %d: the parser keeps its state between chunks, so a split line is read whole\n", i
            printf "<!-- tags: t%d, parser | created: 2026-%02d-%02d -->\n", i % 50, 1 + i % 12, 1 + i % 28
        }
    }
}' >"$WS/.ralph/agent/memories.md"
for i in $(seq "$SKILLS"); do
    mkdir -p "$WS/skills/s$i"
    printf -- '---\nname: skill-%d\ndescription: How to do job %d\n---\nStep one.\nStep two.\n' "$i" "$i" \
        >"$WS/skills/s$i/SKILL.md"
done
printf 'skills:\n  dirs: [skills]\n' >"$WS/ralph.yml"

median() { printf '%s\n' "$@" | sort -g | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
# ms CMD...: wall milliseconds of one run (output discarded).
ms() {
    local start=$EPOCHREALTIME
    "$@" >/dev/null 2>&1
    awk -v a="$start" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.3f", (b - a) * 1000 }'
}
# time_of CMD...: the median wall milliseconds of RUNS runs.
time_of() {
    local t=()
    for _ in $(seq "$RUNS"); do t+=("$(ms "$@")"); done
    median "${t[@]}"
}
# cpu_of CMD...: the mean CPU milliseconds (user + system) of RUNS runs, from `perf stat`
# (`-` without perf). On a shared machine the wall time includes waiting for a core; the
# CPU time does not.
cpu_of() {
    if ! command -v perf >/dev/null; then echo "-"; return; fi
    perf stat -x, -r "$RUNS" -e task-clock "$@" 2>&1 >/dev/null | awk -F, '/task-clock/ { printf "%.2f", $1 }'
}

cd "$WS"
cat .ralph/agent/memories.md >/dev/null
true_ms=$(time_of /bin/true)
ref_ms=$(time_of "$RALPH" --version)
echo "workspace: $MEMORIES memories ($(( $(stat -c %s .ralph/agent/memories.md) / 1000 )) kB), $SKILLS skills; median of $RUNS runs"
ref_cpu=$(cpu_of "$RALPH" --version)
printf '%-38s %8s %11s %8s\n' "command" "wall ms" "/ --version" "cpu ms"
printf '%-38s %8.2f %11s %8s\n' "/bin/true" "$true_ms" "-" "$(cpu_of /bin/true)"
printf '%-38s %8.2f %11s %8s\n' "ralph --version" "$ref_ms" "1.0x" "$ref_cpu"
worst=0
row() {
    local name=$1; shift
    local t
    t=$(time_of "$@")
    printf '%-38s %8.2f %10.1fx %8s\n' "$name" "$t" "$(awk -v a="$t" -v b="$ref_ms" 'BEGIN { print a / b }')" "$(cpu_of "$@")"
    worst=$(awk -v a="$t" -v w="$worst" 'BEGIN { print (a > w) ? a : w }')
}
T="$RALPH tools"
row "memory add" $T memory add "one more lesson" -t fix --tags bench
row "memory list" $T memory list
row "memory list --format json" $T memory list --format json
row "memory show" $T memory show mem-1795005000-1388
row "memory search parser --all" $T memory search parser --all
row "memory search 'lesson 9999'" $T memory search "lesson 9999"
row "memory prime --budget 2000" $T memory prime --budget 2000
row "memory prime (no budget)" $T memory prime
row "memory delete (absent id: full read)" $T memory delete mem-1-ffff
row "skill list" $T skill list
row "skill list --format json" $T skill list --format json
row "skill load skill-100" $T skill load skill-100
# Each delete removes a different memory, so every run rewrites the file.
dels=()
for i in $(seq "$RUNS"); do
    id=$(printf 'mem-%d-%04x' $((1795000000 + i * 4)) $((i * 4 % 65536)))
    dels+=("$(ms $T memory delete "$id")")
done
t=$(median "${dels[@]}")
printf '%-38s %8.2f %10.1fx %8s\n' "memory delete (rewrites the file)" "$t" "$(awk -v a="$t" -v b="$ref_ms" 'BEGIN { print a / b }')" "-"
worst=$(awk -v a="$t" -v w="$worst" 'BEGIN { print (a > w) ? a : w }')
echo "slowest command: ${worst} ms wall (bar: ${BAR_MS} ms); load average: $(cut -d' ' -f1-3 /proc/loadavg)"
awk -v w="$worst" -v bar="$BAR_MS" 'BEGIN { exit !(w < bar) }' || { echo "over the bar" >&2; exit 1; }
