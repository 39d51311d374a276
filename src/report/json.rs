//! `--format json`: the stable, versioned report (schemaVersion 1) documented in docs/formats.md.

use serde::Serialize;

use super::{ProjectDir, Summary};
use crate::check::CheckedProject;
use crate::diagnostics::Diagnostic;

/// Bumped only when a field changes meaning or goes away; new fields may be added.
pub const SCHEMA_VERSION: u32 = 1;

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonReport<'c> {
    schema_version: u32,
    /// `--dir` as given: every `path` is relative to it.
    dir: &'c str,
    diagnostics: Vec<JsonDiagnostic<'c>>,
    summary: Summary,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct JsonDiagnostic<'c> {
    code: &'static str,
    severity: &'static str,
    message: &'c str,
    help: &'c str,
    path: Option<&'c str>,
    line: Option<u32>,
    column: Option<u32>,
    end_line: Option<u32>,
    end_column: Option<u32>,
}

impl<'c> From<&'c Diagnostic> for JsonDiagnostic<'c> {
    fn from(diagnostic: &'c Diagnostic) -> Self {
        let label = diagnostic.label.as_ref();
        Self {
            code: diagnostic.code.as_str(),
            severity: diagnostic.severity().as_str(),
            message: &diagnostic.message,
            help: &diagnostic.help,
            path: diagnostic.path.as_deref(),
            line: label.map(|label| label.start_at.line),
            column: label.map(|label| label.start_at.column),
            end_line: label.map(|label| label.end_at.line),
            end_column: label.map(|label| label.end_at.column),
        }
    }
}

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let report = JsonReport {
        schema_version: SCHEMA_VERSION,
        dir: &dir.given,
        diagnostics: checked.diagnostics.iter().map(JsonDiagnostic::from).collect(),
        summary: Summary::of(checked),
    };
    let mut out =
        serde_json::to_string_pretty(&report).expect("the report serialises: it has only strings and numbers");
    out.push('\n');
    out
}
