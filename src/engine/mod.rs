//! The turn engine: one turn of an agent, recorded and dispatched to its hooks.
//!
//! ```text
//!   message ─▶ model ──────────▶ turn ──▶ event log (SQLite) ──▶ dispatcher ──▶ hook runtime (Node)
//!   (local, or a provider:       │        durable first          send-ahead,     one event at a time,
//!    each output as it streams)  │
//!   --replay <file> ─────────────┤                               watchdog,       hooks in discovery
//!   --event <type>  ─────────────┘                               restarts        order, "*" last
//!                                                                   │
//!                          ctx calls (kv, files, reminders) ◀───────┘
//! ```
//!
//! Data flows one way: nothing a hook does changes the turn.

pub mod dispatcher;
pub mod feed;
pub mod hooks;
pub mod keeper;
pub mod plan;
pub mod shared;
pub mod stats;
pub mod timeline;
pub mod turn;
pub mod undelivered;
