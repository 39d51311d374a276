//! `agent-sdk validate`: check every hook statically and report; the CI gate.

use crate::check::extensions::check_project;
use crate::cli::{OutputFormat, ValidateArgs};
use crate::diagnostics::Severity;
use crate::exit_status::ExitStatus;
use crate::printer::Printer;
use crate::report;

/// Checks the project at `--dir` (its hooks, and whether the SDK packages `tsc` sees are
/// there and current) and prints the findings in `--format`, naming files from the current
/// directory in the formats CI and editors read. Exit 1 on any error, or on
/// any warning with `--deny-warnings`.
pub fn validate(args: &ValidateArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let mut checked = check_project(&args.dir.dir)?;
    if checked.project.is_some() {
        // Only `validate` looks: `run` and `info` never depend on the written packages.
        checked.diagnostics.extend(crate::sdk::freshness::check_packages(&args.dir.dir));
        checked.diagnostics.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
    }
    let dir = report::ProjectDir::new(&args.dir.dir, &checked);
    let rendered = match args.format {
        // `--quiet`: the findings without the summary line.
        OutputFormat::Pretty if printer.is_quiet() => {
            report::render_diagnostics(&checked.diagnostics, &checked.sources, printer)
        }
        format => report::render(format, &checked, &dir, printer),
    };
    printer.stdout(&rendered)?;
    if let Some(summary) = report::render_summary(args.format, &checked).filter(|_| !printer.is_quiet()) {
        printer.stderr(&summary);
    }
    let failed = checked.count(Severity::Error) > 0 || (args.deny_warnings && checked.count(Severity::Warning) > 0);
    Ok(if failed { ExitStatus::Failure } else { ExitStatus::Success })
}
