//! `--format github`: GitHub Actions workflow commands, one per diagnostic (and for `test
//! --reporter github`, one per failed test), escaped as ruff and oxlint do so that any path
//! or message survives the runner's parser: a line break in a file name can never start a
//! command of its own. Files are named from the current directory (the checkout root, in a
//! workflow), not from `--dir`; a project-wide finding has no file, so GitHub shows it on
//! the run's summary.

use std::fmt::Write;

use super::ProjectDir;
use crate::check::CheckedProject;
use crate::diagnostics::Severity;
use crate::text::untrusted::{escape, escape_keeping_lines};

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let mut out = String::new();
    for diagnostic in &checked.diagnostics {
        let command = match diagnostic.severity() {
            Severity::Error => "error",
            Severity::Warning => "warning",
            Severity::Advice => "notice",
        };
        let mut properties = Vec::new();
        if let Some(path) = &diagnostic.path {
            properties.push(format!("file={}", escape_property(&dir.file(path))));
        }
        if let Some(label) = &diagnostic.label {
            properties.push(format!("line={}", label.start_at.line));
            properties.push(format!("col={}", label.start_at.column));
            properties.push(format!("endLine={}", label.end_at.line));
            properties.push(format!("endColumn={}", label.end_at.column));
        }
        properties.push(format!("title={}", escape_property(diagnostic.code.as_str())));
        // The message is for people: control characters in it are shown, as in `pretty`.
        let message = format!("{} (help: {})", escape(&diagnostic.message), escape(&diagnostic.help));
        let _ = writeln!(out, "::{command} {}::{}", properties.join(","), escape_data(&message));
    }
    out
}

/// A failed test as `test --reporter github` reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FailedTest {
    /// Its file, relative to the project (absolute when outside it); `None` when Node did not say.
    pub path: Option<String>,
    /// Where it failed in that file, when Node said.
    pub line: Option<u32>,
    pub column: Option<u32>,
    /// Its name, after its suites' (`billing > refunds`).
    pub name: String,
    pub message: String,
}

/// `test`'s failed tests as error annotations titled by the test's name, as vitest's
/// `github-actions` reporter makes them, with files named as `validate`'s are.
pub fn render_failed_tests(failed: &[FailedTest], dir: &ProjectDir) -> String {
    let mut out = String::new();
    for test in failed {
        let mut properties = Vec::new();
        if let Some(path) = &test.path {
            let file = if std::path::Path::new(path).is_absolute() { path.clone() } else { dir.file(path) };
            properties.push(format!("file={}", escape_property(&file)));
        }
        if let Some(line) = test.line {
            properties.push(format!("line={line}"));
            if let Some(column) = test.column {
                properties.push(format!("col={column}"));
            }
        }
        properties.push(format!("title={}", escape_property(&test.name)));
        // An assertion's diff keeps its lines: GitHub shows them as lines.
        let message = escape_keeping_lines(&test.message);
        let _ = writeln!(out, "::error {}::{}", properties.join(","), escape_data(&message));
    }
    out
}

/// Escapes a command's message.
fn escape_data(text: &str) -> String {
    text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A")
}

/// Escapes a property value, where `:` and `,` are separators too. A line break stays
/// exact (percent-encoded, so the runner gives the file its real name back); any other
/// control character is shown escaped, as a person reading the log would need it.
fn escape_property(text: &str) -> String {
    escape_data(&escape_keeping_lines(text)).replace(':', "%3A").replace(',', "%2C")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn escapes_like_the_runner_expects() {
        assert_eq!(escape_data("50%\r\nnext"), "50%25%0D%0Anext");
        assert_eq!(escape_property("hooks::a,b"), "hooks%3A%3Aa%2Cb");
        assert_eq!(escape_property("a\n::error::b\u{1b}[31m"), "a%0A%3A%3Aerror%3A%3Ab\\u{1b}[31m");
    }

    #[test]
    fn a_failed_test_is_an_error_on_its_line_titled_by_its_name() {
        let dir = ProjectDir::for_files(std::path::Path::new("packages/agent"));
        let failed = FailedTest {
            path: Some("bot/hooks/usage.test.ts".to_owned()),
            line: Some(18),
            column: Some(10),
            name: "billing: 50% > refunds, twice".to_owned(),
            message: "Expected values to be equal:\n\n1 !== 2\r".to_owned(),
        };
        assert_eq!(
            render_failed_tests(std::slice::from_ref(&failed), &dir),
            "::error file=packages/agent/bot/hooks/usage.test.ts,line=18,col=10,title=billing%3A 50%25 > refunds%2C twice::Expected values to be equal:%0A%0A1 !== 2\\r\n"
        );
        let nowhere = FailedTest { path: None, line: None, column: None, ..failed };
        assert!(render_failed_tests(&[nowhere], &dir).starts_with("::error title=billing"));
    }
}
