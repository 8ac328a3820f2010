//! Agent backends and process supervision.
