//! Helpers for the lints' unit tests: a module's findings of one code, where they are
//! labelled, and the module with their fixes applied.

use crate::check::analyze::analyze_source;
use crate::diagnostics::{Code, Diagnostic};

/// The findings with `code` in the hook module `source` (a `.ts` file).
pub fn lint(source: &str, code: Code) -> Vec<Diagnostic> {
    let analysis = analyze_source("bot/hooks/hook.ts", source);
    assert!(
        analysis.diagnostics.iter().all(|diagnostic| diagnostic.code != Code::ParseError),
        "{source}\n{:#?}",
        analysis.diagnostics
    );
    analysis.diagnostics.into_iter().filter(|diagnostic| diagnostic.code == code).collect()
}

/// The source text each finding with `code` is labelled at, in order.
pub fn labels(source: &str, code: Code) -> Vec<String> {
    let mut found = lint(source, code);
    found.sort_by_key(|diagnostic| diagnostic.label.as_ref().map(|label| label.start));
    found
        .iter()
        .map(|diagnostic| {
            let label = diagnostic.label.as_ref().expect("a labelled finding");
            source[label.start as usize..label.end as usize].to_owned()
        })
        .collect()
}

/// `source` with the edits of every finding's fix applied.
pub fn apply_fixes(source: &str, found: &[Diagnostic]) -> String {
    let mut edits: Vec<_> =
        found.iter().filter_map(|diagnostic| diagnostic.fix.as_ref()).flat_map(|fix| &fix.edits).collect();
    edits.sort_by_key(|edit| std::cmp::Reverse(edit.start));
    let mut fixed = source.to_owned();
    for edit in edits {
        fixed.replace_range(edit.start as usize..edit.end as usize, &edit.new_text);
    }
    fixed
}
