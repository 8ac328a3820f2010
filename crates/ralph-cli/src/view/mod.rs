//! What people and programs see of ralph's work: the run's observers (`--output json`
//! lines, the text view, live on a terminal or plain in a pipe) and the terminal
//! rendering they and `ralph inspect`/`ralph events` share. The loop shell (`run/`) only
//! hands its events to an [`observer::Observer`]; everything about how they look lives
//! here.

pub(crate) mod columns;
pub(crate) mod json;
pub(crate) mod observer;
pub(crate) mod output_cap;
pub(crate) mod recorder;
pub(crate) mod stdout_relay;
pub(crate) mod stopping;
pub(crate) mod table;
pub(crate) mod term;
pub(crate) mod text;
pub(crate) mod tui;
