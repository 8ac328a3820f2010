#!/usr/bin/env bash
# The criterion bench of ralph-stream (`cargo bench -p ralph-stream`, the figures the
# issues quote) for an earlier revision and this working tree, one process per revision,
# in alternating rounds.
#
# One pass of each binary is not a comparison on a shared VM: the same binary's pi figure
# moves by 10–15% from one process to the next (where the 200 MB input lands in memory
# decides how fast it can be read), more than a parser change is worth. So the two
# binaries run in turns, ROUNDS times each, and per stream this prints
#   - the median GiB/s of each, and their ratio;
#   - the median of the paired ratios (round by round, new over old);
#   - the same ratio after dividing each run's figure by its own memchr reference (the
#     "reference" line of its group, the same code in both binaries): the process's
#     memory speed cancels out, which is what the bench prints its reference for.
# `scripts/bench-stream-ab.sh` compares the decoders inside one binary instead; this one
# measures what the criterion bench measures.
#
#   scripts/bench-stream-criterion-ab.sh REV [ROUNDS] [FILTER]
#
# FILTER is a regular expression on the groups (`pi-snapshot`, `claude`, `codex`, `gemini`,
# `opencode`, `copilot`); by default all. Each round of all six takes about 4 minutes per
# binary on 2 cores. REV is built once in a temporary worktree (with its own target
# directory under target/, kept for the next run).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REV="${1:?usage: scripts/bench-stream-criterion-ab.sh REV [ROUNDS] [FILTER]}"
ROUNDS="${2:-3}"
FILTER="${3:-.}"
# Seconds of measurement per benchmark and round (criterion's default is 5).
MEASURE_SECS=6
cd "$REPO"
COMMIT="$(git rev-parse --verify -q "$REV^{commit}")" || {
    echo "bench-stream-criterion-ab: $REV is not a commit of this repository" >&2
    exit 2
}
TARGET="${CARGO_TARGET_DIR:-$REPO/target}"
WORK="$(mktemp -d)"
trap 'git -C "$REPO" worktree remove --force "$WORK/old" 2>/dev/null || true; rm -rf "$WORK"' EXIT

# The path of the bench binary cargo builds in $1 (a checkout) with target directory $2.
bench_binary() {
    (cd "$1" && CARGO_TARGET_DIR="$2" cargo bench -q -p ralph-stream --bench throughput \
        --no-run --message-format=json 2>/dev/null) |
        grep -o '"executable":"[^"]*throughput[^"]*"' | tail -1 | cut -d'"' -f4
}

echo "building the bench of $REV (${COMMIT:0:10}) and of this tree" >&2
git worktree add -q --detach "$WORK/old" "$COMMIT"
OLD="$(bench_binary "$WORK/old" "$TARGET/bench-criterion-ab")"
NEW="$(bench_binary "$REPO" "$TARGET")"
[ -x "$OLD" ] && [ -x "$NEW" ] || {
    echo "bench-stream-criterion-ab: a bench binary did not build" >&2
    exit 1
}
# Copies, so that a later build cannot replace a binary between rounds.
cp "$OLD" "$WORK/old.bench"
cp "$NEW" "$WORK/new.bench"

# One run: "side group kind GiB/s" lines, kind being decode or reference.
run() {
    local side="$1"
    (cd "$WORK" && "./$side.bench" --bench "($FILTER).*/(decode\+summary\$|reference)" \
        --measurement-time "$MEASURE_SECS" --warm-up-time 1 --noplot 2>&1) |
        awk -v side="$side" '
            /^[a-z].*\/(decode|reference)/ { split($1, id, "/"); group = id[1]
                kind = ($1 ~ /reference/) ? "reference" : "decode" }
            /^ +thrpt:/ && !/%/ {
                # The middle of the three estimates criterion prints: [low mid high].
                split($0, parts, "[][]"); split(parts[2], est, " ")
                value = est[3]; if (est[4] == "MiB/s") value /= 1024
                print side, group, kind, value }'
}

for round in $(seq "$ROUNDS"); do
    echo "round $round of $ROUNDS" >&2
    # Alternate which goes first, so neither always runs on a warmer machine.
    if ((round % 2)); then sides="old new"; else sides="new old"; fi
    for side in $sides; do
        run "$side" | sed "s/^/$round /"
    done
done >"$WORK/runs"

awk '
    function median(list,    n, values, i, j, t) {
        n = split(list, values, " ")
        for (i = 2; i <= n; i++) for (j = i; j > 1 && values[j - 1] + 0 > values[j] + 0; j--) {
            t = values[j]; values[j] = values[j - 1]; values[j - 1] = t
        }
        return n % 2 ? values[(n + 1) / 2] : (values[n / 2] + values[n / 2 + 1]) / 2
    }
    { v[$1, $2, $3, $4] = $5; groups[$3] = 1; rounds[$1] = 1 }
    END {
        printf "%-20s %9s %9s %7s %13s %13s\n", "stream", "old GiB/s", "new GiB/s", "ratio",
            "paired ratio", "vs reference"
        for (g in groups) {
            old = new = paired = normal = ""
            for (r in rounds) {
                if (!((r, "old", g, "decode") in v) || !((r, "new", g, "decode") in v)) continue
                o = v[r, "old", g, "decode"]; n = v[r, "new", g, "decode"]
                old = old " " o; new = new " " n; paired = paired " " n / o
                normal = normal " " (n / v[r, "new", g, "reference"]) / (o / v[r, "old", g, "reference"])
            }
            if (old == "") continue
            mo = median(old); mn = median(new)
            printf "%-20s %9.3f %9.3f %7.3f %13.3f %13.3f\n", g, mo, mn, mn / mo, median(paired),
                median(normal)
        }
    }' "$WORK/runs"
