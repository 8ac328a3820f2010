#!/bin/sh
# ralph's own time per loop iteration, beside ralph-orchestrator's (the public `ralph-cli`
# 2.10.1 from crates.io), on the same fake agent. Prints figures and ratios.
#
# ralph-orchestrator is built once into a cache outside target/ (about ten minutes on two
# cores) and reused: set RALPH_UPSTREAM_CACHE to move the cache, or RALPH_UPSTREAM_BIN to
# use a binary you already have. BENCH_ITERATIONS (default 1000), BENCH_ROUNDS
# (default 3) and BENCH_RALPH_BIN (another build of ralph to measure, such as an older
# commit's) are passed on to the bench.
set -eu
cache=${RALPH_UPSTREAM_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/ralph-bench/upstream-2.10.1}
if [ -z "${RALPH_UPSTREAM_BIN:-}" ]; then
    RALPH_UPSTREAM_BIN=$cache/root/bin/ralph
    if [ ! -x "$RALPH_UPSTREAM_BIN" ]; then
        echo "building ralph-orchestrator 2.10.1 into $cache (once; about ten minutes)" >&2
        mkdir -p "$cache"
        if ! CARGO_TARGET_DIR=$cache/target cargo install ralph-cli --version 2.10.1 \
            --locked --root "$cache/root" >"$cache/build.log" 2>&1; then
            echo "building ralph-orchestrator failed (see $cache/build.log);" \
                "measuring ralph alone" >&2
            RALPH_UPSTREAM_BIN=
        fi
    fi
fi
export RALPH_UPSTREAM_BIN
cd "$(dirname "$0")/.."
exec cargo bench -p ralph-cli --bench loop_overhead
