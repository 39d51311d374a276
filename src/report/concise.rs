//! `--format concise`: one line per finding, `path:line:col: severity code message`, for
//! editors' problem matchers and grep. Paths are named from the current directory (as in
//! `github` and `sarif`); a finding without a span is at 1:1 of its file, a project-wide
//! one at `package.json` (or the source folder). The summary goes to stderr, so stdout is
//! nothing but findings. Control characters in paths and messages are shown escaped, so a
//! finding is always exactly one line.

use super::ProjectDir;
use crate::check::CheckedProject;
use crate::diagnostics::Diagnostic;
use crate::untrusted::escape;

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let mut out = String::new();
    for diagnostic in &checked.diagnostics {
        out.push_str(&line(diagnostic, dir));
        out.push('\n');
    }
    out
}

/// One finding as one line (no line break): what `dev` logs for each error of a broken edit, too.
pub fn line(diagnostic: &Diagnostic, dir: &ProjectDir) -> String {
    let location = dir.locate(diagnostic);
    format!(
        "{}:{}:{}: {} {} {}",
        escape(&location.path),
        location.start.line,
        location.start.column,
        diagnostic.severity().as_str(),
        diagnostic.code.as_str(),
        escape(&diagnostic.message),
    )
}
