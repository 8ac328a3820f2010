#!/usr/bin/env bash
# Installs the real agent CLIs that ralph's real-agent tests drive, at pinned versions, from the
# npm registry into a cache directory, and prints the directory of launchers to put on PATH.
#
#   scripts/install-agents.sh            # install everything (idempotent), print the bin dir
#   scripts/install-agents.sh pi claude  # only some of: pi pi-old claude codex gemini opencode copilot
#   PATH="$(scripts/install-agents.sh):$PATH"   # to run pi / claude by hand
#
# The real-agent tests look for the launchers in $RALPH_AGENTS_DIR/bin, not on PATH, so run this
# script with the same RALPH_AGENTS_DIR. The default cache is per user, outside the checkout
# (${XDG_CACHE_HOME:-$HOME/.cache}/ralph/agents), so every clone and every CI run on the same
# machine reuses one install; npm's own cache (~/.npm) is consulted before the registry.
#
# stdout carries exactly one line, the bin dir; progress goes to stderr. A second run with
# everything in place only reads three package.json files and returns at once.
#
# The bin dir holds: pi (= pi-<RALPH_PI_VERSION>), pi-<RALPH_PI_VERSION>,
# pi-<RALPH_PI_OLD_VERSION>, claude (= claude-<RALPH_CLAUDE_VERSION>), claude-<version>.
#
# Environment (all optional):
#   RALPH_AGENTS_DIR        cache dir (default: ${XDG_CACHE_HOME:-$HOME/.cache}/ralph/agents)
#   RALPH_PI_VERSION        default 0.73.1: npm `latest` when the tests were written
#   RALPH_PI_OLD_VERSION    default 0.51.6: the pi of early 2026, for the version-drift tests
#   RALPH_CLAUDE_VERSION    default 2.1.332, see below
#
# Why Claude Code 2.1.332 by default: it is npm `latest`, the build users run. Since 2.1.113 Claude
# Code ships as a native binary (384 MB unpacked) in the optional dependency
# @anthropic-ai/claude-code-linux-x64, which npm installs from the registry like any package.
# 2.1.112, the last plain `cli.js` release (64 MB, runs on the machine's Node >= 18), is the
# cheaper alternative; measured on this project's 2-core machine with an empty npm cache:
# 2.1.332 installs in 5.4 s, 2.1.112 in 1.1 s, and both answer a two-turn tool run against the
# mock in about 1.0 s. 4 s and 320 MB once per machine buy testing the build users have, so the
# default is 2.1.332; RALPH_CLAUDE_VERSION=2.1.112 selects the cli.js build.
#
# Codex, Gemini CLI, OpenCode and Copilot: see scripts/install-agents-more.sh (versions, sizes).
set -euo pipefail

CACHE="${RALPH_AGENTS_DIR:-${XDG_CACHE_HOME:-${HOME:?HOME is not set; set RALPH_AGENTS_DIR}/.cache}/ralph/agents}"
PI_VERSION="${RALPH_PI_VERSION:-0.73.1}"
PI_OLD_VERSION="${RALPH_PI_OLD_VERSION:-0.51.6}"
CLAUDE_VERSION="${RALPH_CLAUDE_VERSION:-2.1.332}"

PI_PACKAGE="@mariozechner/pi-coding-agent"
CLAUDE_PACKAGE="@anthropic-ai/claude-code"

say() { printf 'install-agents: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

command -v node >/dev/null || die "node is not on PATH; install Node.js >= 20 (pi ${PI_VERSION} needs >= 20.6)"
command -v npm >/dev/null || die "npm is not on PATH; it ships with Node.js"

# installed_version PREFIX PACKAGE: the version in PREFIX's node_modules, or nothing.
installed_version() {
    local manifest="$1/node_modules/$2/package.json"
    [[ -f "$manifest" ]] || return 0
    node -e 'process.stdout.write(String(require(process.argv[1]).version || ""))' "$manifest" 2>/dev/null || true
}

# install_one NAME PACKAGE VERSION BIN: ensures $CACHE/NAME-VERSION holds PACKAGE@VERSION whose
# launcher is node_modules/.bin/BIN, and links it as $CACHE/bin/NAME-VERSION.
install_one() {
    local name="$1" package="$2" version="$3" bin="$4"
    local prefix="$CACHE/$name-$version"
    local launcher="$prefix/node_modules/.bin/$bin"
    if [[ "$(installed_version "$prefix" "$package")" == "$version" && -x "$launcher" ]]; then
        say "$package@$version already in $prefix"
    else
        # Install into a scratch prefix and rename it into place, so an interrupted install never
        # leaves a prefix that the version check above would accept.
        local scratch="$prefix.partial.$$"
        # Leftovers of installs that were killed (we hold the lock, so none is running).
        rm -rf "$prefix".partial.*
        mkdir -p "$scratch"
        printf '{"name":"ralph-agent-%s","private":true}\n' "$name" >"$scratch/package.json"
        say "installing $package@$version into $prefix ..."
        local started=$SECONDS
        # --prefer-offline: a version already in npm's cache installs without asking the
        # registry again.
        if ! npm install --prefix "$scratch" --no-audit --no-fund --no-update-notifier \
            --prefer-offline --loglevel=error "$package@$version" >&2; then
            rm -rf "$scratch"
            die "npm install $package@$version failed (is the npm registry reachable?)"
        fi
        rm -rf "$prefix"
        mv "$scratch" "$prefix"
        [[ -x "$launcher" ]] || die "$package@$version installed but $launcher is missing"
        say "installed $package@$version in $((SECONDS - started)) s"
    fi
    ln -sfn "$launcher" "$CACHE/bin/$name-$version"
}

# >>> Codex, Gemini CLI, OpenCode, Copilot
# shellcheck source=scripts/install-agents-more.sh
source "$(dirname "${BASH_SOURCE[0]}")/install-agents-more.sh"
# <<< Codex, Gemini CLI, OpenCode, Copilot

want_pi=0 want_pi_old=0 want_claude=0
if [[ $# -eq 0 ]]; then
    want_pi=1 want_pi_old=1 want_claude=1
    # >>> Codex, Gemini CLI, OpenCode, Copilot
    MORE_AGENTS_WANTED=("${MORE_AGENTS[@]}")
    # <<< Codex, Gemini CLI, OpenCode, Copilot
fi
for arg in "$@"; do
    case "$arg" in
        pi) want_pi=1 ;;
        pi-old) want_pi_old=1 ;;
        claude) want_claude=1 ;;
        -h | --help)
            sed -n '2,/^set -euo/p' "${BASH_SOURCE[0]}" | sed '$d; s/^# \{0,1\}//' >&2
            exit 0
            ;;
        *) more_agents_want "$arg" || die "unknown agent '$arg'; choose from: pi pi-old claude ${MORE_AGENTS[*]}" ;;
    esac
done

mkdir -p "$CACHE/bin"
# One installer at a time per cache dir (parallel CI jobs or test runs on one machine).
exec 9>"$CACHE/.lock"
flock 9

if [[ $want_pi == 1 ]]; then
    install_one pi "$PI_PACKAGE" "$PI_VERSION" pi
    ln -sfn "pi-$PI_VERSION" "$CACHE/bin/pi"
fi
if [[ $want_pi_old == 1 ]]; then
    install_one pi "$PI_PACKAGE" "$PI_OLD_VERSION" pi
fi
if [[ $want_claude == 1 ]]; then
    install_one claude "$CLAUDE_PACKAGE" "$CLAUDE_VERSION" claude
    ln -sfn "claude-$CLAUDE_VERSION" "$CACHE/bin/claude"
fi
# >>> Codex, Gemini CLI, OpenCode, Copilot
more_agents_install
# <<< Codex, Gemini CLI, OpenCode, Copilot

printf '%s\n' "$CACHE/bin"
