//! `--format github`: GitHub Actions workflow commands, one per diagnostic, escaped as
//! ruff and oxlint do so that any path or message survives the runner's parser: a line
//! break in a file name can never start a command of its own. Files are named from the
//! current directory (the checkout root, in a workflow), not from `--dir`; a project-wide
//! finding has no file, so GitHub shows it on the run's summary.

use std::fmt::Write;

use super::ProjectDir;
use crate::check::CheckedProject;
use crate::diagnostics::Severity;
use crate::untrusted::{escape, escape_keeping_lines};

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
}
