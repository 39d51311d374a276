//! The check's findings as LSP sees them: a [`Diagnostic`] becomes an `lsp_types::Diagnostic`
//! (same code, message, severity; the help as the message's last line, the label as related
//! information) and a [`Fix`] its edits file by file, each with the version of the document
//! it was computed for, every byte offset turned into UTF-16 positions with the text the
//! check read; then a `WorkspaceEdit`, versioned when the client takes versions.

use std::collections::HashMap;
use std::path::Path;
use std::str::FromStr;

use lsp_types::{
    CodeDescription, DiagnosticRelatedInformation, DiagnosticSeverity, DocumentChanges, Location, NumberOrString,
    OneOf, OptionalVersionedTextDocumentIdentifier, Range, TextDocumentEdit, TextEdit, Uri, WorkspaceEdit,
};

use super::text;
use crate::diagnostics::{Diagnostic, Fix, Severity};
// The same links SARIF's `helpUri`s are: each code's row in docs/codes.md.
use crate::report::sarif::{CODES_URL, anchor};

/// What the client is told for a finding without a span: the start of its file.
const FILE_START: Range =
    Range { start: lsp_types::Position { line: 0, character: 0 }, end: lsp_types::Position { line: 0, character: 0 } };

pub fn severity(severity: Severity) -> DiagnosticSeverity {
    match severity {
        Severity::Error => DiagnosticSeverity::ERROR,
        Severity::Warning => DiagnosticSeverity::WARNING,
        Severity::Advice => DiagnosticSeverity::INFORMATION,
    }
}

/// `diagnostic` of the file `uri`, whose text as checked is `text` (`None`: not known, so
/// the range is counted in characters from the label's columns).
pub fn diagnostic(diagnostic: &Diagnostic, uri: &Uri, text: Option<&str>) -> lsp_types::Diagnostic {
    let range = match (&diagnostic.label, text) {
        (Some(label), Some(text)) => text::range(text, label.start as usize, label.end as usize),
        (Some(label), None) => Range {
            start: lsp_types::Position { line: label.start_at.line - 1, character: label.start_at.column - 1 },
            end: lsp_types::Position { line: label.end_at.line - 1, character: label.end_at.column - 1 },
        },
        (None, _) => FILE_START,
    };
    let code = diagnostic.code.as_str();
    let related = diagnostic.label.as_ref().filter(|label| !label.text.is_empty()).map(|label| {
        vec![DiagnosticRelatedInformation {
            location: Location { uri: uri.clone(), range },
            message: label.text.clone(),
        }]
    });
    lsp_types::Diagnostic {
        range,
        severity: Some(severity(diagnostic.severity())),
        code: Some(NumberOrString::String(code.to_owned())),
        code_description: Uri::from_str(&format!("{CODES_URL}#{}", anchor(diagnostic.code)))
            .ok()
            .map(|href| CodeDescription { href }),
        source: Some("agent-sdk".to_owned()),
        message: if diagnostic.help.is_empty() {
            diagnostic.message.clone()
        } else {
            format!("{}\nhelp: {}", diagnostic.message, diagnostic.help)
        },
        related_information: related,
        tags: None,
        data: None,
    }
}

/// The edits of one file, and the version of the document they are for (`None`: the file
/// on disk, not open in the editor).
#[derive(Debug, Clone, PartialEq)]
pub struct FileEdits {
    pub uri: Uri,
    pub version: Option<i32>,
    pub edits: Vec<TextEdit>,
}

/// `fix`'s edits, file by file in the order they first appear. Their paths are relative to
/// `project_dir`; `text_of` gives the text each file had when it was checked (`None`: the
/// file's columns are used as UTF-16 units, right for ASCII lines), and `document_of` the URI
/// the client knows the file by and the version of it that was checked.
pub fn file_edits(
    fix: &Fix,
    project_dir: &Path,
    text_of: impl Fn(&str) -> Option<String>,
    document_of: impl Fn(&Path) -> (Uri, Option<i32>),
) -> Vec<FileEdits> {
    let mut files: Vec<FileEdits> = Vec::new();
    for edit in &fix.edits {
        let range = match text_of(&edit.path) {
            Some(text) => text::range(&text, edit.start as usize, edit.end as usize),
            None => Range {
                start: lsp_types::Position { line: edit.start_at.line - 1, character: edit.start_at.column - 1 },
                end: lsp_types::Position { line: edit.end_at.line - 1, character: edit.end_at.column - 1 },
            },
        };
        let (uri, version) = document_of(&project_dir.join(&edit.path));
        let edit = TextEdit { range, new_text: edit.new_text.clone() };
        match files.iter_mut().find(|file| file.uri == uri) {
            Some(file) => file.edits.push(edit),
            None => files.push(FileEdits { uri, version, edits: vec![edit] }),
        }
    }
    files
}

/// `files` as a workspace edit: `documentChanges` naming each document's version when the
/// client takes them (it then refuses an edit of a document changed since), else `changes`.
pub fn workspace_edit(files: &[FileEdits], versioned: bool) -> WorkspaceEdit {
    if versioned {
        let edits = files.iter().map(|file| TextDocumentEdit {
            text_document: OptionalVersionedTextDocumentIdentifier { uri: file.uri.clone(), version: file.version },
            edits: file.edits.iter().cloned().map(OneOf::Left).collect(),
        });
        return WorkspaceEdit {
            document_changes: Some(DocumentChanges::Edits(edits.collect())),
            ..WorkspaceEdit::default()
        };
    }
    let mut changes: HashMap<Uri, Vec<TextEdit>> = HashMap::new();
    for file in files {
        changes.entry(file.uri.clone()).or_default().extend(file.edits.iter().cloned());
    }
    WorkspaceEdit { changes: Some(changes), ..WorkspaceEdit::default() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::diagnostics::{Code, SourceFile};

    #[test]
    fn a_diagnostic_keeps_code_severity_help_and_utf16_range() {
        let text = "const a = \"🎉\"; ctx.oops;\n";
        let file = SourceFile::new("bot/hooks/a.ts", text);
        let start = text.find("oops").unwrap() as u32;
        let found = file.diagnostic(Code::UnknownEvent, (start, start + 4), "here", "bad key", "use a known one");
        let uri = Uri::from_str("file:///p/bot/hooks/a.ts").unwrap();
        let converted = diagnostic(&found, &uri, Some(text));
        // `const a = "🎉"; ctx.` is 19 characters, 20 UTF-16 units.
        assert_eq!(converted.range.start, lsp_types::Position { line: 0, character: 20 });
        assert_eq!(converted.range.end, lsp_types::Position { line: 0, character: 24 });
        assert_eq!(converted.code, Some(NumberOrString::String("hooks::unknown-event".to_owned())));
        assert_eq!(converted.severity, Some(DiagnosticSeverity::ERROR));
        assert_eq!(converted.message, "bad key\nhelp: use a known one");
        assert_eq!(converted.related_information.unwrap()[0].message, "here");
        assert!(converted.code_description.unwrap().href.as_str().ends_with("codes.md#hooks-unknown-event"));
    }

    #[test]
    fn a_fix_becomes_a_workspace_edit_per_file_in_utf16_units() {
        let text = "// é🎉\n\"turn.complete\"(e) {}\n";
        let file = SourceFile::new("bot/hooks/a.ts", text);
        let other = SourceFile::new("bot/lib/b.ts", "x\n");
        let start = text.find("turn").unwrap() as u32;
        let fix = Fix::safe(
            "Replace with `turn.completed`",
            vec![file.edit(start, start + 13, "turn.completed"), other.edit(0, 1, "y")],
        );
        let document_of = |path: &Path| (text::uri_of(path), path.ends_with("a.ts").then_some(4));
        let files =
            file_edits(&fix, Path::new("/p"), |path| (path == "bot/hooks/a.ts").then(|| text.to_owned()), document_of);
        let changes = workspace_edit(&files, false).changes.unwrap();
        let a = &changes[&Uri::from_str("file:///p/bot/hooks/a.ts").unwrap()];
        assert_eq!(a.len(), 1);
        assert_eq!(a[0].range.start, lsp_types::Position { line: 1, character: 1 });
        assert_eq!(a[0].range.end, lsp_types::Position { line: 1, character: 14 });
        assert_eq!(a[0].new_text, "turn.completed");
        let b = &changes[&Uri::from_str("file:///p/bot/lib/b.ts").unwrap()];
        assert_eq!(b[0].range.end, lsp_types::Position { line: 0, character: 1 });
        // Versioned: the document's version checked, `null` for the file not open.
        let Some(DocumentChanges::Edits(edits)) = workspace_edit(&files, true).document_changes else { panic!() };
        let versions: Vec<_> =
            edits.iter().map(|edit| (edit.text_document.uri.as_str(), edit.text_document.version)).collect();
        assert_eq!(versions, [("file:///p/bot/hooks/a.ts", Some(4)), ("file:///p/bot/lib/b.ts", None)]);
        assert_eq!(edits[0].edits, [OneOf::Left(a[0].clone())]);
    }
}
