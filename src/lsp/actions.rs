//! Code actions on the diagnostics published for a document: each finding's fix as a quick
//! fix (preferred when it is safe), and for a warning or advice "disable for this line", an
//! `// agent-sdk-ignore <code>` comment on its own line above, indented as the line is, or
//! the code added to such a comment already there (errors cannot be silenced, so they get
//! none). Asked for `source.fixAll.agent-sdk` (an editor's fix-on-save), one action with every
//! safe fix of the document that overlaps no other. The caller hands over only diagnostics
//! of the document's current text; the edits name the versions they are for when the
//! client takes versioned edits.

use lsp_types::{CodeAction, CodeActionKind, CodeActionOrCommand, Range, TextEdit};

use super::checks::{Document, Published};
use super::convert::{self, FileEdits};
use super::text;
use crate::diagnostics::suppression::DIRECTIVE;
use crate::diagnostics::{Applicability, Severity};

/// The kind of the action that applies every safe fix of a document, for
/// `editor.codeActionsOnSave` (`source.fixAll` or `source.fixAll.agent-sdk`).
pub const FIX_ALL: &str = "source.fixAll.agent-sdk";

/// The actions for the part `range` of `document`, of the diagnostics published for its
/// current version; `versioned`: the client takes `documentChanges`; `only`: the kinds the
/// client asked for (none: the quick fixes). Fix-all comes only when asked for, by its kind
/// or one it is under (`source`, `source.fixAll`).
pub fn code_actions(
    document: &Document,
    range: Range,
    published: &[Published],
    versioned: bool,
    only: Option<&[CodeActionKind]>,
) -> Vec<CodeActionOrCommand> {
    let asked = |kind: &str| {
        only.is_some_and(|only| {
            only.iter().any(|asked| kind == asked.as_str() || kind.starts_with(&format!("{}.", asked.as_str())))
        })
    };
    let mut actions = Vec::new();
    if asked(FIX_ALL) {
        actions.extend(fix_all(published, versioned).map(CodeActionOrCommand::CodeAction));
    }
    if only.is_some() && !asked(CodeActionKind::QUICKFIX.as_str()) {
        return actions;
    }
    let touches =
        |diagnostic: &lsp_types::Diagnostic| diagnostic.range.start <= range.end && range.start <= diagnostic.range.end;
    for found in published.iter().filter(|found| touches(&found.diagnostic)) {
        if let Some((fix, edits)) = &found.fix {
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: fix.title.clone(),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![found.diagnostic.clone()]),
                edit: Some(convert::workspace_edit(edits, versioned)),
                is_preferred: Some(fix.applicability == Applicability::Safe),
                ..CodeAction::default()
            }));
        }
        if found.severity != Severity::Error || !found.code.stops_loading() {
            let edit = disable_for_line(&document.text, found.diagnostic.range.start.line, found.code.as_str());
            let edits = FileEdits { uri: document.uri.clone(), version: Some(document.version), edits: vec![edit] };
            actions.push(CodeActionOrCommand::CodeAction(CodeAction {
                title: format!("Disable {} for this line", found.code.as_str()),
                kind: Some(CodeActionKind::QUICKFIX),
                diagnostics: Some(vec![found.diagnostic.clone()]),
                edit: Some(convert::workspace_edit(&[edits], versioned)),
                ..CodeAction::default()
            }));
        }
    }
    actions
}

/// One action with the safe fix of every finding published for the document, in order,
/// leaving out a fix whose edits overlap one taken before it (as `validate --fix` chooses a
/// round's fixes, by [`crate::diagnostics::fix::overlap`]; the next save takes it up); none
/// when no finding has a safe fix.
fn fix_all(published: &[Published], versioned: bool) -> Option<CodeAction> {
    let mut chosen: Vec<&crate::diagnostics::Edit> = Vec::new();
    let mut taken: Vec<FileEdits> = Vec::new();
    let mut fixed = Vec::new();
    for found in published {
        let Some((fix, edits)) = found.fix.as_ref().filter(|(fix, _)| fix.applicability == Applicability::Safe) else {
            continue;
        };
        if fix.edits.iter().any(|edit| chosen.iter().any(|other| crate::diagnostics::fix::overlap(edit, other))) {
            continue;
        }
        chosen.extend(&fix.edits);
        for file in edits {
            match taken.iter_mut().find(|other| other.uri == file.uri) {
                Some(other) => other.edits.extend(file.edits.iter().cloned()),
                None => taken.push(file.clone()),
            }
        }
        fixed.push(found.diagnostic.clone());
    }
    if fixed.is_empty() {
        return None;
    }
    Some(CodeAction {
        title: match fixed.len() {
            1 => "Fix all safe agent-sdk findings (1 fix)".to_owned(),
            n => format!("Fix all safe agent-sdk findings ({n} fixes)"),
        },
        kind: Some(CodeActionKind::new(FIX_ALL)),
        diagnostics: Some(fixed),
        edit: Some(convert::workspace_edit(&taken, versioned)),
        ..CodeAction::default()
    })
}

/// The edit silencing `code` on line `line` (0-based) of `source`: the code added to the
/// suppression comment alone on the line above, or a new comment line above it.
pub fn disable_for_line(source: &str, line: u32, code: &str) -> TextEdit {
    let line_start = text::offset(source, lsp_types::Position { line, character: 0 });
    let (_, indent) = text::line_start_and_indent(source, line_start);
    if line > 0 {
        let above_start = text::offset(source, lsp_types::Position { line: line - 1, character: 0 });
        let above = &source[above_start..line_start].trim_end_matches(['\n', '\r']);
        if let Some(codes_end) = codes_end(above) {
            let codes = above[..codes_end].trim_start().trim_start_matches("//").trim_start()[DIRECTIVE.len()..].trim();
            let separator = if codes.is_empty() { " " } else { ", " };
            let at = text::position(source, above_start + codes_end);
            return TextEdit { range: Range { start: at, end: at }, new_text: format!("{separator}{code}") };
        }
    }
    let at = text::position(source, line_start);
    TextEdit { range: Range { start: at, end: at }, new_text: format!("{indent}// {DIRECTIVE} {code}\n") }
}

/// For a line that is a suppression comment alone: where its codes end (before ` -- reason`,
/// or trailing space).
fn codes_end(line: &str) -> Option<usize> {
    let comment = line.trim_start().strip_prefix("//")?;
    let rest = comment.trim_start().strip_prefix(DIRECTIVE)?;
    if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
        return None;
    }
    let codes = rest.split_once("--").map_or(rest, |(codes, _)| codes);
    let rest_start = line.len() - rest.len();
    Some(rest_start + codes.trim_end().len())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn apply(source: &str, edit: &TextEdit) -> String {
        let start = text::offset(source, edit.range.start);
        let end = text::offset(source, edit.range.end);
        format!("{}{}{}", &source[..start], edit.new_text, &source[end..])
    }

    /// A finding with a fix of `start..end` of `a.ts` to `new_text`.
    fn fixed(start: u32, end: u32, new_text: &str, applicability: Applicability) -> Published {
        use crate::diagnostics::{Code, Edit, Fix, LineColumn};
        let at = LineColumn { line: 1, column: 1 };
        let edit = Edit { path: "a.ts".into(), start, end, start_at: at, end_at: at, new_text: new_text.into() };
        let uri: lsp_types::Uri = "file:///p/a.ts".parse().unwrap();
        let editor_edit = TextEdit { range: Range::default(), new_text: new_text.into() };
        Published {
            diagnostic: lsp_types::Diagnostic { message: new_text.into(), ..lsp_types::Diagnostic::default() },
            code: Code::UnknownEvent,
            severity: Severity::Error,
            fix: Some((
                Fix::new("fix", applicability, vec![edit]),
                vec![FileEdits { uri, version: None, edits: vec![editor_edit] }],
            )),
        }
    }

    /// Fix-all takes each safe fix whole, in order, and leaves out an unsafe one and one
    /// whose edits overlap a fix taken before it (by the rule `validate --fix` keeps).
    #[test]
    fn fix_all_takes_the_safe_fixes_that_overlap_none_before_them() {
        let published = [
            fixed(0, 4, "first", Applicability::Safe),
            fixed(2, 6, "overlaps the first", Applicability::Safe),
            fixed(4, 4, "inserted where the first ends", Applicability::Safe),
            fixed(10, 12, "unsafe", Applicability::Unsafe),
            fixed(20, 22, "apart", Applicability::Safe),
        ];
        let action = fix_all(&published, false).unwrap();
        let fixed: Vec<String> = action.diagnostics.unwrap().into_iter().map(|diagnostic| diagnostic.message).collect();
        assert_eq!(fixed, ["first", "apart"]);
        assert_eq!(action.title, "Fix all safe agent-sdk findings (2 fixes)");
        assert!(fix_all(&published[3..4], false).is_none(), "no safe fix, no action");
    }

    #[test]
    fn a_new_comment_goes_above_with_the_line_s_indentation() {
        let source = "a\n    \"turn.complete\"() {},\n";
        let edit = disable_for_line(source, 1, "hooks::unknown-event");
        assert_eq!(
            apply(source, &edit),
            "a\n    // agent-sdk-ignore hooks::unknown-event\n    \"turn.complete\"() {},\n"
        );
    }

    #[test]
    fn a_code_joins_the_comment_above_before_its_reason() {
        let source = "  // agent-sdk-ignore hooks::a -- why\n  x\n";
        let edit = disable_for_line(source, 1, "hooks::b");
        assert_eq!(apply(source, &edit), "  // agent-sdk-ignore hooks::a, hooks::b -- why\n  x\n");
        let source = "// agent-sdk-ignore\nx\n";
        assert_eq!(apply(source, &disable_for_line(source, 1, "hooks::b")), "// agent-sdk-ignore hooks::b\nx\n");
        // Another comment above: a line of its own.
        let source = "// agent-sdk-ignored\nx\n";
        assert_eq!(
            apply(source, &disable_for_line(source, 1, "hooks::b")),
            "// agent-sdk-ignored\n// agent-sdk-ignore hooks::b\nx\n"
        );
    }
}
