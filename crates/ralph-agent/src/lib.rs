//! Agent backends and process supervision.

mod backend_kind;

pub use backend_kind::BackendKind;
pub use backend_kind::UnknownBackend;
