//! The hook runtime: TypeScript compiled by oxc, run in one long-lived Node.js process,
//! with `ctx`'s host calls answered from the state store.

pub mod calls;
pub mod compile;
pub mod host;
pub mod resolve;
