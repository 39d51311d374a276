//! What a check finds: located, explained diagnostics with stable codes.
//!
//! Checks build diagnostics with the constructor next to them; this module only holds
//! the shape every finding shares, so every output format renders the same facts.

pub mod codes;
pub mod fix;
pub mod line_index;
pub mod suggest;
pub mod suppression;

pub use codes::{Code, Severity};
pub use fix::{Applicability, Edit, Fix};
pub use line_index::{LineColumn, LineIndex};

/// One finding: what is wrong, where, and how to fix it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub code: Code,
    /// The code's severity, unless the project's configuration sets another.
    pub severity: Severity,
    pub message: String,
    /// How to fix it, in one or two sentences.
    pub help: String,
    /// The file, relative to `--dir` with `/` separators; `None` for project-wide findings.
    pub path: Option<String>,
    /// The labelled source span, when the finding has one.
    pub label: Option<Label>,
    /// How to fix it as edits, when the fix is known for certain.
    pub fix: Option<Fix>,
}

/// A labelled span of a source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Label {
    /// Byte offsets into the file.
    pub start: u32,
    pub end: u32,
    /// Short text shown under the span.
    pub text: String,
    /// Where the span starts.
    pub start_at: LineColumn,
    /// Where the span ends (exclusive: the character after the last one).
    pub end_at: LineColumn,
}

impl Diagnostic {
    pub fn new(code: Code, message: impl Into<String>, help: impl Into<String>) -> Self {
        Self {
            code,
            severity: code.severity(),
            message: message.into(),
            help: help.into(),
            path: None,
            label: None,
            fix: None,
        }
    }

    pub fn severity(&self) -> Severity {
        self.severity
    }

    /// Whether this finding keeps its hook (and so a session's project) from loading: an
    /// error whose code [stops loading](Code::stops_loading).
    pub fn stops_loading(&self) -> bool {
        self.severity == Severity::Error && self.code.stops_loading()
    }

    pub fn with_path(mut self, path: impl Into<String>) -> Self {
        self.path = Some(path.into());
        self
    }

    /// A finding of unit tests that only look at where it is (`None`: project-wide).
    #[cfg(test)]
    pub fn at(path: Option<&str>) -> Self {
        let finding = Self::new(Code::UnknownEvent, "m", "h");
        match path {
            Some(path) => finding.with_path(path),
            None => finding,
        }
    }

    pub fn with_label(mut self, label: Label) -> Self {
        self.label = Some(label);
        self
    }

    pub fn with_fix(mut self, fix: Fix) -> Self {
        self.fix = Some(fix);
        self
    }

    /// The order diagnostics are reported in: project-wide first, then by file, position, code.
    pub fn sort_key(&self) -> (Option<&str>, Option<LineColumn>, Code, &str) {
        (self.path.as_deref(), self.label.as_ref().map(|label| label.start_at), self.code, &self.message)
    }
}

/// One source file as diagnostics see it: its text and where its lines start.
#[derive(Debug)]
pub struct SourceFile<'s> {
    pub path: &'s str,
    pub text: &'s str,
    /// Made at the first label or edit: most files checked have no finding.
    lines: std::sync::OnceLock<LineIndex>,
}

impl<'s> SourceFile<'s> {
    pub fn new(path: &'s str, text: &'s str) -> Self {
        Self { path, text, lines: std::sync::OnceLock::new() }
    }

    fn lines(&self) -> &LineIndex {
        self.lines.get_or_init(|| LineIndex::new(self.text))
    }

    /// A label over bytes `start..end` of this file.
    pub fn label(&self, start: u32, end: u32, text: impl Into<String>) -> Label {
        let end = end.max(start);
        Label {
            start,
            end,
            text: text.into(),
            start_at: self.lines().line_column(self.text, start),
            end_at: self.lines().line_column(self.text, end),
        }
    }

    /// An edit of this file replacing bytes `start..end` with `new_text`.
    pub fn edit(&self, start: u32, end: u32, new_text: impl Into<String>) -> Edit {
        let end = end.max(start);
        Edit {
            path: self.path.to_owned(),
            start,
            end,
            start_at: self.lines().line_column(self.text, start),
            end_at: self.lines().line_column(self.text, end),
            new_text: new_text.into(),
        }
    }

    /// An edit replacing the string literal at `start..end` with one of `value`, in the
    /// literal's own quotes (`value` holds no quote or backslash: a name or a specifier).
    pub fn string_literal_edit(&self, start: u32, end: u32, value: &str) -> Edit {
        let quote = match self.text.as_bytes().get(start as usize) {
            Some(b'\'') => '\'',
            _ => '"',
        };
        self.edit(start, end, format!("{quote}{value}{quote}"))
    }

    /// A diagnostic in this file, labelled at `start..end`.
    pub fn diagnostic(
        &self,
        code: Code,
        span: (u32, u32),
        label: impl Into<String>,
        message: impl Into<String>,
        help: impl Into<String>,
    ) -> Diagnostic {
        Diagnostic::new(code, message, help).with_path(self.path).with_label(self.label(span.0, span.1, label))
    }
}
/// A module too big to parse with the memory available (see [`crate::parse`]).
pub fn too_big_to_parse(display_path: &str) -> Diagnostic {
    Diagnostic::new(
        Code::Unreadable,
        "it is too big to parse with the memory available",
        "a hook is a small module: move generated code or data out of `hooks/` and import it instead",
    )
    .with_path(display_path)
}
