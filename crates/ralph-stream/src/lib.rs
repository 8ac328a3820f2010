//! Pure stream parsing: the bytes an agent CLI writes become normalized agent events.
//!
//! How it works: a [`LineFramer`] splits arbitrary chunks on the `\n` byte (never
//! copying a complete line that lies inside one chunk), a per-agent parser reads each
//! line with a small lazy JSON cursor that walks only the top-level keys it needs, and
//! hands borrowed [`AgentEvent`]s to a callback. A [`SessionSummary`] folds those
//! events into what the loop needs (final text, cost, tokens, success). Nothing here
//! does I/O, spawns processes or allocates per line on the hot path.

mod format;

pub use format::StreamFormat;
pub use format::UnknownFormat;
