#!/usr/bin/env bash
# The full test suite, as CI runs it on a clean clone: installs what the tests need (the
# pinned real agent CLIs, from npm, cached under .cache/), then checks formatting, lints
# and runs every test of the workspace.
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

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
cargo test --workspace --locked "$@"
