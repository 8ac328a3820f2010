#!/usr/bin/env bash
# The full test suite, as CI runs it on a clean clone: installs what the tests need (the
# pinned real agent CLIs, from npm, cached per user in ~/.cache/ralph/agents so later runs and
# other clones on the machine reuse them), then checks formatting, lints and runs every test of
# the workspace, the real-agent tests included.
#
#   scripts/test.sh                # everything
#   scripts/test.sh -p ralph-stream  # extra arguments go to `cargo test`
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$REPO"

# Real pi and Claude Code, pinned; a second run finds them in the cache at once.
scripts/install-agents.sh >/dev/null

# The terminal test (crates/ralph-cli/tests/terminal.rs) watches `ralph run` in tmux.
if ! command -v tmux >/dev/null; then
    apt-get update -qq && apt-get install -y -qq tmux >/dev/null
fi

# The real-agent tests are part of the suite here, never skipped: the agents were just installed.
if [[ "${RALPH_SKIP_REAL_AGENTS:-}" == 1 ]]; then
    echo "test.sh: ignoring RALPH_SKIP_REAL_AGENTS=1 (run cargo test directly to skip real agents)" >&2
fi
unset RALPH_SKIP_REAL_AGENTS

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
cargo test --workspace --locked "$@"
