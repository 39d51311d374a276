//! The integration tests, one crate (a library edit relinks one test binary, not one per
//! file): each module drives the real `agent-sdk` binary, or the library, for one command
//! or concern, with the helpers of `common` (a dev server, the store, snapshot filters).
//! `cargo test --test it -- run::` runs one module's tests.
//!
//! Unix only: the suite drives the hook runtime, which Windows has no side for yet (see
//! docs/ARCHITECTURE.md, "Platforms"), and reads modes and owners; there the crate is empty
//! and the library's own tests are what runs.
#![cfg(unix)]

mod common;

mod action;
mod agreement;
mod analyzer_never_panics;
mod bad_input;
mod chaos;
mod chat;
mod ci_output;
mod cli;
mod completions;
mod config;
mod confinement;
mod dev;
mod docs;
mod extensions;
mod flag_values;
mod floors;
mod hostile;
mod hosting_api;
mod house_rules;
mod init;
mod logs;
mod lsp;
mod memory;
mod node_eol;
mod npm_package;
mod npm_use;
mod orphans;
mod otel;
mod otlp_receiver;
mod playground;
mod pre_commit;
mod provider_client;
mod providers;
mod release;
mod run;
mod runtime;
mod sdk;
mod test_command;
mod tls;
mod types;
mod validate;
mod what_runs;
mod workflows;
