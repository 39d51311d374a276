//! agent-sdk: a fast, exact toolchain for people who write TypeScript agent hooks.
//!
//! `validate` and `info` flow one way: [`project`] finds the source folder,
//! [`check`] discovers the hook modules and analyses each with the oxc parser, gathering
//! the findings as [`diagnostics`], and [`report`] renders them. `run` and `dev` go on:
//! [`session`] turns the checked project into a running session of the [`engine`].
//! docs/ARCHITECTURE.md has the map.

// Modules by floor: each imports only from its own floor or below (`tests/it/floors.rs`
// holds the table and checks it; docs/ARCHITECTURE.md draws it).

// Floor 7, the commands: one file (or folder) per command, flags to outcome.
pub mod commands;

// Floor 6, the servers: `dev`'s sessions over HTTP (the serve log as SSE, the watcher) and
// the language server for editors (`lsp`).
pub mod lsp;
pub mod server;

// Floor 5, the meeting point: a checked project becomes a running session (`run`, `dev`).
pub mod session;

// Floor 4, the static check and the turn engine, side by side.
pub mod check; // discover → analyze → diagnostics, extension mounts included
pub mod engine; // one turn, recorded and dispatched to the hooks
pub mod report; // a checked project rendered: pretty, concise, json, sarif, github, info

// Floor 3, what runs: the Node.js hook runtime and the model.
pub mod model; // the local scripted model and the providers
pub mod runtime; // Node.js started, its files, its channels, the host calls hooks make

// Floor 2, what loads modules and what exports telemetry.
pub mod loader; // TypeScript modules resolved, compiled (cached) and linked for Node
pub mod telemetry; // OTLP export of the session's spans, metrics and logs

// Floor 1, the ground: data, the store, the SDK's files, and rooms of small leaves.
pub mod cli; // every command-line type; the doc comments are `--help`
pub mod config; // agent-sdk.json (or package.json's agentSdk): rule levels, ignore globs, test defaults
pub mod diagnostics; // codes, findings, suppressions, line indexes, "did you mean"
pub mod exit_status; // the one exit-status type
pub mod fs; // private folders, whole-file and if-changed writes, JSON files, links out
pub mod http; // what every HTTP client shares: the CAs it trusts, Server-Sent Events read
pub mod parse; // oxc parsing on a stack big enough for any input
pub mod platform; // what differs between operating systems: a Unix side and a Windows side
pub mod printer; // the one way output reaches the terminal
pub mod process; // this very binary, and how the user runs it
pub mod project; // the project on disk: layout, name, package.json, .env files, fingerprint
pub mod protocol; // every message across the Node.js boundary
pub mod scaffold; // what `init` writes
pub mod sdk; // the SDK packages: declarations, JavaScript files, event examples
pub mod signals; // Ctrl-C, SIGTERM, SIGHUP
pub mod state; // the store: event log, serve log and its query, sessions, dev.json
pub mod text; // text we did not write made safe, I/O errors in a user's words, URIs
pub mod time; // timestamps, durations, ids, `--since`
pub mod vocabulary; // the event vocabulary and the shape of each event's data

use std::process::ExitCode;

use clap::Parser;

use cli::Cli;
use exit_status::ExitStatus;
use printer::Printer;

/// The whole program, named after the file it was run as (see [`cli::ProgramName`]).
pub fn main() -> ExitCode {
    main_as(cli::ProgramName::from_argv0(std::env::args_os().next().as_deref()))
}

/// The whole program under the name `program`: parse the command line, run the command,
/// turn the outcome into an exit code, and report an error once.
pub fn main_as(program: cli::ProgramName) -> ExitCode {
    if std::env::args_os().nth(1).is_some_and(|first| first == cli::LOAD_MODULE) {
        return load_module();
    }
    if std::env::args_os().nth(1).is_some_and(|first| first == cli::COMPILE) {
        return compile_big_module();
    }
    let cli = match Cli::try_parse_as(program, std::env::args_os()) {
        Ok(cli) => cli,
        Err(error) => {
            let _ = error.print();
            return if error.use_stderr() { ExitStatus::Error.into() } else { ExitStatus::Success.into() };
        }
    };
    let printer = Printer::new(cli.color).quiet(cli.quiet);
    let outcome = commands::dispatch(cli, &printer);
    match outcome {
        Ok(status) => status.into(),
        Err(error) if printer::StdoutClosed::is_cause_of(&error) => ExitStatus::Success.into(),
        Err(error) => {
            printer.stderr(&format!("error: {error:#}\n"));
            exit_status::status_of(&error).into()
        }
    }
}

/// `agent-sdk __compile`, for a module too big to compile on a thread (see [`cli::COMPILE`]).
fn compile_big_module() -> ExitCode {
    match loader::big_modules::compile_from_stdin() {
        Ok(()) => ExitStatus::Success.into(),
        Err(error) => {
            Printer::new(cli::ColorChoice::Never).stderr(&format!("error: {error}\n"));
            ExitStatus::Error.into()
        }
    }
}

/// `agent-sdk __load-module …`, for the hook runtime (see [`cli::LoadModuleArgs`]).
fn load_module() -> ExitCode {
    let printer = Printer::new(cli::ColorChoice::Never);
    let args = match cli::LoadModuleArgs::try_parse_from(std::env::args_os().skip(1)) {
        Ok(args) => args,
        Err(error) => {
            let _ = error.print();
            return ExitStatus::Error.into();
        }
    };
    match commands::load_module::load_module(&args, &printer) {
        Ok(status) => status.into(),
        Err(error) => {
            printer.stderr(&format!("error: {error:#}\n"));
            ExitStatus::Error.into()
        }
    }
}
