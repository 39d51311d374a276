//! Everything agent-sdk keeps under a project's state root, `<dir>/.agent-sdk/`: where it is
//! and how it is made ([`store`]: the folder, its paths and the SQLite store), what the
//! store holds (the events' [`envelope`]s, their handlers' [`handler_run`]s and the serve log's [`log_record`]s, and the query that reads them, [`log_query`]), who may
//! write a session ([`session_lease`]), who a `dev` session is ([`session_info`]), and the dev server's `dev.json` ([`dev_file`]); and where the static commands keep
//! their state outside the project ([`user_cache`]).
//! It sits low in the house: it imports none of the commands, the engine or the runtime.

pub mod dev_file;
pub mod envelope;
pub mod handler_run;
pub mod log_query;
pub mod log_record;
pub mod serve_log;
pub mod session_id;
pub mod session_info;
pub mod session_lease;
mod store;
pub mod user_cache;

pub use store::{LogRow, STATE_DIR, StateRoot, StateStore};
