//! `--format json`: the stable, versioned report (schemaVersion 1) documented in docs/formats.md.

use serde::Serialize;

use super::{ProjectDir, Summary};
use crate::check::CheckedProject;
use crate::diagnostics::{Diagnostic, Edit, Fix};

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
    /// The finding's fix, when it knows one (none, or one: a list so more may come).
    fixes: Vec<JsonFix<'c>>,
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonFix<'c> {
    title: &'c str,
    /// `safe` (`validate --fix` applies it) or `unsafe` (only `--unsafe-fixes` does).
    applicability: &'static str,
    edits: Vec<JsonEdit<'c>>,
}

/// Replace the text from `line`:`column` to `endLine`:`endColumn` (exclusive) with `newText`.
#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct JsonEdit<'c> {
    path: &'c str,
    line: u32,
    column: u32,
    end_line: u32,
    end_column: u32,
    new_text: &'c str,
}

impl<'c> From<&'c Fix> for JsonFix<'c> {
    fn from(fix: &'c Fix) -> Self {
        Self {
            title: &fix.title,
            applicability: fix.applicability.as_str(),
            edits: fix.edits.iter().map(JsonEdit::from).collect(),
        }
    }
}

impl<'c> From<&'c Edit> for JsonEdit<'c> {
    fn from(edit: &'c Edit) -> Self {
        Self {
            path: &edit.path,
            line: edit.start_at.line,
            column: edit.start_at.column,
            end_line: edit.end_at.line,
            end_column: edit.end_at.column,
            new_text: &edit.new_text,
        }
    }
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
            fixes: diagnostic.fix.iter().map(JsonFix::from).collect(),
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
