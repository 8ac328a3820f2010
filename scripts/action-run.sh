#!/usr/bin/env bash
# The steps of the ralph GitHub Action (action.yml at the repository's root), one
# subcommand each, so that they can be run and tested outside GitHub:
#
#   action-run.sh install   find ralph (RALPH_BIN, else PATH) or build it from RALPH_SOURCE
#   action-run.sh prepare   check out ralph/<task>: the pushed branch when a run resumes;
#                           then move the restored artifact (RALPH_RESTORED) into .ralph/
#   action-run.sh run       run the loop (--continue when .ralph/ was restored, with
#                           RALPH_MAX_RUNTIME more than the run has used), set the
#                           outputs, annotate a failed or limited run
#   action-run.sh push      push ralph/<task> to RALPH_REMOTE (default origin)
#
# Environment: RALPH_TASK (required but for install), RALPH_PROMPT_FILE or RALPH_PROMPT,
# RALPH_CONFIG, RALPH_MAX_RUNTIME, RALPH_RESTORED (where the artifact was downloaded); GitHub's GITHUB_OUTPUT, GITHUB_PATH and
# GITHUB_STEP_SUMMARY (ralph appends the summary itself). The `run` step exits with
# ralph's exit code, so the job fails when the loop does; the outputs are set first.
set -euo pipefail

# Where `install` puts the ralph it built, and `run` finds it (one step's PATH does not
# reach the next without GITHUB_PATH).
RALPH_HOME="${RUNNER_TEMP:-${TMPDIR:-/tmp}}/ralph-action"
MS_PER_SECOND=1000

die() {
    echo "::error title=ralph action::$*"
    exit 1
}

task_name() {
    local task="${RALPH_TASK:-}"
    [[ -n "$task" ]] || die "the input 'task' is empty"
    # It names a branch and an artifact: one path segment of safe characters.
    [[ "$task" =~ ^[A-Za-z0-9._-]+$ && "$task" != .* ]] ||
        die "the task '$task' may hold only letters, digits, '.', '_' and '-' (and not start with '.')"
    printf '%s' "$task"
}

ralph_bin() {
    if [[ -n "${RALPH_BIN:-}" ]]; then
        printf '%s' "$RALPH_BIN"
    elif [[ -x "$RALPH_HOME/bin/ralph" ]]; then
        printf '%s' "$RALPH_HOME/bin/ralph"
    else
        command -v ralph || die "ralph is not installed (run the install step first)"
    fi
}

output() {
    if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
        printf '%s=%s\n' "$1" "$2" >>"$GITHUB_OUTPUT"
    fi
}

install() {
    if [[ -n "${RALPH_BIN:-}" ]]; then
        [[ -x "$RALPH_BIN" ]] || die "ralph-bin '$RALPH_BIN' is not an executable"
    elif ! command -v ralph >/dev/null; then
        [[ -n "${RALPH_SOURCE:-}" ]] || die "ralph is not on PATH and RALPH_SOURCE is not set"
        cargo install --locked --root "$RALPH_HOME" --path "$RALPH_SOURCE/crates/ralph-cli"
    fi
    "$(ralph_bin)" --version
}

prepare() {
    local task branch
    task="$(task_name)"
    branch="ralph/$task"
    local remote="${RALPH_REMOTE:-origin}"
    # A resumed task goes on from what its earlier job pushed, so the restored state and
    # the agent's commits agree; a new one starts from the commit checked out.
    local pushed=""
    if git fetch --quiet "$remote" "refs/heads/$branch" 2>/dev/null; then
        pushed="$(git rev-parse FETCH_HEAD)"
        git checkout --quiet -B "$branch" FETCH_HEAD
    else
        git checkout --quiet -B "$branch"
    fi
    # What the remote branch was, for the push's lease (empty: it did not exist).
    mkdir -p "$RALPH_HOME"
    printf '%s\n' "$pushed" >"$RALPH_HOME/$task.pushed"
    restore_state
    output branch "$branch"
    echo "on $branch at $(git rev-parse --short HEAD)"
}

# The task's artifact is downloaded beside the checkout (RALPH_RESTORED), not into
# `.ralph/`: the branch an earlier attempt pushed may track files there too (an agent's
# `git add -A` takes `.ralph/.gitignore` and `.ralph/agent/`), and git refuses to check
# out over untracked files. So it moves in after the checkout, and replaces what the
# checkout put in `.ralph/` whole: it was saved when that attempt ended, after the
# agent's last commit, and it is the state the saved run goes on from. A file the branch
# still tracks there but the attempt deleted since (a memory dropped, a spec done) would
# otherwise come back into the run as stale state.
restore_state() {
    local saved="${RALPH_RESTORED:-}"
    [[ -n "$saved" && -d "$saved" ]] || return 0
    # `rm -rf` never follows a link: a `.ralph` the branch made a link goes as a link,
    # and links inside it go without what they lead to. Nothing else is removed.
    rm -rf -- ./.ralph
    mkdir -- ./.ralph
    cp -a -- "$saved/." ./.ralph/
    rm -rf "$saved"
    echo "restored .ralph/ from the task's artifact"
}

run() {
    local task ralph events
    task="$(task_name)"
    ralph="$(ralph_bin)"
    events="$RALPH_HOME/$task.events.jsonl"
    mkdir -p "$RALPH_HOME"
    local args=(run --output json)
    local continuing=""
    if [[ -f .ralph/current-run ]]; then
        # Restored from the artifact: finish that run rather than start another.
        args+=(--continue)
        continuing=yes
    elif [[ -n "${RALPH_PROMPT_FILE:-}" ]]; then
        args+=(-P "$RALPH_PROMPT_FILE")
    elif [[ -n "${RALPH_PROMPT:-}" ]]; then
        args+=(-p "$RALPH_PROMPT")
    fi
    [[ -n "${RALPH_CONFIG:-}" ]] && args+=(-c "$RALPH_CONFIG")
    if [[ -n "${RALPH_MAX_RUNTIME:-}" ]]; then
        # The input is each job's time, while ralph's --max-runtime counts over all the
        # run's sessions: a continued run gets the time it has used plus the input. (A
        # value that is not a number goes to ralph as it is, which refuses it.)
        local limit="$RALPH_MAX_RUNTIME" used
        if [[ -n "$continuing" && "$RALPH_MAX_RUNTIME" =~ ^[0-9]+$ ]]; then
            used="$(runtime_used "$ralph")"
            if [[ -n "$used" ]]; then
                limit=$((used + 10#$RALPH_MAX_RUNTIME))
                echo "continuing run $(cat .ralph/current-run), which has run ${used} s: --max-runtime $limit (this job's max-runtime of $RALPH_MAX_RUNTIME s more)"
            else
                echo "::warning title=ralph $task::the time the restored run has used is unknown (\`ralph runs\` did not say): this job passes --max-runtime $RALPH_MAX_RUNTIME, which counts that time too"
            fi
        fi
        args+=(--max-runtime "$limit")
    fi

    # GitHub cancels a step by signalling its entry process only (this script: action.yml
    # `exec`s it): SIGINT, SIGTERM 7.5 s later, then it kills the whole tree. So ralph runs
    # in the background and gets each as SIGTERM, which it handles as Ctrl-C (a background
    # job of a script starts with SIGINT ignored); `wait` returns early for each trapped
    # signal, so it is asked again until ralph is gone, and then gives ralph's status.
    "$ralph" "${args[@]}" >"$events" &
    local pid=$!
    trap 'kill -TERM "$pid" 2>/dev/null || true' INT TERM
    while kill -0 "$pid" 2>/dev/null; do
        wait "$pid" || true
    done
    trap - INT TERM
    # bash keeps a reaped background job's status: this is ralph's, never a trap's.
    local code=0
    wait "$pid" || code=$?
    local last status reason
    last="$(tail -n 1 "$events" 2>/dev/null || true)"
    status="$(sed -n 's/.*"type":"loop_finished".*"outcome":"\([a-z_]*\)".*/\1/p' <<<"$last")"
    reason="$(sed -n 's/.*"type":"loop_finished".*"reason":"\([a-z_]*\)".*/\1/p' <<<"$last")"
    [[ -n "$status" ]] || status=error
    output status "$status"
    output exit-code "$code"
    # Workflow commands are read from stdout, which is ours here (ralph's went to the
    # events file): the annotation comes from this script, not from ralph.
    case "$status" in
    failed | error) echo "::error title=ralph $task::the loop on $task ended $status (exit $code); see the job summary" ;;
    limit_reached) echo "::warning title=ralph $task::the loop on $task reached a limit (exit $code): $(limit_advice "$task" "$reason")" ;;
    interrupted) echo "::warning title=ralph $task::the loop on $task was interrupted (exit $code); running the job again continues it$(rerun_time)" ;;
    esac
    echo "ralph: $task $status (exit $code)"
    return "$code"
}

# The seconds the restored run has used (rounded up, so that a job gets at least its
# max-runtime), from `ralph runs`; nothing when ralph cannot say.
runtime_used() {
    local ralph="$1" id ms=""
    id="$(cat .ralph/current-run 2>/dev/null || true)"
    [[ "$id" =~ ^[A-Za-z0-9_-]+$ ]] || return 0
    # One JSON object a line, `id` first (docs/cli.md, `ralph runs`).
    ms="$("$ralph" runs --format json 2>/dev/null |
        sed -n "s/^{\"id\":\"$id\",.*\"runtime_ms\":\([0-9]*\).*/\1/p" | head -n 1)" || true
    [[ -n "$ms" ]] || return 0
    echo $(((ms + MS_PER_SECOND - 1) / MS_PER_SECOND))
}

# How long a re-run of the job may run the loop, said after "running the job again
# continues it": the max-runtime input, each job's (a limit from the configuration counts
# over the whole run instead, see limit_advice).
rerun_time() {
    [[ -n "${RALPH_MAX_RUNTIME:-}" ]] || return 0
    printf '%s' " for up to its max-runtime of $RALPH_MAX_RUNTIME s more"
}

# What to do about the limit (`reason`, loop_finished's) that stopped the loop. The
# configuration's limits count across `--continue` sessions, and a re-run of the job
# runs the same workflow file with the same inputs: run again as it is, the loop would
# stop at once. What a re-run does read anew is the pushed branch, which `prepare` checks
# out, and its configuration file. The max-runtime input is the exception: `run` gives
# each job that much more time, so a re-run goes on.
limit_advice() {
    local task="$1" reason="$2" key
    local file="${RALPH_CONFIG:-ralph.yml}"
    case "$reason" in
    max_iterations) key=event_loop.max_iterations ;;
    max_cost) key=event_loop.max_cost_usd ;;
    max_runtime)
        if [[ -n "${RALPH_MAX_RUNTIME:-}" ]]; then
            printf '%s' "it ran for this job's max-runtime of $RALPH_MAX_RUNTIME s; running the job again continues the run for up to $RALPH_MAX_RUNTIME s more"
            return
        fi
        key=event_loop.max_runtime_seconds
        ;;
    stale_loop)
        printf '%s' "the agent published the same event three times in a row; see the job summary"
        return
        ;;
    *)
        printf '%s' "see the job summary"
        return
        ;;
    esac
    printf '%s' "limits count across re-runs, so running the job again as it is would stop at once: first raise $key in $file on the branch ralph/$task (a re-run checks that branch out), then run the job again"
}

push() {
    local task branch
    task="$(task_name)"
    branch="ralph/$task"
    local remote="${RALPH_REMOTE:-origin}"
    # The branch is the task's alone and this job started from it: moving it is a
    # fast-forward unless the agent rewrote its commits, which the lease allows only if
    # nobody else pushed to it meanwhile (an empty lease: it must not exist yet).
    local pushed=""
    [[ -f "$RALPH_HOME/$task.pushed" ]] && pushed="$(cat "$RALPH_HOME/$task.pushed")"
    git push --quiet --force-with-lease="refs/heads/$branch:$pushed" "$remote" "HEAD:refs/heads/$branch"
    echo "pushed $branch at $(git rev-parse --short HEAD)"
}

case "${1:-}" in
install | prepare | run | push) "$1" ;;
*)
    echo "usage: $0 install|prepare|run|push" >&2
    exit 2
    ;;
esac
