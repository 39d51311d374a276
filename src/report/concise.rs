//! `--format concise`: one line per finding, `path:line:col: severity code message`, for
//! editors' problem matchers and grep. Paths are named from the current directory (as in
//! `github` and `sarif`); a finding without a span is at 1:1 of its file, a project-wide
//! one at `package.json` (or the source folder). The summary goes to stderr, so stdout is
//! nothing but findings. Control characters in paths and messages are shown escaped, so a
//! finding is always exactly one line.

use std::fmt::Write;

use super::ProjectDir;
use crate::check::CheckedProject;
use crate::untrusted::escape;

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let mut out = String::new();
    for diagnostic in &checked.diagnostics {
        let location = dir.locate(diagnostic);
        let _ = writeln!(
            out,
            "{}:{}:{}: {} {} {}",
            escape(&location.path),
            location.start.line,
            location.start.column,
            diagnostic.severity().as_str(),
            diagnostic.code.as_str(),
            escape(&diagnostic.message),
        );
    }
    out
}
