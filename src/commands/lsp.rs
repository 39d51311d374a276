//! `agent-sdk lsp`: the language server for editors, over stdio (see [`crate::lsp`]).

use crate::cli::LspArgs;
use crate::exit_status::ExitStatus;
use crate::printer::Printer;

/// Serves LSP over stdin and stdout until the editor says `exit`; stdout carries the
/// protocol only, so nothing is printed.
pub fn lsp(_args: &LspArgs, _printer: &Printer) -> anyhow::Result<ExitStatus> {
    crate::lsp::serve()?;
    Ok(ExitStatus::Success)
}
