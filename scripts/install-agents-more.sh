# shellcheck shell=bash
# Sourced by scripts/install-agents.sh (not run on its own): the pinned Codex, Gemini CLI,
# OpenCode and Copilot CLIs that the tests in crates/ralph-cli/tests/real_more_agents.rs drive.
# Uses install-agents.sh's `install_one`, `say`, `die` and `$CACHE`.
#
# Launchers added to the bin dir: codex, gemini, opencode, copilot, each also as NAME-VERSION.
#
# Environment (all optional):
#   RALPH_CODEX_VERSION     default 0.169.0  (@openai/codex; native musl binary, 1 package)
#   RALPH_GEMINI_VERSION    default 0.61.0   (@google/gemini-cli; plain JS)
#   RALPH_OPENCODE_VERSION  default 1.18.33  (opencode-ai; native binary)
#   RALPH_COPILOT_VERSION   default 1.0.102  (@github/copilot; native binary)
#
# All four are npm `latest` of when the tests were written, and each pulls its native binary
# from the npm registry as an optional dependency: nothing is downloaded from anywhere else.
# Sizes and install times measured on the 2-core machine are in the crate README of
# ralph-test-support ("Real agents").

CODEX_VERSION="${RALPH_CODEX_VERSION:-0.169.0}"
GEMINI_VERSION="${RALPH_GEMINI_VERSION:-0.61.0}"
OPENCODE_VERSION="${RALPH_OPENCODE_VERSION:-1.18.33}"
COPILOT_VERSION="${RALPH_COPILOT_VERSION:-1.0.102}"

# The agents this file knows, as named on install-agents.sh's command line.
MORE_AGENTS=(codex gemini opencode copilot)
# The ones asked for (filled by more_agents_want).
MORE_AGENTS_WANTED=()

# more_agents_want NAME: records NAME if it is one of ours; fails otherwise.
more_agents_want() {
    local agent
    for agent in "${MORE_AGENTS[@]}"; do
        if [[ "$1" == "$agent" ]]; then
            MORE_AGENTS_WANTED+=("$1")
            return 0
        fi
    done
    return 1
}

# more_agents_install: installs every wanted agent and links NAME -> NAME-VERSION.
more_agents_install() {
    local agent
    for agent in ${MORE_AGENTS_WANTED[@]+"${MORE_AGENTS_WANTED[@]}"}; do
        case "$agent" in
            codex)
                install_one codex @openai/codex "$CODEX_VERSION" codex
                ln -sfn "codex-$CODEX_VERSION" "$CACHE/bin/codex"
                ;;
            gemini)
                install_one gemini @google/gemini-cli "$GEMINI_VERSION" gemini
                ln -sfn "gemini-$GEMINI_VERSION" "$CACHE/bin/gemini"
                ;;
            opencode)
                install_one opencode opencode-ai "$OPENCODE_VERSION" opencode
                ln -sfn "opencode-$OPENCODE_VERSION" "$CACHE/bin/opencode"
                ;;
            copilot)
                install_one copilot @github/copilot "$COPILOT_VERSION" copilot
                ln -sfn "copilot-$COPILOT_VERSION" "$CACHE/bin/copilot"
                ;;
            *) die "internal: no install rule for '$agent'" ;;
        esac
    done
}
