//! `agent-sdk logs`: print a server's serve log, and with `--follow` keep printing it.

use anyhow::Context;

use crate::cli::LogsArgs;
use crate::exit_status::ExitStatus;
use crate::logs::Stop;
use crate::logs::connect::{Given, check_transport, dev_json_path, discover, read_dev_json};
use crate::logs::follow::follow;
use crate::logs::print::{Output, Style};
use crate::logs::query::Query;
use crate::printer::Printer;

/// Prints the log's history (and with `--follow` what comes after) until the history ends
/// or Ctrl-C: exit 0. Exit 1 when there is no server, it refuses the token, or it stays
/// gone after a lost connection; exit 2 on a bad flag. A closed stdout ends it quietly.
pub fn logs(args: &LogsArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    match print_logs(args, printer) {
        Ok(()) => Ok(ExitStatus::Success),
        Err(error) => match error.downcast::<Stop>() {
            Ok(stop) => {
                printer.stderr(&format!("error: {}\n", stop.message));
                Ok(stop.status)
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
        args.level.map(crate::cli::LogLevel::as_str),
        args.tail,
    )?;
    let flags = Given { host: args.host.clone(), token: args.token.clone() };
    let env = Given { host: std::env::var("AGENT_SDK_HOST").ok(), token: std::env::var("AGENT_SDK_TOKEN").ok() };
    let endpoint = discover(&flags, &env, || read_dev_json(&dev_json_path(&args.dir.dir)))?;
    check_transport(&endpoint, args.insecure)?;
    let style = if args.json { Style::Json } else { Style::Human { color: printer.color(), utc: args.utc } };
    let output = Output::new(printer, style);
    // One thread: a stream read in order gains nothing from more, and pays for each wake-up.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    runtime.block_on(async {
        tokio::select! {
            outcome = follow(&endpoint, &query, output, args.retry_for) => outcome,
            () = interrupted() => Ok(()),
        }
    })
}

/// Resolves at Ctrl-C; never, if the signal cannot be watched (Ctrl-C then ends the
/// process the usual way).
async fn interrupted() {
    if tokio::signal::ctrl_c().await.is_err() {
        std::future::pending::<()>().await;
    }
}
