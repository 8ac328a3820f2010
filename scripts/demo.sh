#!/usr/bin/env bash
# See ralph work before you have an API key: builds ralph (release), installs the real pi
# (scripts/install-agents.sh, from npm, cached), starts the project's offline mock model server
# playing scripts/demo/model.yaml, and runs a complete three-hat loop (plan, build, test) on
# "Create hello.py that prints hello, and a test for it" in a fresh temporary workspace. pi is
# real: it writes the files and runs the commands the scripted model asks for, and publishes
# each hand-over with `ralph emit`. Nothing but 127.0.0.1 is contacted once the build and the
# install are done.
#
#   scripts/demo.sh          # then look at the workspace it prints
#
# Environment (optional): RALPH_AGENTS_DIR (see scripts/install-agents.sh), RALPH_DEMO_DELAY_MS
# (pause between streamed model events, default 15, so the answers appear as they stream).
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DELAY_MS="${RALPH_DEMO_DELAY_MS:-15}"
# How long the mock server may take to start listening.
MOCK_START_SECS=30

say() { printf 'demo: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

command -v cargo >/dev/null || die "cargo is not on PATH; install Rust from https://rustup.rs"
command -v python3 >/dev/null || die "python3 is not on PATH; the demo task is a Python script"

say "building ralph and the mock model server (release) ..."
cargo build --release --locked --quiet --manifest-path "$REPO/Cargo.toml" \
    --bin ralph --bin ralph-mock-llm
# Where cargo put the binaries: its target directory, which CARGO_TARGET_DIR may move.
BIN="${CARGO_TARGET_DIR:-$REPO/target}/release"

say "installing pi (cached after the first run) ..."
AGENTS_BIN="$("$REPO/scripts/install-agents.sh" pi)"

DEMO="$(mktemp -d "${TMPDIR:-/tmp}/ralph-demo.XXXXXX")"
WORKSPACE="$DEMO/workspace"
mkdir -p "$WORKSPACE" "$DEMO/home"
cp "$REPO/scripts/demo/ralph.yml" "$WORKSPACE/ralph.yml"

# The mock writes pi's models.json and settings.json (provider `mock` at its own port) into
# the agent dir, then the port file: once the port file exists, pi's configuration does too.
"$BIN/ralph-mock-llm" --script "$REPO/scripts/demo/model.yaml" --delay-ms "$DELAY_MS" \
    --port-file "$DEMO/port" --write-pi-agent-dir "$DEMO/pi-agent" --quiet \
    >"$DEMO/mock.log" 2>&1 &
MOCK_PID=$!
trap 'kill "$MOCK_PID" 2>/dev/null || true' EXIT
for ((tick = 0; tick < MOCK_START_SECS * 10; tick++)); do
    [[ -s "$DEMO/port" ]] && break
    kill -0 "$MOCK_PID" 2>/dev/null || die "the mock server exited: $(cat "$DEMO/mock.log")"
    sleep 0.1
done
[[ -s "$DEMO/port" ]] || die "the mock server did not start within ${MOCK_START_SECS}s"
say "mock model server on 127.0.0.1:$(cat "$DEMO/port"); workspace $WORKSPACE"
echo >&2

# pi and ralph see a HOME of their own: no user configuration, no API key, no network.
status=0
(
    cd "$WORKSPACE"
    env HOME="$DEMO/home" XDG_CONFIG_HOME="$DEMO/home/.config" \
        PI_CODING_AGENT_DIR="$DEMO/pi-agent" PI_OFFLINE=1 NO_PROXY=127.0.0.1,localhost \
        PATH="$AGENTS_BIN:$PATH" \
        "$BIN/ralph" run
) || status=$?

echo >&2
if [[ $status -eq 0 ]]; then
    say "done. The workspace: $WORKSPACE"
else
    say "ralph exited with $status. The workspace: $WORKSPACE"
fi
summary="$(cd "$WORKSPACE" && ls -d .ralph/runs/*/summary.md 2>/dev/null | tail -n 1)"
[[ -n "$summary" ]] && say "the run's summary: $WORKSPACE/$summary"
say "the files pi wrote: $(cd "$WORKSPACE" && ls -- *.py *.md 2>/dev/null | tr '\n' ' ')"
say "try: (cd $WORKSPACE && python3 hello.py && python3 -m unittest -v test_hello)"
exit "$status"
