//! `agent-sdk logs`: print a server's serve log, and with `--follow` keep printing it.

use std::path::Path;

use anyhow::Context;
use serde_json::Value;

use crate::cli::LogsArgs;
use crate::dev::logs::{LogQuery, LogRequest, read_history};
use crate::exit_status::{Exit, ExitStatus};
use crate::logs::Stop;
use crate::logs::connect::{Given, check_transport, dev_json_path, discover, read_dev_json};
use crate::logs::follow::follow;
use crate::logs::print::{LogRecord, Output, Style};
use crate::logs::query::Query;
use crate::printer::Printer;
use crate::state::{STATE_DIR, StateRoot, StateStore};

/// Prints the log's history (and with `--follow` what comes after) until the history ends
/// or Ctrl-C: exit 0. With no server running here, prints the local history instead (exit
/// 0). Exit 1 when there is no server and no local history, the server refuses the token,
/// or it stays gone after a lost connection; exit 2 on a bad flag. A closed stdout ends
/// it quietly.
pub fn logs(args: &LogsArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    match print_logs(args, printer) {
        Ok(()) => Ok(ExitStatus::Success),
        Err(error) => match error.downcast::<Stop>() {
            Ok(stop) => Err(Exit { status: stop.status, message: stop.message }.into()),
            Err(error) => Err(error),
        },
    }
}

fn print_logs(args: &LogsArgs, printer: &Printer) -> anyhow::Result<()> {
    let query = Query::new(
        args.follow,
        args.since.as_deref(),
        args.session.as_deref(),
        args.level.map(crate::cli::LogLevel::as_str),
        args.tail,
    )?;
    let flags = Given { host: args.host.clone(), token: args.token.clone() };
    let env = Given { host: std::env::var("AGENT_SDK_HOST").ok(), token: std::env::var("AGENT_SDK_TOKEN").ok() };
    // Only the local server's absence means the local history is the one to read: a
    // server named by --host or AGENT_SDK_HOST keeps logs of its own.
    let local = [&flags.host, &env.host].iter().all(|host| host.as_deref().is_none_or(|host| host.trim().is_empty()));
    let style = if args.json { Style::Json } else { Style::Human { color: printer.color(), utc: args.utc } };
    let served = discover(&flags, &env, || read_dev_json(&dev_json_path(&args.dir.dir)))
        .map_err(anyhow::Error::from)
        .and_then(|endpoint| {
            check_transport(&endpoint, args.insecure)?;
            follow_server(&endpoint, &query, Output::new(printer, style), args.retry_for)
        });
    match served {
        Err(error) if local && error.downcast_ref::<Stop>().is_some_and(|stop| stop.no_server) => {
            let state_db = StateRoot::of(&args.dir.dir).database();
            if !state_db.is_file() {
                return Err(error);
            }
            print_local_history(&args.dir.dir, &query, Output::new(printer, style))
        }
        served => served,
    }
}

/// Follows the server's log until the history ends, or Ctrl-C.
fn follow_server(
    endpoint: &crate::logs::connect::Endpoint,
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
        },
        None,
    )
    .map_err(Stop::usage)?;
    output.printer.stderr(&format!(
        "no server answered, so this is the local history from {STATE_DIR}/state.db (start `{} dev` to follow it live)\n",
        crate::invocation::command()
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
