//! The full-screen view (ratatui): `ralph run --tui` in-process as the run's observer,
//! `ralph watch` from another terminal following `run-events.jsonl`. Both read the same
//! JSON lines into the same [`model::RunModel`] ([`mirror`] is their owned form), so
//! what is shown never depends on where it is watched from.

pub(crate) mod app;
pub(crate) mod draw;
pub(crate) mod export;
pub(crate) mod follow;
pub(crate) mod glyphs;
pub(crate) mod keep;
pub(crate) mod line_cap;
pub(crate) mod lines;
pub(crate) mod mirror;
pub(crate) mod model;
mod model_agent;
pub(crate) mod observer;
pub(crate) mod search;
pub(crate) mod session;
pub(crate) mod terminal;
pub(crate) mod theme;
pub(crate) mod window;

#[cfg(test)]
mod hostile_tests;
#[cfg(test)]
mod tests;
