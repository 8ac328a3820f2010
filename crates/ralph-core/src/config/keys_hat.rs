//! The keys of a hat, its backend and a price (see `keys.rs` for the table's form).

use super::decode_hat;
use super::key::defaults as d;
use super::key::{
    Dump, EXIT_GRACE, IDLE_TIMEOUT, ITERATION_TIMEOUT, Init, Key, Read, STARTUP_TIMEOUT, Section,
    Type, Value,
};
use super::keys::{TYPE_OR_COMMAND, hat_custom, key, value};
use super::read;
use super::resolved::HatBackend;
use super::yaml_value::{boolean, int, number, seconds, string, strings};

use super::key::Default::{Required, Unset};
use Section::{Hat, Price};

/// Not reformatted by rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
pub(super) static HAT_KEYS: &[Key] = &[
    // hats.<id>
    key(Hat, "name", Type::NonEmptyText, Unset("the hat id"),
        "The name shown in ralph's output.", Init::InExample,
        Dump::Hat(|h| Some(string(&h.name))),
        Read::Hat(|dec, f, h| h.name = dec.nonempty_string(f, read::HAT_NAME_WHY))),
    key(Hat, "description", Type::NonEmptyText, Required,
        "One line saying what the hat does (the agent reads it to know which hat handles what).",
        Init::InExample,
        Dump::Hat(|h| Some(string(&h.description))),
        Read::Own),
    key(Hat, "triggers", Type::Topics, value(Value::EmptyList),
        "The topics this hat handles; a topic triggers one hat only. A `*` segment stands \
         for any one segment (`build.*` takes `build.done`) and `*` alone for any topic; an \
         exact trigger beats a pattern, a pattern beats `*`, and no pattern takes \
         `task.start` or `task.resume` (ralph's coordinator keeps them).",
        Init::InExample,
        Dump::Hat(|h| Some(strings(&h.triggers))),
        Read::Hat(|dec, f, h| h.triggers = read::triggers(dec, f, &h.id.value))),
    key(Hat, "publishes", Type::Topics, value(Value::EmptyList),
        "The topics this hat is meant to emit: its prompt lists them and the checks of the \
         hats' wiring read them. They are not enforced: an event outside them is routed \
         like any other.", Init::InExample,
        Dump::Hat(|h| Some(strings(&h.publishes))),
        Read::Hat(|dec, f, h| h.publishes = dec.topics(f))),
    key(Hat, "instructions", Type::Text, value(Value::Text("\"\"")),
        "What the agent is told to do while wearing this hat.", Init::InExample,
        Dump::Hat(|h| (!h.instructions.is_empty()).then(|| string(&h.instructions))),
        Read::Hat(|dec, f, h| h.instructions = dec.string(f))),
    key(Hat, "extra_instructions", Type::Strings, value(Value::EmptyList),
        "Paragraphs appended to `instructions`, each after a blank line: text several hats \
         share through a YAML anchor (ralph-orchestrator's key).",
        Init::InExample,
        // Resolved into `instructions`, which the dump shows whole.
        Dump::Skip,
        Read::Hat(|dec, f, h| h.extra_instructions = dec.plain_strings(f))),
    key(Hat, "backend", Type::BackendOrMapping, Unset("`cli.backend`"),
        "The agent this hat runs: a backend name, `{type: NAME, args: [...]}`, or \
         `{command: PROGRAM, ...}`. A name alone that is `cli.backend`'s runs it as `cli` \
         sets it up (`cli.command`, `cli.args`); a mapping gives the backend's arguments \
         itself.",
        Init::InExample,
        Dump::Keys,
        Read::Own),
    key(Hat, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments appended to whichever backend the hat runs.", Init::InExample,
        Dump::Hat(|h| (!h.args.is_empty()).then(|| strings(&h.args))),
        Read::Hat(|dec, f, h| h.args = dec.plain_strings(f))),
    key(Hat, "backend_args", Type::Strings, value(Value::EmptyList),
        "Another name for `args` (set one of the two).", Init::InExample,
        Dump::Skip,
        Read::Hat(|dec, f, h| read::backend_args(dec, f, &mut h.args))),
    key(Hat, "default_publishes", Type::Topic, Unset("nothing is published for it"),
        "The topic published for the hat when its agent succeeds without emitting one \
         (the completion promise here completes the loop).",
        Init::InExample,
        Dump::Hat(|h| h.default_publishes.as_deref().map(string)),
        Read::Hat(|dec, f, h| h.default_publishes = dec.topic(f))),
    key(Hat, "max_activations", Type::Count, Unset("no limit"),
        "How many times the hat may run; after that ralph drops the events for it and \
         publishes `<id>.exhausted` in their place (naming each with the start of its \
         payload; a used-up hat that takes an `.exhausted` itself, as a `*` hat does, \
         passes it to the coordinator as it is), and the coordinator's prompt marks the \
         hat exhausted.",
        Init::InExample,
        Dump::Hat(|h| h.max_activations.map(|n| int(n.into()))),
        Read::Hat(|dec, f, h| h.max_activations = read::count(dec, f))),
    key(Hat, STARTUP_TIMEOUT, Type::Seconds, Unset("`cli.startup_timeout_seconds`"),
        "Overrides `cli.startup_timeout_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.startup))),
        Read::Hat(|dec, f, h| h.deadlines.startup_timeout_seconds = read::seconds(dec, f))),
    key(Hat, IDLE_TIMEOUT, Type::Seconds, Unset("`cli.idle_timeout_seconds`"),
        "Overrides `cli.idle_timeout_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.idle))),
        Read::Hat(|dec, f, h| h.deadlines.idle_timeout_seconds = read::seconds(dec, f))),
    key(Hat, ITERATION_TIMEOUT, Type::Seconds, Unset("`cli.iteration_timeout_seconds`"),
        "Overrides `cli.iteration_timeout_seconds` (seconds) for this hat's agent.",
        Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.iteration))),
        Read::Hat(|dec, f, h| h.deadlines.iteration_timeout_seconds = read::seconds(dec, f))),
    key(Hat, EXIT_GRACE, Type::Seconds, Unset("`cli.exit_grace_seconds`"),
        "Overrides `cli.exit_grace_seconds` (seconds) for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(seconds(h.deadlines.exit_grace))),
        Read::Hat(|dec, f, h| h.deadlines.exit_grace_seconds = read::seconds(dec, f))),
    key(Hat, "pty", Type::Bool,
        Unset("`cli.pty` if the hat runs `cli.backend`'s program, else `false`"),
        "Run this hat's agent on a pseudo-terminal (its stdin is then the terminal: not with \
         `prompt_mode: stdin`).", Init::InExample,
        Dump::Hat(|h| Some(boolean(h.pty))),
        Read::Hat(|dec, f, h| h.pty = dec.boolean(f))),
    key(Hat, "on_rate_limit", Type::Choice(d::RATE_LIMIT_POLICIES), Unset("`cli.on_rate_limit`"),
        "Overrides `cli.on_rate_limit` for this hat.", Init::InExample,
        Dump::Hat(|h| h.on_rate_limit.map(|p| string(p.name()))),
        Read::Hat(|dec, f, h| h.on_rate_limit = read::rate_limit_policy(dec, f))),
    key(Hat, "fallback", Type::BackendOrMappingList, Unset("`cli.fallback`"),
        "Overrides `cli.fallback` for this hat (the hat's `args` follow each backend's).",
        Init::InExample,
        Dump::Hat(|h| h.fallback.as_deref().map(super::dump::backend_list)),
        Read::Hat(|dec, f, h| h.fallback = decode_hat::fallback(dec, f))),
    key(Hat, "steering", Type::Bool, Unset("`cli.steering`"),
        "Overrides `cli.steering` for this hat's agent.", Init::InExample,
        Dump::Hat(|h| Some(boolean(h.steering))),
        Read::Hat(|dec, f, h| h.steering = dec.boolean(f))),
    // hats.<id>.backend
    key(Section::HatBackend, "type", Type::Choice(d::BUILTIN_BACKENDS), Unset(TYPE_OR_COMMAND),
        "A built-in backend.", Init::InExample,
        Dump::Backend(|b| match b {
            HatBackend::Builtin { kind, .. } => Some(string(kind.name())),
            HatBackend::Custom { .. } => None,
        }),
        Read::Own),
    key(Section::HatBackend, "command", Type::NonEmptyText, Unset(TYPE_OR_COMMAND),
        "A custom program instead of a built-in backend.", Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(&c.command))),
        Read::Own),
    key(Section::HatBackend, "prompt_mode", Type::Choice(d::PROMPT_MODES), value(d::ARG),
        "With `command`: pass the prompt as the last argument, or on standard input (not with \
         the hat's `pty: true`).",
        Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(c.prompt_mode.name()))),
        Read::Own),
    key(Section::HatBackend, "prompt_flag", Type::NonEmptyText,
        Unset("the prompt is the last argument"),
        "With `command`: the flag written before the prompt argument.", Init::InExample,
        Dump::Backend(|b| hat_custom(b)?.prompt_flag.as_deref().map(string)),
        Read::Own),
    key(Section::HatBackend, "output_format", Type::Choice(d::OUTPUT_FORMATS),
        value(d::TEXT_FORMAT),
        "With `command`: how to read the program's output.", Init::InExample,
        Dump::Backend(|b| hat_custom(b).map(|c| string(c.output_format.name()))),
        Read::Own),
    key(Section::HatBackend, "args", Type::Strings, value(Value::EmptyList),
        "Extra arguments for this backend (the hat's own `args` follow them).", Init::InExample,
        Dump::Backend(|b| match b {
            HatBackend::Builtin { args, .. } | HatBackend::Custom { args, .. } => {
                Some(strings(args))
            }
        }),
        Read::Own),
    // pricing.<model>
    key(Price, "input", Type::PricePerMillion, Required,
        "US dollars per million input tokens.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.input))),
        Read::Own),
    key(Price, "output", Type::PricePerMillion, Required,
        "US dollars per million output tokens.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.output))),
        Read::Own),
    key(Price, "cache_read", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens read from the prompt cache.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.cache_read))),
        Read::Own),
    key(Price, "cache_write", Type::PricePerMillion, Unset("the `input` price"),
        "US dollars per million tokens written to the prompt cache.", Init::InExample,
        Dump::Price(|p| Some(number(p.price.cache_write))),
        Read::Own),
];
