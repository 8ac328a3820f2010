//! Which wire format an agent writes on stdout. The type is part of ralph's shared
//! vocabulary and lives in `ralph-types`, whose agent table also gives the formats their
//! names; it is re-exported here so the parsers and their callers keep one path.

pub use ralph_types::{StreamFormat, UnknownFormat};
