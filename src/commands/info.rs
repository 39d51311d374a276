//! `agent-sdk info`: describe the project's agent and the hooks that would load.

use crate::check::extensions::MountsRan;
use crate::check::full::check_project;
use crate::cli::InfoArgs;
use crate::exit_status::ExitStatus;
use crate::printer::Printer;
use crate::report;
use crate::report::info::{broken_hooks_note, render_json, render_tree};

/// Prints the project as JSON (`--json`) or a tree. Hooks with errors are listed as
/// skipped and a note says so; only a project with no agent to describe exits 1.
pub fn info(args: &InfoArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let checked = check_project(&args.dir.dir, &(&args.exec).into())?;
    if let Some(line) = report::settings::from_above(&checked.config, &report::ProjectDir::new(&args.dir.dir, &checked))
    {
        printer.stderr(&line);
    }
    if let Some(line) = MountsRan::of(&checked).line().filter(|_| !printer.is_quiet()) {
        printer.stderr(&line);
    }
    if checked.project.is_none() {
        printer.stderr(&report::pretty(&checked, &Printer::new(crate::cli::ColorChoice::Never)));
    }
    if args.wants_json() {
        printer.stdout(&render_json(&checked, &args.dir.dir.to_string_lossy()))?;
        if let Some(note) = broken_hooks_note(&checked) {
            printer.stderr(&format!("{note}\n"));
        }
    } else {
        printer.stdout(&render_tree(&checked, printer.color()))?;
    }
    Ok(if checked.project.is_some() { ExitStatus::Success } else { ExitStatus::Failure })
}
