#!/bin/sh
# Time from `ralph run` to the agent's spawn, with the version probe uncached and cached,
# in the same rounds (a fake agent whose `--version` takes 0.5 s). Prints both medians and
# their ratio. BENCH_ROUNDS (default 5) is passed on to the bench.
set -eu
cd "$(dirname "$0")/.."
exec cargo bench -p ralph-cli --bench start_to_spawn
