//! `agent-sdk completions <shell>`: the shell completion script, generated from the CLI itself.

use clap::CommandFactory;

use crate::cli::{Cli, CompletionsArgs};
use crate::exit_status::ExitStatus;
use crate::printer::Printer;

/// Prints the completion script for `shell` to stdout.
pub fn completions(args: &CompletionsArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    printer.stdout(&script(args.shell))?;
    Ok(ExitStatus::Success)
}

/// The completion script for `shell` (also what `completions/` holds).
pub fn script(shell: clap_complete::Shell) -> String {
    let mut buffer = Vec::new();
    clap_complete::generate(shell, &mut Cli::command(), "agent-sdk", &mut buffer);
    String::from_utf8_lossy(&buffer).into_owned()
}
