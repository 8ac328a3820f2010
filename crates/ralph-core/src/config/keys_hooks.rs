//! The keys of `hooks:` (see `keys.rs` for the table's form). The section is read and
//! dumped as a whole by `hooks.rs` (its entries are `Read::Own` and `Dump::InHooks`);
//! the rows give it its reference, template and suggestions like every other key.

use super::key::defaults as d;
use super::key::{Dump, Init, Key, Read, Section, Type, Value};
use super::keys::{key, value};
use crate::hooks::spec::{DEFAULT_HOOK_MAX_OUTPUT_BYTES, DEFAULT_HOOK_TIMEOUT};

use super::key::Default::{Keys, Required, Unset};
use Section::{Hook, HookDefaults, HookMutate, Hooks};

/// A key of `hooks:`: shown only in the section's example, dumped and read with the
/// section as a whole (`hooks.rs`).
const fn hook_key(
    section: Section,
    name: &'static str,
    ty: Type,
    default: super::key::Default,
    doc: &'static str,
) -> Key {
    key(
        section,
        name,
        ty,
        default,
        doc,
        Init::InExample,
        Dump::InHooks,
        Read::Own,
    )
}

/// Not reformatted by rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
pub(super) static HOOK_KEYS: &[Key] = &[
    // hooks
    hook_key(Hooks, "enabled", Type::Bool, value(Value::Bool(false)),
        "Whether the hooks run: without `true`, none does (and ralph warns)."),
    hook_key(Hooks, "defaults", Type::Mapping, Keys,
        "Values for the hooks that do not set their own."),
    hook_key(Hooks, "events", Type::HookEvents, Unset("no hooks"),
        "The hooks of each phase, run in the order listed: `pre.` or `post.` followed by \
         `loop.start`, `iteration.start`, `loop.complete`, `loop.error` (or `plan.created`, \
         `human.interact`, which ralph accepts but does not reach yet)."),
    // hooks.defaults
    hook_key(HookDefaults, "timeout_seconds", Type::Seconds, value(Value::Seconds(DEFAULT_HOOK_TIMEOUT)),
        "Stop a hook (its whole process group) after this many seconds; a timeout is a failure."),
    hook_key(HookDefaults, "max_output_bytes", Type::Count,
        value(Value::Count(DEFAULT_HOOK_MAX_OUTPUT_BYTES)),
        "The most bytes of a hook's stdout kept for its `mutate` answer (at most 1 MiB); \
         the log file in the run directory has all of it."),
    hook_key(HookDefaults, "suspend_mode", Type::Choice(d::SUSPEND_MODES),
        value(Value::Text("wait_for_resume")),
        "How an `on_error: suspend` hook holds the loop: until `ralph hooks resume`, by \
         retrying it with backoff, or until resumed and then retrying it."),
    // hooks.events.<phase>[]
    hook_key(Hook, "name", Type::NonEmptyText, Required,
        "Names the hook in ralph's output and its log file."),
    hook_key(Hook, "command", Type::Command, Required,
        "What to run: a list is the program (on `PATH`, or a path relative to `cwd`) and its \
         arguments; a string runs through `sh -c`."),
    hook_key(Hook, "cwd", Type::Path, Unset("the workspace"),
        "The directory the hook runs in, relative to the workspace."),
    hook_key(Hook, "env", Type::EnvMap, Unset("ralph's environment"),
        "Variables added to the hook's environment. A name may not be empty or hold `=` or a \
         NUL byte, nor a value a NUL byte."),
    hook_key(Hook, "timeout_seconds", Type::Seconds, Unset("`hooks.defaults.timeout_seconds`"),
        "Overrides `hooks.defaults.timeout_seconds` for this hook."),
    hook_key(Hook, "max_output_bytes", Type::Count, Unset("`hooks.defaults.max_output_bytes`"),
        "Overrides `hooks.defaults.max_output_bytes` for this hook."),
    hook_key(Hook, "on_error", Type::Choice(d::ON_ERRORS), Required,
        "What a failure (non-zero exit, timeout, cannot start, unusable answer) does: `warn` \
         goes on, `block` stops the loop (exit 1), `suspend` holds it (see `suspend_mode`)."),
    hook_key(Hook, "suspend_mode", Type::Choice(d::SUSPEND_MODES),
        Unset("`hooks.defaults.suspend_mode`"),
        "Overrides `hooks.defaults.suspend_mode` for this hook."),
    hook_key(Hook, "mutate", Type::Mapping, Keys,
        "Whether the hook's JSON answer on stdout adds metadata to later prompts."),
    // hooks.events.<phase>[].mutate
    hook_key(HookMutate, "enabled", Type::Bool, value(Value::Bool(false)),
        "Read the hook's stdout as `{\"metadata\": {...}}` and merge it into the run's \
         metadata (an unusable answer is a failure)."),
    hook_key(HookMutate, "format", Type::Choice(d::MUTATE_FORMATS), value(Value::Text("json")),
        "The answer's format (JSON is the only one)."),
];
