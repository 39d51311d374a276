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
    let layout = Layout::new(color);
    // Findings of one kind share their help: each distinct help is wrapped once.
    let mut helps: HashMap<&str, Option<String>> = HashMap::new();
    for diagnostic in diagnostics {
        helps
            .entry(diagnostic.help.as_str())
            .or_insert_with(|| wrapped_beforehand(&escape(&diagnostic.help), HELP_INDENTS.0, HELP_INDENTS.1));
    }
    let render = |diagnostic: &Diagnostic| {
        let source = diagnostic.path.as_ref().and_then(|path| sources.get(path).map(|text| (path, text)));
        let message = header_message(diagnostic, source);
        let wrapped = helps.get(diagnostic.help.as_str()).and_then(Option::as_deref).and_then(|help| {
            let (first, rest) = layout.message_indents(diagnostic.severity());
            Some((help, wrapped_beforehand(&message, first, rest)?))
        });
        let (handler, message, help) = match wrapped {
            Some((help, message)) => (&layout.wrapped, message, help.to_owned()),
            None => (&layout.wrapping, message, escape(&diagnostic.help).into_owned()),
        };
        let mut out = String::new();
        // Writing into a String cannot fail.
        let _ = handler.render_report(&mut out, to_report(diagnostic, message, help, source).as_ref());
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

/// miette's width, less the two columns it keeps free.
const TEXT_WIDTH: usize = WIDTH - 2;

/// The help's indents as miette writes them: `  help: ` and as many spaces after.
const HELP_INDENTS: (&str, &str) = ("  help: ", "        ");

/// How a finding is laid out: miette's report, with the message and the help wrapped
/// beforehand where that gives the same bytes (`wrapped`, which only indents each line), so a
/// help shared by thousands of findings is wrapped once; `wrapping` wraps them itself, for a
/// text it would lay out otherwise.
struct Layout {
    wrapped: GraphicalReportHandler,
    wrapping: GraphicalReportHandler,
    /// The message's indents for an error, a warning and an advice, made once.
    indents: [(String, String); 3],
}

impl Layout {
    fn new(color: bool) -> Layout {
        let theme = if color { GraphicalTheme::unicode() } else { GraphicalTheme::unicode_nocolor() };
        // Uncoloured (only their width counts in wrapping): `  × ` on the first line, `  │ `
        // on the next.
        let characters = &theme.characters;
        let indents_after = |icon: &str| (format!("  {icon} "), format!("  {} ", characters.vbar));
        let indents =
            [indents_after(&characters.error), indents_after(&characters.warning), indents_after(&characters.advice)];
        let wrapping = GraphicalReportHandler::new_themed(theme.clone()).with_width(WIDTH).with_links(false);
        let wrapped = wrapping.clone().with_wrap_lines(false);
        Layout { wrapped, wrapping, indents }
    }

    /// The message's indents for a finding of `severity`: its first line's, the next ones'.
    fn message_indents(&self, severity: Severity) -> (&str, &str) {
        let (first, rest) = &self.indents[match severity {
            Severity::Error => 0,
            Severity::Warning => 1,
            Severity::Advice => 2,
        }];
        (first, rest)
    }
}

/// `text` wrapped as miette wraps it between the indents `first` and `rest`, without them:
/// [`Layout::wrapped`] puts them back line by line. `None` where that would not give miette's
/// bytes: a blank line, which miette's wrapping leaves bare and its indenting does not.
fn wrapped_beforehand(text: &str, first: &str, rest: &str) -> Option<String> {
    let options = textwrap::Options::new(TEXT_WIDTH).initial_indent(first).subsequent_indent(rest);
    let mut out = String::with_capacity(text.len() + 16);
    for (index, line) in textwrap::wrap(text, options).iter().enumerate() {
        let line = line.strip_prefix(if index == 0 { first } else { rest })?;
        if line.trim().is_empty() {
            return None;
        }
        if index > 0 {
            out.push('\n');
        }
        out.push_str(line);
    }
    Some(out)
}

/// The message as the report's first line says it: with the path in front when no snippet
/// shows it.
fn header_message(diagnostic: &Diagnostic, source: Option<(&String, &String)>) -> String {
    let message = escape(&diagnostic.message);
    match (&diagnostic.path, &diagnostic.label, source) {
        // With a snippet, miette shows the path itself.
        (Some(_), Some(_), Some(_)) => message.into_owned(),
        (Some(path), _, _) => format!("{}: {message}", escape(path)),
        (None, _, _) => message.into_owned(),
    }
}

fn to_report(diagnostic: &Diagnostic, message: String, help: String, source: Option<(&String, &String)>) -> Report {
    let severity = match diagnostic.severity() {
        Severity::Error => miette::Severity::Error,
        Severity::Warning => miette::Severity::Warning,
        Severity::Advice => miette::Severity::Advice,
    };
    let mut miette =
        MietteDiagnostic::new(message).with_code(diagnostic.code.as_str()).with_severity(severity).with_help(help);
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

    /// A message and a help wrapped beforehand come out as miette wraps them itself, byte
    /// for byte, in colour and not, for each severity; texts it would lay out otherwise (a
    /// blank line) are left to it.
    #[test]
    fn wrapped_beforehand_reads_as_miette_wraps() {
        use crate::diagnostics::{Code, Label, LineColumn};
        let long_path = format!("bot/hooks/{}/route.ts", ["[lang]", "llms.mdx", "[[...slug]]"].repeat(6).join("/"));
        let texts = [
            "short".to_owned(),
            "export the hook as the module's default: `export default defineHook({ events: { \"turn.completed\"(event, ctx) { … } } })`; move shared helpers out of `hooks/`".to_owned(),
            format!("{long_path}: this module has no default export, so it is not a hook"),
            format!("one word longer than a line: {}", "x".repeat(150)),
            "wide characters 漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字漢字 and emoji 🎉🎉🎉".to_owned(),
            "a first paragraph\n\na second one, after a blank line".to_owned(),
            "two lines\nof one text, the first ending in spaces   \nand a tab\there".to_owned(),
            "  leading spaces and trailing ones  ".to_owned(),
            "a-hyphenated-word-that-goes-on-and-on and/a/slashed/path/that/goes/on/and/on/until/the/line/is/too/long/to/hold".to_owned(),
            String::new(),
        ];
        let source = "export const x = 1;\n".to_owned();
        let sources = HashMap::from([("bot/hooks/x.ts".to_owned(), source.clone())]);
        let at = |offset: u32| LineColumn { line: 1, column: offset + 1 };
        for color in [false, true] {
            let layout = Layout::new(color);
            for severity in [Severity::Error, Severity::Warning, Severity::Advice] {
                for message in &texts {
                    for help in &texts {
                        for labelled in [false, true] {
                            let mut diagnostic = Diagnostic::new(Code::NoDefaultExport, message.clone(), help.clone());
                            diagnostic.severity = severity;
                            diagnostic = if labelled {
                                diagnostic.with_path("bot/hooks/x.ts").with_label(Label {
                                    start: 7,
                                    end: 12,
                                    text: message.clone(),
                                    start_at: at(7),
                                    end_at: at(12),
                                })
                            } else {
                                diagnostic.with_path(long_path.clone())
                            };
                            let source = sources.get_key_value("bot/hooks/x.ts").filter(|_| labelled);
                            let report = to_report(
                                &diagnostic,
                                header_message(&diagnostic, source),
                                escape(&diagnostic.help).into_owned(),
                                source,
                            );
                            let mut by_miette = String::new();
                            layout.wrapping.render_report(&mut by_miette, report.as_ref()).unwrap();
                            let ours = render_diagnostics(std::slice::from_ref(&diagnostic), &sources, color);
                            assert_eq!(ours, by_miette, "message {message:?}, help {help:?}, colour {color}");
                        }
                    }
                }
            }
        }
    }

    #[test]
    fn a_snippet_keeps_every_byte_offset_and_no_control_character() {
        let source = "a\u{1b}[31m\r\nb\rc\u{9b}d\u{2028}e\tf\u{202e}g\u{200b}\n";
        let shown = printable_snippet(source);
        assert_eq!(shown, "a?[31m\r\nb?c??d???e\tf???g???\n");
        assert_eq!(shown.len(), source.len());
    }
}
