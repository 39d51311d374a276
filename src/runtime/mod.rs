//! The hook runtime: one long-lived Node.js process that loads the hooks from their
//! sources (through the loader the binary prepares, see [`crate::loader`]), with `ctx`'s
//! host calls answered from the state store.

pub mod calls;
pub mod compile_cache;
pub mod environment;
pub mod files;
pub mod host;
pub mod lanes;
pub mod link;
pub mod modules;
pub mod node_version;
pub mod otel_api;
pub mod pipe_lines;
pub mod reader;
pub mod setup;
pub mod slot;
