//! Rendering a [`CheckedProject`](crate::check::CheckedProject): one file per output
//! format, all fed the same data, none of them deciding anything.

pub mod concise;
mod github;
pub mod info;
pub mod json;
mod location;
mod pretty;
pub mod sarif;
pub mod settings;

pub use github::{FailedTest, render_failed_tests};
pub use location::{Location, ProjectDir};

use crate::check::CheckedProject;
use crate::cli::OutputFormat;
use crate::diagnostics::Severity;
use crate::printer::Printer;

/// The `validate` report in `format`, for stdout; `dir` is the project as the user named it.
pub fn render(format: OutputFormat, checked: &CheckedProject, dir: &ProjectDir, printer: &Printer) -> String {
    match format {
        OutputFormat::Pretty => pretty::render(checked, printer.color()),
        OutputFormat::Json => json::render(checked, dir),
        OutputFormat::Github => github::render(checked, dir),
        OutputFormat::Sarif => sarif::render(checked, dir),
        OutputFormat::Concise => concise::render(checked, dir),
    }
}

/// What `format` says on stderr after the report, if anything: `concise` keeps stdout to
/// one line per finding (for grep and problem matchers) and says its summary here.
pub fn render_summary(format: OutputFormat, checked: &CheckedProject) -> Option<String> {
    (format == OutputFormat::Concise)
        .then(|| format!("{}\n", pretty::summary_line(&Summary::of(checked), checked.count(Severity::Advice), false)))
}

/// The pretty report alone: what `info`, `run` and `dev` show when hooks have errors.
pub fn pretty(checked: &CheckedProject, printer: &Printer) -> String {
    pretty::render(checked, printer.color())
}

/// Diagnostics found outside a project check (in the modules tests import), pretty, as
/// `validate` shows them, without its summary line.
pub fn render_diagnostics(
    diagnostics: &[crate::diagnostics::Diagnostic],
    sources: &std::collections::HashMap<String, String>,
    printer: &Printer,
) -> String {
    pretty::render_diagnostics(diagnostics, sources, printer.color())
}

/// The counts every format reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct Summary {
    /// Hook modules and mount files discovered and checked (the files named, when the report
    /// covers only those).
    pub files: usize,
    /// Hooks that would load.
    pub hooks: usize,
    pub errors: usize,
    pub warnings: usize,
}

impl Summary {
    pub fn of(checked: &CheckedProject) -> Self {
        Self {
            files: checked.files_named.unwrap_or_else(|| {
                checked.hooks.iter().filter(|hook| hook.mount.is_none()).count() + checked.mounts.len()
            }),
            hooks: checked.loaded().count(),
            errors: checked.count(Severity::Error),
            warnings: checked.count(Severity::Warning),
        }
    }
}
