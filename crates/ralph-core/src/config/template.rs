//! The commented `ralph.yml` that `ralph init --backend NAME` writes.
//!
//! Every value shown is ralph's default, taken from the same constants the resolver
//! uses, so the template cannot drift from the behaviour it documents.

use super::choice::{BackendChoice, PromptMode};
use super::resolved::{
    DEFAULT_COMPLETION_PROMISE, DEFAULT_EXIT_GRACE, DEFAULT_IDLE_TIMEOUT,
    DEFAULT_ITERATION_TIMEOUT, DEFAULT_MAX_CONSECUTIVE_FAILURES, DEFAULT_MAX_ITERATIONS,
    DEFAULT_MAX_RUNTIME, DEFAULT_PROMPT_FILE, DEFAULT_SCRATCHPAD, DEFAULT_SPECS_DIR,
    DEFAULT_STARTUP_TIMEOUT,
};
use ralph_types::BackendKind;

/// The example hats shown (commented out) at the end of the template: a two-hat
/// plan/build workflow whose planner ends the loop with the default completion
/// promise. Exposed so tests can check that, uncommented, they validate.
pub const EXAMPLE_HATS: &str = "\
hats:
  planner:
    name: Planner
    description: Splits the task into small steps and hands out one at a time
    triggers: [work.start, step.done]
    publishes: [step.ready, LOOP_COMPLETE]
    instructions: |
      Read the scratchpad, pick the next unfinished step and emit step.ready with it.
      When every step is done and verified, emit LOOP_COMPLETE.
  builder:
    name: Builder
    description: Implements exactly one step, then verifies and commits it
    triggers: [step.ready]
    publishes: [step.done]
    default_publishes: step.done
";

/// The starting event the example hats expect (shown commented out with them).
const EXAMPLE_STARTING_EVENT: &str = "work.start";

/// A commented `ralph.yml` for `backend` (which may be `auto`).
pub fn init_template(backend: BackendChoice) -> String {
    let custom = if backend == BackendChoice::Backend(BackendKind::Custom) {
        format!(
            "  # The program to run, and how it takes the prompt ({modes}).\n  \
             command: my-agent\n  prompt_mode: {arg}\n  \
             # prompt_flag: --prompt\n  \
             # How to read its output: text, or one of the agents' JSON formats.\n  \
             output_format: text\n",
            modes = PromptMode::ALL.map(PromptMode::name).join(" or "),
            arg = PromptMode::Arg.name(),
        )
    } else {
        String::new()
    };
    let backends: Vec<_> = BackendChoice::names().collect();
    let hats: String = EXAMPLE_HATS.lines().map(|l| format!("# {l}\n")).collect();
    format!(
        "\
# ralph.yml: what ralph runs, and when it stops.
# Every key is optional; the values shown are the defaults.
# `ralph run --dry-run` prints the configuration a run would use.

cli:
  # The agent: {backends}.
  # `auto` takes the first one installed, in `backend_priority` order.
  backend: {backend}
{custom}  # Extra arguments for the agent's command line, such as a model:
  # args: [\"--model\", \"...\"]
  # Deadlines, in seconds: no output at all after the start, no output for this
  # long, one whole iteration, and how long an agent that has finished may take to exit.
  startup_timeout_seconds: {startup}
  idle_timeout_seconds: {idle}
  iteration_timeout_seconds: {iteration}
  exit_grace_seconds: {grace}
  # Run the agent on a pseudo-terminal instead of pipes (for one that needs a terminal):
  # pty: true

event_loop:
  # The task: inline with `prompt:`, or a file (relative to this file).
  # Without either, ralph reads {prompt_file} if it exists, or takes `-p`/`-P`.
  # prompt_file: {prompt_file}
  # The topic the agent emits (`ralph emit {promise}`) when the task is done.
  completion_promise: {promise}
  # Limits: the loop stops at the first one reached.
  max_iterations: {iterations}
  max_runtime_seconds: {runtime}
  # max_cost_usd: 10.0
  max_consecutive_failures: {failures}
  # Topics that must have been emitted before completion is accepted:
  # required_events: [review.approved]

core:
  # Notes the agent keeps between iterations (each starts with a fresh context).
  scratchpad: {scratchpad}
  specs_dir: {specs}
  # Rules repeated in every prompt:
  # guardrails:
  #   - \"Run the tests before every commit.\"

# Prices in US dollars per million tokens, for agents that count tokens but report no
# cost (Codex, Gemini CLI); they override and extend ralph's built-in list prices.
# `cache_read` and `cache_write` default to `input`. Codex never names its model in
# its output: ralph prices it as the model its `args` ask for (`-m NAME`).
# pricing:
#   gpt-5.5: {{input: 1.25, output: 10, cache_read: 0.125}}

# Hats split the work into roles that hand over through events. Each event goes to
# the one hat that triggers on it; ralph starts the run with `event_loop.starting_event`.
# To use the example below, uncomment it and add `starting_event: {starting}`
# under `event_loop`.
{hats}",
        backends = backends.join(", "),
        backend = backend.name(),
        startup = DEFAULT_STARTUP_TIMEOUT.as_secs(),
        idle = DEFAULT_IDLE_TIMEOUT.as_secs(),
        iteration = DEFAULT_ITERATION_TIMEOUT.as_secs(),
        grace = DEFAULT_EXIT_GRACE.as_secs(),
        prompt_file = DEFAULT_PROMPT_FILE,
        promise = DEFAULT_COMPLETION_PROMISE,
        iterations = DEFAULT_MAX_ITERATIONS,
        runtime = DEFAULT_MAX_RUNTIME.as_secs(),
        failures = DEFAULT_MAX_CONSECUTIVE_FAILURES,
        scratchpad = DEFAULT_SCRATCHPAD,
        specs = DEFAULT_SPECS_DIR,
        starting = EXAMPLE_STARTING_EVENT,
    )
}
