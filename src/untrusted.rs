//! Text we did not write (file names, hook output, error messages from hooks) made safe to
//! print for a person: control characters are shown escaped, so a newline cannot forge a
//! log line or a CI workflow command and an escape sequence cannot reach the terminal.

use std::borrow::Cow;
use std::fmt::Write;

/// `text` with every control character (C0, DEL, C1) and the Unicode line and paragraph
/// separators written as a visible escape: `\n`, `\r`, `\t`, `\\u{1b}` and so on. A
/// backslash is left as it is: the escape is for the reader's eyes, not to be undone.
pub fn escape(text: &str) -> Cow<'_, str> {
    if !text.chars().any(needs_escape) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        push_escaped(&mut out, c);
    }
    Cow::Owned(out)
}

/// Like [`escape`], but keeps line breaks (`\n`) as they are: for multi-line text such as a
/// stack trace that is printed as its own lines, each prefixed by our own label.
pub fn escape_keeping_lines(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && needs_escape(c)) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        if c == '\n' {
            out.push(c);
        } else {
            push_escaped(&mut out, c);
        }
    }
    Cow::Owned(out)
}

/// `text` as log lines: each of its lines after `prefix` (our own time, level, labels),
/// lines after the first marked `| `, each escaped. Text we did not write can neither forge
/// a line of the log nor reach the terminal as an escape sequence.
pub fn prefixed_lines(prefix: &str, text: &str) -> String {
    let mut out = String::with_capacity(prefix.len() + text.len() + 8);
    for (index, line) in text.split('\n').enumerate() {
        let mark = if index == 0 { "" } else { "| " };
        out.push_str(prefix);
        out.push(' ');
        out.push_str(mark);
        out.push_str(&escape(line));
        out.push('\n');
    }
    out
}

fn needs_escape(c: char) -> bool {
    c.is_control() || c == '\u{2028}' || c == '\u{2029}'
}

fn push_escaped(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        c if needs_escape(c) => {
            // Writing into a String cannot fail.
            let _ = write!(out, "\\u{{{:x}}}", u32::from(c));
        }
        c => out.push(c),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_is_borrowed() {
        assert!(matches!(escape("bot/hooks/usage.ts"), Cow::Borrowed(_)));
        assert!(matches!(escape("naïve 名前.ts"), Cow::Borrowed(_)));
    }

    #[test]
    fn control_characters_are_visible() {
        assert_eq!(escape("a\nb"), "a\\nb");
        assert_eq!(escape("x\r\t"), "x\\r\\t");
        assert_eq!(escape("\u{1b}]8;;http://x\u{7}"), "\\u{1b}]8;;http://x\\u{7}");
        assert_eq!(escape("\u{9b}31m\u{7f}"), "\\u{9b}31m\\u{7f}");
        assert_eq!(escape("a\u{2028}b"), "a\\u{2028}b");
    }

    #[test]
    fn every_line_gets_the_prefix_and_continuations_are_marked() {
        assert_eq!(prefixed_lines("T INFO ", "one"), "T INFO  one\n");
        assert_eq!(prefixed_lines("T", "a\nforged\u{1b}[2J\r"), "T a\nT | forged\\u{1b}[2J\\r\n");
    }

    #[test]
    fn lines_can_be_kept() {
        assert_eq!(escape_keeping_lines("at a\n  at b\u{1b}[2J\r"), "at a\n  at b\\u{1b}[2J\\r");
    }
}
