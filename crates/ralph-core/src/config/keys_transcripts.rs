//! The keys of `transcripts:` (see `keys.rs` for the table's form): what each iteration
//! keeps under `.ralph/runs/<id>/iterations/<n>/`.

use super::key::{Dump, Init, Key, Read, Section, Type, Value};
use super::keys::{key, value};
use super::read;
use super::resolved::{DEFAULT_TRANSCRIPTS_ENABLED, DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN};
use super::yaml_value::{boolean, int};

use super::key::Default::Keys;
use Section::{Top, Transcripts};

/// Not reformatted by rustfmt, so that each entry stays one compact unit.
#[rustfmt::skip]
pub(super) static TRANSCRIPT_KEYS: &[Key] = &[
    key(Top, "transcripts", Type::Mapping, Keys,
        "What each iteration keeps in `.ralph/runs/<id>/iterations/<n>/`: its prompt, the \
         agent's raw output (zstd-compressed), its stderr, command line and environment \
         names; `ralph inspect --run` reads them back.",
        Init::Keys,
        Dump::Keys,
        Read::Keys),
    key(Transcripts, "enabled", Type::Bool, value(Value::Bool(DEFAULT_TRANSCRIPTS_ENABLED)),
        "Keep each iteration's transcript.",
        Init::Default,
        Dump::Config(|c| Some(boolean(c.transcripts.enabled))),
        Read::Layer(|dec, f, c| c.transcripts.enabled = dec.boolean(f))),
    key(Transcripts, "max_bytes_per_run", Type::Count,
        value(Value::Count(DEFAULT_TRANSCRIPTS_MAX_BYTES_PER_RUN)),
        "The most bytes of compressed raw agent output a run keeps: past it, the oldest \
         iterations' raw streams are deleted first (prompts, command lines and the run's \
         events stay).",
        Init::Default,
        Dump::Config(|c| Some(int(c.transcripts.max_bytes_per_run.into()))),
        Read::Layer(|dec, f, c| c.transcripts.max_bytes_per_run = read::count(dec, f))),
];
