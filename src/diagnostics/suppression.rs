//! `// agent-sdk-ignore <code>…` on its own line silences the warnings and advice with those
//! codes on the next line. Errors are never silenced (a hook with one does not load, and a
//! comment cannot change that), and a comment that silences nothing is a finding itself,
//! so suppressions cannot outlive what they were written for. Only a comment the parser
//! read is one: a line of a template literal or a block comment that looks like one is not.

use super::{Code, Diagnostic, Edit, Fix, Severity, SourceFile};

/// The word that starts a suppression comment.
pub const DIRECTIVE: &str = "agent-sdk-ignore";

/// One `// agent-sdk-ignore` comment.
#[derive(Debug, PartialEq, Eq)]
struct Suppression {
    /// The 1-based line of the comment; it covers the line after.
    line: u32,
    /// Byte offsets of the directive word, for a comment that names no code.
    directive: (u32, u32),
    /// Each code named, with its byte offsets.
    codes: Vec<(String, (u32, u32))>,
}

/// Applies the suppressions in the file at `path` (whose text is `text`, and whose `//`
/// comments the parser found at `line_comments`) to `diagnostics`: removes the warnings and
/// advice they silence and adds a finding for each suppression that names an error, a code
/// no finding on its next line has, or no known code.
pub fn apply(diagnostics: &mut Vec<Diagnostic>, path: &str, text: &str, line_comments: &[(u32, u32)]) {
    let suppressions = find(text, line_comments);
    if suppressions.is_empty() {
        return;
    }
    let file = SourceFile::new(path, text);
    let mut silenced = vec![false; diagnostics.len()];
    let mut findings = Vec::new();
    for suppression in &suppressions {
        if suppression.codes.is_empty() {
            findings.push(names_no_code(&file, suppression));
        }
        for (index, (name, span)) in suppression.codes.iter().enumerate() {
            let Some(code) = Code::from_name(name) else {
                findings.push(unknown_code(&file, *span, name));
                continue;
            };
            let covered: Vec<usize> = (0..diagnostics.len())
                .filter(|&index| {
                    let diagnostic = &diagnostics[index];
                    diagnostic.code == code
                        && diagnostic.path.as_deref() == Some(path)
                        && diagnostic.label.as_ref().is_some_and(|label| label.start_at.line == suppression.line + 1)
                })
                .collect();
            if covered.is_empty() {
                findings.push(unused(&file, suppression, index, code));
            } else if code.severity() == Severity::Error && code.stops_loading() {
                findings.push(cannot_silence_error(&file, *span, code));
            } else {
                covered.into_iter().for_each(|index| silenced[index] = true);
            }
        }
    }
    let mut index = 0;
    diagnostics.retain(|_| {
        index += 1;
        !silenced[index - 1]
    });
    diagnostics.extend(findings);
}

/// Every suppression comment in `text`, of its `//` comments at `line_comments`: one alone on
/// its line whose text starts with [`DIRECTIVE`]. Codes are separated by commas or spaces;
/// `--` ends them, so a reason may follow (`// agent-sdk-ignore hooks::dynamic-events --
/// built at run time`).
fn find(text: &str, line_comments: &[(u32, u32)]) -> Vec<Suppression> {
    let mut found = Vec::new();
    for &(start, end) in line_comments {
        let (start, end) = (start as usize, end as usize);
        let Some(comment) = text.get(start..end).and_then(|comment| comment.strip_prefix("//")) else { continue };
        let line_start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
        if !text[line_start..start].trim().is_empty() {
            continue; // after code on its line
        }
        let Some(rest) = comment.trim_start().strip_prefix(DIRECTIVE) else { continue };
        if !(rest.is_empty() || rest.starts_with(char::is_whitespace)) {
            continue; // `agent-sdk-ignored`, say: another word
        }
        let directive_start = end - comment.trim_start().len();
        let codes_start = directive_start + DIRECTIVE.len();
        let number = text[..start].matches('\n').count();
        let codes = rest.split_once("--").map_or(rest, |(codes, _reason)| codes);
        let names = names_in(codes)
            .map(|(at, name)| {
                let at = (codes_start + at) as u32;
                (name.to_owned(), (at, at + name.len() as u32))
            })
            .collect();
        found.push(Suppression {
            line: number as u32 + 1,
            directive: (directive_start as u32, codes_start as u32),
            codes: names,
        });
    }
    found
}

/// Each name in `codes` (separated by commas or any whitespace, a no-break space too) with
/// its byte offset in `codes`: a separator may be more than one byte.
fn names_in(codes: &str) -> impl Iterator<Item = (usize, &str)> {
    let is_separator = |c: char| c == ',' || c.is_whitespace();
    let mut rest = codes.char_indices().peekable();
    std::iter::from_fn(move || {
        while rest.next_if(|&(_, c)| is_separator(c)).is_some() {}
        let (start, _) = rest.next()?;
        while rest.next_if(|&(_, c)| !is_separator(c)).is_some() {}
        let end = rest.peek().map_or(codes.len(), |&(at, _)| at);
        Some((start, &codes[start..end]))
    })
}

fn cannot_silence_error(file: &SourceFile, span: (u32, u32), code: Code) -> Diagnostic {
    file.diagnostic(
        Code::CannotSilenceError,
        span,
        "an error",
        format!("`{}` is an error on the next line, and errors cannot be silenced", code.as_str()),
        "fix the error, then take its code out of this comment",
    )
}

fn unused(file: &SourceFile, suppression: &Suppression, index: usize, code: Code) -> Diagnostic {
    let span = suppression.codes[index].1;
    file.diagnostic(
        Code::UnusedSuppression,
        span,
        "silences nothing",
        format!("no `{}` finding on the next line to silence", code.as_str()),
        "remove it from the comment; a suppression covers only the line just after it",
    )
    .with_fix(Fix::safe(
        format!("Remove `{}` from the comment", code.as_str()),
        vec![remove_code(file, suppression, index)],
    ))
}

/// Takes code `index` out of `suppression` with the separator beside it; the whole comment
/// line when it is the only code.
fn remove_code(file: &SourceFile, suppression: &Suppression, index: usize) -> Edit {
    let codes = &suppression.codes;
    let (start, end) = codes[index].1;
    match (codes.get(index + 1), index.checked_sub(1).map(|before| &codes[before])) {
        (Some((_, next)), _) => file.edit(start, next.0, ""),
        (None, Some((_, before))) => file.edit(before.1, end, ""),
        (None, None) => remove_line(file, suppression),
    }
}

/// Removes the line of `suppression`'s comment, its line break included.
fn remove_line(file: &SourceFile, suppression: &Suppression) -> Edit {
    let at = suppression.directive.0 as usize;
    let start = file.text[..at].rfind('\n').map_or(0, |newline| newline + 1);
    let end = file.text[at..].find('\n').map_or(file.text.len(), |newline| at + newline + 1);
    file.edit(start as u32, end as u32, "")
}

fn unknown_code(file: &SourceFile, span: (u32, u32), name: &str) -> Diagnostic {
    let nearest = Code::ALL
        .iter()
        .map(|code| (strsim::jaro_winkler(name, code.as_str()), code.as_str()))
        .filter(|(similarity, _)| *similarity > 0.85)
        .max_by(|a, b| a.0.total_cmp(&b.0));
    let help = match nearest {
        Some((_, code)) => format!("did you mean `{code}`?"),
        None => "name codes as `validate` prints them, e.g. `hooks::unknown-event`".to_owned(),
    };
    let diagnostic = file.diagnostic(
        Code::UnknownSuppressedCode,
        span,
        "not a code",
        format!("`{name}` is not a diagnostic code"),
        help,
    );
    match nearest {
        Some((_, code)) => {
            diagnostic.with_fix(Fix::safe(format!("Replace with `{code}`"), vec![file.edit(span.0, span.1, code)]))
        }
        None => diagnostic,
    }
}

fn names_no_code(file: &SourceFile, suppression: &Suppression) -> Diagnostic {
    file.diagnostic(
        Code::UnknownSuppressedCode,
        suppression.directive,
        "names no code",
        format!("`{DIRECTIVE}` names no code, so it silences nothing"),
        "name the codes to silence, e.g. `// agent-sdk-ignore hooks::unknown-event`: nothing is silenced wholesale",
    )
    .with_fix(Fix::safe("Remove the comment", vec![remove_line(file, suppression)]))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `find` on `text` with the comments the parser reads in it.
    fn find_in(text: &str) -> Vec<Suppression> {
        find(text, &crate::parse::line_comments("hook.ts", text))
    }

    #[test]
    fn finds_codes_separated_by_commas_and_spaces_up_to_a_reason() {
        let text =
            "a\n  // agent-sdk-ignore hooks::a, hooks::b  c -- why\n// agent-sdk-ignored x\n//agent-sdk-ignore\n";
        let found = find_in(text);
        assert_eq!(found.len(), 2);
        assert_eq!(found[0].line, 2);
        let names: Vec<&str> = found[0].codes.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["hooks::a", "hooks::b", "c"]);
        for (name, (start, end)) in &found[0].codes {
            assert_eq!(&text[*start as usize..*end as usize], name);
        }
        let (start, end) = found[0].directive;
        assert_eq!(&text[start as usize..end as usize], DIRECTIVE);
        assert_eq!(found[1].line, 4);
        assert!(found[1].codes.is_empty());
    }

    #[test]
    fn codes_after_a_no_break_space_are_found_at_their_bytes() {
        let text = "// agent-sdk-ignore hooks::a,\u{a0}hooks::b\u{2003}\u{a0}hooks::c\nx\n";
        let found = find_in(text);
        let names: Vec<&str> = found[0].codes.iter().map(|(name, _)| name.as_str()).collect();
        assert_eq!(names, ["hooks::a", "hooks::b", "hooks::c"]);
        for (name, (start, end)) in &found[0].codes {
            assert_eq!(&text[*start as usize..*end as usize], name);
        }
    }

    #[test]
    fn a_comment_after_code_is_not_a_suppression() {
        assert!(find_in("let a = 1; // agent-sdk-ignore hooks::unknown-event\n").is_empty());
    }

    #[test]
    fn text_that_only_looks_like_a_comment_is_not_a_suppression() {
        let text = "const a = `\n// agent-sdk-ignore hooks::unknown-event\n`;\n/*\n// agent-sdk-ignore hooks::unknown-event\n*/\nconst b = \"\\\n// agent-sdk-ignore hooks::unknown-event\";\n  // agent-sdk-ignore hooks::x\n";
        let found = find_in(text);
        assert_eq!(found.len(), 1, "{found:?}");
        assert_eq!(found[0].line, 9);
    }
}
