//! One file per command, each one documented function; the dispatch is the single `match` here.

mod chat;
mod completions;
mod dev;
mod help;
mod info;
mod init;
pub mod load_module;
mod logs;
mod lsp;
mod run;
mod sdk;
mod test;
mod validate;

use crate::cli::{Cli, Command};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;

/// Runs the command the user asked for.
pub fn dispatch(mut cli: Cli, printer: &Printer) -> anyhow::Result<ExitStatus> {
    if let Some((given, dir)) = cli.command.as_mut().and_then(Command::project_dir) {
        *dir = given.unwrap_or_else(crate::project::find_root);
    }
    let Some(command) = cli.command else { return help::index(cli.program, printer) };
    match command {
        Command::Validate(args) => validate::validate(&args, printer),
        Command::Info(args) => info::info(&args, printer),
        Command::Run(args) => run::run(&args, printer),
        Command::Dev(args) => dev::dev(&args, printer),
        Command::Test(args) => test::test(&args, printer),
        Command::Logs(args) => logs::logs(&args, printer),
        Command::Chat(args) => chat::chat(&args, printer),
        Command::Sdk(args) => sdk::sdk(&args, printer),
        Command::Init(args) => init::init(&args, printer),
        Command::Completions(args) => completions::completions(&args, cli.program, printer),
        Command::Lsp(args) => lsp::lsp(&args, printer),
        Command::Help(args) => help::help(&args, cli.program, printer),
    }
}
