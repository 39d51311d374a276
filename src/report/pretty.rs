//! `--format pretty`: miette's graphical report with source snippets, then a summary line.
//! Colour only when the printer allows it; otherwise the same layout as plain text.
//! Names, messages and snippets come from files we did not write: their control characters
//! are made visible, so none reaches the terminal or starts a CI workflow command.

use std::collections::HashMap;

use miette::{GraphicalReportHandler, GraphicalTheme, LabeledSpan, MietteDiagnostic, NamedSource, Report};
use owo_colors::OwoColorize;
use rayon::prelude::*;

use super::Summary;
use crate::check::CheckedProject;
use crate::diagnostics::{Diagnostic, Severity};
use crate::printer::plural;
use crate::text::untrusted::escape;

/// Fixed so that output does not depend on the terminal it was captured from.
const WIDTH: usize = 100;

pub fn render(checked: &CheckedProject, color: bool) -> String {
    let mut out = render_diagnostics(&checked.diagnostics, &checked.sources, color);
    if !out.is_empty() {
        out.push('\n');
    }
    out.push_str(&summary_line(&Summary::of(checked), checked.count(Severity::Advice), color));
    out.push('\n');
    out
}

/// Findings from which on they are rendered on the analysis pool (each is laid out on its
/// own: a tree with thousands of findings spent as long on this as on checking them).
const RENDERED_TOGETHER: usize = 64;

/// Each diagnostic with its snippet (from `sources`, by path), without a summary line.
pub fn render_diagnostics(diagnostics: &[Diagnostic], sources: &HashMap<String, String>, color: bool) -> String {
    let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
    let handler = GraphicalReportHandler::new_themed(theme).with_width(WIDTH).with_links(false);
    let render = |diagnostic: &Diagnostic| {
        let source = diagnostic.path.as_ref().and_then(|path| sources.get(path).map(|text| (path, text)));
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut out, to_report(diagnostic, source).as_ref());
        out
    };
    let rendered: Vec<String> = match crate::parse::analysis_pool() {
        Some(pool) if diagnostics.len() >= RENDERED_TOGETHER => {
            pool.install(|| diagnostics.par_iter().map(render).collect())
        }
        _ => diagnostics.iter().map(render).collect(),
    };
    rendered.join("\n")
}

fn to_report(diagnostic: &Diagnostic, source: Option<(&String, &String)>) -> Report {
    let severity = match diagnostic.severity() {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Advice => miette::Severity::Advice,
    };
    let message = escape(&diagnostic.message);
    let message = match (&diagnostic.path, &diagnostic.label, source) {
        // With a snippet, miette shows the path itself.
        (Some(_), Some(_), Some(_)) => message.into_owned(),
        (Some(path), _, _) => format!("{}: {message}", escape(path)),
        (None, _, _) => message.into_owned(),
    };
    let mut miette = MietteDiagnostic::new(message)
        .with_code(diagnostic.code.as_str())
        .with_severity(severity)
        .with_help(escape(&diagnostic.help));
    if let (Some(label), Some(_)) = (&diagnostic.label, source) {
        let span = (label.start as usize, (label.end - label.start) as usize);
        let text = escape(&label.text).into_owned();
        miette = miette.with_label(LabeledSpan::new_primary_with_span(Some(text), span));
    }
    let report = Report::new(miette);
    match source {
        Some((path, text)) if diagnostic.label.is_some() => {
            report.with_source_code(NamedSource::new(escape(path), printable_snippet(text)).with_language("TypeScript"))
        }
        _ => report,
    }
}

/// The source as the snippet shows it: every control character but tabs and line breaks,
/// and every invisible format character (a bidi control that would reorder the line, a
/// zero-width character), becomes as many `?` as it has bytes, so the labels' byte offsets
/// still point where they did. A lone `\r` is one of them: the snippet's lines are the
/// checker's lines.
fn printable_snippet(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut chars = text.chars().peekable();
    while let Some(c) = chars.next() {
        let line_break = c == '\n' || (c == '\r' && chars.peek() == Some(&'\n'));
        if c == '\t' || line_break || !crate::text::untrusted::is_unprintable(c) {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('?', c.len_utf8()));
        }
    }
    out
}

/// `Found 2 errors and 1 warning in 14 files; 11 hooks would load.`
pub fn summary_line(summary: &Summary, advice: usize, color: bool) -> String {
    let mut findings = Vec::new();
    if summary.errors > 0 {
        findings.push(plural(summary.errors, "error"));
    }
    if summary.warnings > 0 {
        findings.push(plural(summary.warnings, "warning"));
    }
    if advice > 0 {
        findings.push(format!("{advice} advice"));
    }
    let found = match findings.as_slice() {
        [] => "no problems".to_owned(),
        [one] => one.clone(),
        [rest @ .., last] => format!("{} and {last}", rest.join(", ")),
    };
    let hooks = match summary.hooks {
        1 => "1 hook would load".to_owned(),
        count => format!("{count} hooks would load"),
    };
    let line = format!("Found {found} in {}; {hooks}.", plural(summary.files, "file"));
    if !color {
        line
    } else if summary.errors > 0 {
        line.red().bold().to_string()
    } else if summary.warnings > 0 {
        line.yellow().bold().to_string()
    } else {
        line.green().bold().to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Enough findings to be rendered on the pool come out as they would one by one, in
    /// their order.
    #[test]
    fn many_findings_render_as_each_alone_in_order() {
        use crate::diagnostics::Code;
        let diagnostics: Vec<Diagnostic> = (0..RENDERED_TOGETHER * 3)
            .map(|index| {
                Diagnostic::new(Code::NoDefaultExport, format!("finding {index}"), "help")
                    .with_path(format!("bot/hooks/{index}.ts"))
            })
            .collect();
        let sources = HashMap::new();
        let alone: Vec<String> = diagnostics
            .iter()
            .map(|diagnostic| render_diagnostics(std::slice::from_ref(diagnostic), &sources, false))
            .collect();
        assert_eq!(render_diagnostics(&diagnostics, &sources, false), alone.join("\n"));
    }

    #[test]
    fn a_snippet_keeps_every_byte_offset_and_no_control_character() {
        let source = "a\u{1b}[31m\r\nb\rc\u{9b}d\u{2028}e\tf\u{202e}g\u{200b}\n";
        let shown = printable_snippet(source);
        assert_eq!(shown, "a?[31m\r\nb?c??d???e\tf???g???\n");
        assert_eq!(shown.len(), source.len());
    }
}
