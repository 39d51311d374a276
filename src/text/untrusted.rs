//! Text we did not write (file names, hook output, error messages from hooks) made safe to
//! print for a person: control characters are shown escaped, so a newline cannot forge a
//! log line or a CI workflow command and an escape sequence cannot reach the terminal; and
//! so are the invisible format characters (bidi controls, zero-width characters), which the
//! Trojan Source advisories (CVE-2021-42574) ask tools to show, since they make a name read
//! differently from what it is.

use std::borrow::Cow;
use std::fmt::Write;

use unicode_general_category::{GeneralCategory, get_general_category};

/// `text` with every control character (C0, DEL, C1), the Unicode line and paragraph
/// separators and every invisible format character (general category Cf: the bidi
/// controls U+202A–U+202E and U+2066–U+2069, the marks U+200E, U+200F and U+061C, the
/// zero-width U+200B–U+200D, U+2060 and U+FEFF, and the like) written as a visible escape:
/// `\n`, `\r`, `\t`, `\\u{1b}`, `\\u{202e}` and so on. A zero-width joiner between two
/// emoji is kept (it makes one emoji of them, as in 👩‍💻). A backslash is left as it is:
/// the escape is for the reader's eyes, not to be undone.
pub fn escape(text: &str) -> Cow<'_, str> {
    escape_but(text, |_| false)
}

/// A path as [`escape`] shows text, with each byte that is not UTF-8 shown as `\xff`
/// (where `Path::display` would show a `�` that names no byte).
pub fn escape_path(path: &std::path::Path) -> String {
    let mut out = String::new();
    // On Unix the path's own bytes; on Windows WTF-8, whose bytes that are not UTF-8 are
    // those of an unpaired surrogate.
    for chunk in path.as_os_str().as_encoded_bytes().utf8_chunks() {
        out.push_str(&escape(chunk.valid()));
        for byte in chunk.invalid() {
            // Writing into a String cannot fail.
            let _ = write!(out, "\\x{byte:02x}");
        }
    }
    out
}

/// Like [`escape`], but keeps line breaks (`\n`) as they are: for multi-line text such as a
/// stack trace that is printed as its own lines, each prefixed by our own label.
pub fn escape_keeping_lines(text: &str) -> Cow<'_, str> {
    escape_but(text, |c| c == '\n')
}

/// A model's reply as a terminal should show it: every control character but line breaks
/// and tabs escaped as [`escape`] does, so no escape sequence (a title, a clipboard write,
/// a cleared screen) and no carriage return (a line written over) reaches the terminal.
/// Format characters are kept: in prose they are part of the text (a Persian word's
/// zero-width non-joiner, an emoji's joiner, a Hebrew sentence's marks).
pub fn escape_reply(text: &str) -> Cow<'_, str> {
    if !text.chars().any(|c| c != '\n' && c != '\t' && c.is_control()) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for c in text.chars() {
        match c {
            '\n' | '\t' => out.push(c),
            c if c.is_control() => push_escape(&mut out, c),
            c => out.push(c),
        }
    }
    Cow::Owned(out)
}

/// [`escape`], keeping the characters `kept` says to keep.
fn escape_but(text: &str, kept: impl Fn(char) -> bool) -> Cow<'_, str> {
    let escaped = |(before, c, after)| !kept(c) && needs_escape(before, c, after);
    if !with_neighbours(text).any(escaped) {
        return Cow::Borrowed(text);
    }
    let mut out = String::with_capacity(text.len() + 8);
    for (before, c, after) in with_neighbours(text) {
        if !kept(c) && needs_escape(before, c, after) {
            push_escape(&mut out, c);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// Each character of `text` with the one before and the one after it.
fn with_neighbours(text: &str) -> impl Iterator<Item = (Option<char>, char, Option<char>)> + '_ {
    let mut before = None;
    let mut chars = text.chars().peekable();
    std::iter::from_fn(move || {
        let c = chars.next()?;
        let item = (before, c, chars.peek().copied());
        before = Some(c);
        Some(item)
    })
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

/// Whether `c` (between `before` and `after`) is shown escaped: a control character, a line
/// or paragraph separator, or an invisible format character, unless it is the joiner of
/// two emoji.
fn needs_escape(before: Option<char>, c: char, after: Option<char>) -> bool {
    if c == ZERO_WIDTH_JOINER {
        return !(before.is_some_and(ends_an_emoji) && after.is_some_and(is_pictographic));
    }
    is_unprintable(c)
}

/// Whether `c` is a control character, a line or paragraph separator, or an invisible
/// format character (bidi controls, zero-width characters): what [`escape`] shows escaped
/// wherever it is, and a source snippet as `?`.
pub fn is_unprintable(c: char) -> bool {
    // Most text is ASCII, where the table lookup can be skipped.
    if c.is_ascii() {
        return c.is_ascii_control();
    }
    c.is_control() || matches!(c, '\u{2028}' | '\u{2029}') || get_general_category(c) == GeneralCategory::Format
}

const ZERO_WIDTH_JOINER: char = '\u{200d}';

/// The pictographic blocks emoji come from (Miscellaneous Symbols and Dingbats, and the
/// supplementary planes' emoji blocks): close enough to tell an emoji sequence's joiner from
/// one hidden in a name.
fn is_pictographic(c: char) -> bool {
    matches!(c, '\u{2600}'..='\u{27bf}' | '\u{1f000}'..='\u{1faff}')
}

/// What an emoji ends with before a joiner: the emoji, or its variation selector.
fn ends_an_emoji(c: char) -> bool {
    is_pictographic(c) || c == '\u{fe0f}'
}

fn push_escape(out: &mut String, c: char) {
    match c {
        '\n' => out.push_str("\\n"),
        '\r' => out.push_str("\\r"),
        '\t' => out.push_str("\\t"),
        // Writing into a String cannot fail.
        c => drop(write!(out, "\\u{{{:x}}}", u32::from(c))),
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

    #[cfg(unix)]
    #[test]
    fn a_path_shows_its_bytes_that_are_not_utf8() {
        use std::os::unix::ffi::OsStrExt;
        let path = std::path::Path::new(std::ffi::OsStr::from_bytes(b"/tmp/caf\xe9\n/x\xff\xfe"));
        assert_eq!(escape_path(path), "/tmp/caf\\xe9\\n/x\\xff\\xfe");
    }

    #[test]
    fn bidi_controls_and_zero_width_characters_are_visible() {
        assert_eq!(escape("evil\u{202e}st.ts"), "evil\\u{202e}st.ts");
        assert_eq!(escape("\u{2066}a\u{2069}\u{200f}\u{61c}"), "\\u{2066}a\\u{2069}\\u{200f}\\u{61c}");
        assert_eq!(escape("us\u{200b}age\u{200d}.ts\u{feff}\u{2060}"), "us\\u{200b}age\\u{200d}.ts\\u{feff}\\u{2060}");
        assert_eq!(escape_keeping_lines("a\u{202d}\nb"), "a\\u{202d}\nb");
    }

    #[test]
    fn an_emoji_s_joiner_is_kept() {
        assert!(matches!(escape("👩\u{200d}💻 🏳\u{fe0f}\u{200d}🌈"), Cow::Borrowed(_)));
        assert_eq!(escape("a\u{200d}💻"), "a\\u{200d}💻");
        assert_eq!(escape("👩\u{200d}"), "👩\\u{200d}");
    }

    #[test]
    fn a_reply_keeps_lines_tabs_and_format_characters_and_loses_escape_sequences() {
        assert!(matches!(escape_reply("a\n\tb 👩\u{200d}💻 می\u{200c}خواهم"), Cow::Borrowed(_)));
        assert_eq!(
            escape_reply("\u{1b}]0;owned\u{7}\u{1b}[2J\u{1b}]52;c;aGk=\u{7}\rINFO forged\n"),
            "\\u{1b}]0;owned\\u{7}\\u{1b}[2J\\u{1b}]52;c;aGk=\\u{7}\\rINFO forged\n"
        );
        assert_eq!(escape_reply("\u{9b}31m"), "\\u{9b}31m");
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
