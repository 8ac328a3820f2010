//! The loop core.
