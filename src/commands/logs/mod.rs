//! `agent-sdk logs`: print a server's serve log, and with `--follow` keep printing it.
//!
//! The `logs` client: reads a server's serve log over Server-Sent Events and prints it,
//! resuming after a dropped connection so that no line is lost or printed twice.
//!
//! ```text
//!  flags / env / dev.json ──▶ connect (host, token, plain-HTTP rule)
//!  --since / --level ───────▶ query (GET /v1/logs?…)
//!                                   │
//!                                   ▼
//!          follow: request ─▶ sse (events) ─▶ resume (drop cursor ≤ last printed) ─▶ print
//!             ▲                    │
//!             └── backoff ◀── lost (end, read error, 5xx, 45 s of silence)
//! ```

pub mod connect;
pub mod follow;
pub mod print;
pub mod query;
pub mod resume;

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::cli::LogsArgs;
use crate::exit_status::{Exit, ExitStatus};
use crate::printer::Printer;
use crate::state::log_query::{LogQuery, LogRequest, read_history};
use crate::state::{STATE_DIR, StateRoot, StateStore};
use connect::{Given, check_transport, dev_json_path, discover, read_dev_json};
use follow::follow;
use print::{LogRecord, Output, Style};
use query::Query;

/// Why `logs` ends early: what to tell the user, and the exit status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stop {
    pub status: ExitStatus,
    pub message: String,
    /// No server answered at all (none was started, or it is not running): the local
    /// history may be read instead.
    pub no_server: bool,
}

impl Stop {
    /// Exit 1: the server is missing, refused us, or went away for good.
    pub fn failure(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Failure, message: message.into(), no_server: false }
    }

    /// Exit 1 (unless there is a local history to print): no server answered.
    pub fn no_server(message: impl Into<String>) -> Self {
        Self { no_server: true, ..Self::failure(message) }
    }

    /// Exit 2: a bad flag or a broken local setup.
    pub fn usage(message: impl Into<String>) -> Self {
        Self { status: ExitStatus::Error, message: message.into(), no_server: false }
    }
}

impl std::fmt::Display for Stop {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Stop {}

/// Prints the log's history (and with `--follow` what comes after) until the history ends
/// or Ctrl-C: exit 0. With no server running here, prints the local history instead (exit
/// 0). Exit 1 when there is no server and no local history, the server refuses the token,
/// or it stays gone after a lost connection; exit 2 on a bad flag. A closed stdout ends
/// it quietly.
pub fn logs(args: &LogsArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    match print_logs(args, printer) {
        Ok(()) => Ok(ExitStatus::Success),
        Err(error) => match error.downcast::<Stop>() {
            // A server's words may quote a URL with its user name and password.
            Ok(stop) => {
                Err(Exit { status: stop.status, message: crate::text::uri::without_credentials(&stop.message) }.into())
            }
            Err(error) => Err(error),
        },
    }
}

fn print_logs(args: &LogsArgs, printer: &Printer) -> anyhow::Result<()> {
    let query = Query::new(
        args.follow,
        args.since.as_deref(),
        args.session.as_deref(),
        args.level.map(crate::state::log_record::Level::as_str),
        args.tail,
    )?
    .of_hooks(&args.hooks);
    let flags = Given { host: args.host.clone(), token: args.token.clone() };
    let env = Given { host: std::env::var("AGENT_SDK_HOST").ok(), token: std::env::var("AGENT_SDK_TOKEN").ok() };
    // Only the local server's absence means the local history is the one to read: a
    // server named by --host or AGENT_SDK_HOST keeps logs of its own.
    let local = [&flags.host, &env.host].iter().all(|host| host.as_deref().is_none_or(|host| host.trim().is_empty()));
    let printed = std::cell::Cell::new(0);
    let style = if args.json { Style::Json } else { Style::Human { color: printer.color(), utc: args.utc } };
    let served = discover(&flags, &env, || read_dev_json(&dev_json_path(&args.dir.dir)))
        .map_err(anyhow::Error::from)
        .and_then(|endpoint| {
            check_transport(&endpoint, args.insecure)?;
            follow_server(&endpoint, &query, Output::new(printer, style, &printed), args.retry_for)
        });
    let printed_all = match served {
        Err(error) if local && error.downcast_ref::<Stop>().is_some_and(|stop| stop.no_server) => {
            let state_db = StateRoot::of(&args.dir.dir).database();
            if !state_db.is_file() {
                return Err(error);
            }
            print_local_history(&args.dir.dir, &query, Output::new(printer, style, &printed))
        }
        served => served,
    };
    printed_all?;
    // A filter that matched nothing is said, not left to look like an empty log (a follow
    // that ends at Ctrl-C is still waiting for such lines, so it says nothing).
    if let (0, false, Some(narrowed)) = (printed.get(), args.follow, query.narrowed_to()) {
        printer.stderr(&format!("no line of {narrowed} in the log\n"));
    }
    Ok(())
}

/// Follows the server's log until the history ends, or Ctrl-C.
fn follow_server(
    endpoint: &crate::commands::logs::connect::Endpoint,
    query: &Query,
    output: Output<'_>,
    retry_for: std::time::Duration,
) -> anyhow::Result<()> {
    // One thread: a stream read in order gains nothing from more, and pays for each wake-up.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async {
        tokio::select! {
            outcome = follow(endpoint, query, output, retry_for) => outcome,
            () = interrupted() => Ok(()),
        }
    })
}

/// How many local lines are gathered before they are written.
const LOCAL_BATCH: usize = 500;

/// No server answered: prints the history recorded in the project's own state store, as
/// `docker logs` prints a stopped container's, with the same filters and the same lines.
/// There is nothing to follow, so `--follow` ends after the history too, saying so.
fn print_local_history(dir: &Path, query: &Query, mut output: Output<'_>) -> anyhow::Result<()> {
    let request = LogRequest::parse(
        &LogQuery {
            follow: false,
            since: query.since.clone(),
            session: query.session.clone(),
            level: query.level.map(str::to_owned),
            tail: query.tail,
            hooks: query.hooks.clone(),
        },
        None,
    )
    .map_err(Stop::usage)?;
    output.printer.stderr(&format!(
        "no server answered, so this is the local history from {STATE_DIR}/state.db (start `{} dev` to follow it live)\n",
        crate::process::invocation::command()
    ));
    let store = StateStore::open(dir)?;
    let mut gathered = 0;
    read_history(&store, &request, |cursor, record| {
        let Value::Object(fields) = record else { return Ok(()) };
        output.print(&LogRecord { cursor, fields })?;
        // Written in batches, so a long history streams without a write per line.
        gathered += 1;
        if gathered % LOCAL_BATCH == 0 {
            output.flush()?;
        }
        Ok(())
    })?;
    output.flush()?;
    if query.follow {
        output.printer.stderr("nothing to follow: no server is running here\n");
    }
    Ok(())
}

/// Resolves at Ctrl-C; never, if the signal cannot be watched (Ctrl-C then ends the
/// process the usual way).
async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
