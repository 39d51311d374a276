//! agent-sdk: a fast, exact toolchain for people who write TypeScript agent hooks.
//!
//! `validate` and `info` flow one way: [`project`] finds the source folder,
//! [`discover`] the hook modules, [`analyze`] checks each with the oxc parser,
//! [`check`] gathers the findings as [`diagnostics`], and [`report`] renders them.

pub mod analyze;
pub mod check;
pub mod cli;
pub mod clock;
pub mod commands;
pub mod data_shape;
pub mod dev;
pub mod diagnostics;
pub mod discover;
pub mod engine;
pub mod env_file;
pub mod exit_status;
pub mod extensions;
pub mod fingerprint;
pub mod invocation;
pub mod io_error;
pub mod json_file;
pub mod link_out;
pub mod loader;
pub mod logs;
pub mod model;
pub mod package_json;
pub mod printer;
pub mod project;
pub mod report;
pub mod running_binary;
pub mod runtime;
pub mod scaffold;
pub mod sdk;
pub mod serve_log;
pub mod session_id;
pub mod signals;
pub mod since;
pub mod sse;
pub mod state;
pub mod suggest;
pub mod telemetry;
pub mod untrusted;
pub mod uri;
pub mod vocabulary;

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
