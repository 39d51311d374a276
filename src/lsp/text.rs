//! Positions as LSP counts them: 0-based lines and UTF-16 code units, to and from the byte
//! offsets the check reports; and `file://` URIs to and from paths.

use std::path::{Path, PathBuf};
use std::str::FromStr;

use lsp_types::{Position, Range, Uri};

/// The LSP position of byte `offset` of `text` (clamped to the text and to a character
/// boundary).
pub fn position(text: &str, offset: usize) -> Position {
    let mut offset = offset.min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let line = before.matches('\n').count();
    let character = text[line_start..offset].encode_utf16().count();
    Position { line: line as u32, character: character as u32 }
}

/// The range of bytes `start..end` of `text`.
pub fn range(text: &str, start: usize, end: usize) -> Range {
    Range { start: position(text, start), end: position(text, end.max(start)) }
}

/// The byte offset of LSP `position` in `text`: a line past the end is the end, a character
/// past the line's end is the line's end (before its `\n`).
pub fn offset(text: &str, position: Position) -> usize {
    let mut line_start = 0;
    for _ in 0..position.line {
        match text[line_start..].find('\n') {
            Some(newline) => line_start += newline + 1,
            None => return text.len(),
        }
    }
    let line_end = text[line_start..].find('\n').map_or(text.len(), |newline| line_start + newline);
    let mut units = 0;
    for (at, character) in text[line_start..line_end].char_indices() {
        if units >= position.character as usize {
            return line_start + at;
        }
        units += character.len_utf16();
    }
    line_end
}

/// The start of the line `offset` is on, and that line's indentation (its leading spaces
/// and tabs).
pub fn line_start_and_indent(text: &str, offset: usize) -> (usize, &str) {
    let start = text[..offset.min(text.len())].rfind('\n').map_or(0, |newline| newline + 1);
    let rest = &text[start..];
    let indent = &rest[..rest.len() - rest.trim_start_matches([' ', '\t']).len()];
    (start, indent)
}

/// The path of a `file://` URI, percent-decoded; `None` for another scheme.
pub fn path_of(uri: &Uri) -> Option<PathBuf> {
    let rest = uri.as_str().strip_prefix("file://")?;
    // `file://host/path` is not a local file; `file:///path` is.
    let path = rest.strip_prefix("localhost").unwrap_or(rest);
    if !path.starts_with('/') {
        return None;
    }
    let decoded = percent_encoding::percent_decode_str(path).decode_utf8().ok()?;
    Some(PathBuf::from(decoded.into_owned()))
}

/// The `file://` URI of an absolute path.
pub fn uri_of(path: &Path) -> Uri {
    Uri::from_str(&crate::text::uri::file_url(path)).expect("a file URL is a URI")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn positions_count_utf16_units_after_non_ascii_text() {
        // "🎉" is 4 bytes and 2 UTF-16 units; "é" is 2 bytes and 1 unit.
        let text = "ab\n🎉é x\n";
        let x = text.find('x').unwrap();
        assert_eq!(position(text, x), Position { line: 1, character: 4 });
        assert_eq!(offset(text, Position { line: 1, character: 4 }), x);
        assert_eq!(position(text, 0), Position { line: 0, character: 0 });
        assert_eq!(offset(text, Position { line: 9, character: 0 }), text.len());
        assert_eq!(offset(text, Position { line: 0, character: 99 }), 2);
        // Inside the emoji: clamped back to its start.
        assert_eq!(position(text, 4), Position { line: 1, character: 0 });
    }

    #[test]
    fn uris_and_paths_round_trip_with_spaces_and_non_ascii() {
        let path = Path::new("/tmp/my agent/bot/hooks/é.ts");
        let uri = uri_of(path);
        assert_eq!(uri.as_str(), "file:///tmp/my%20agent/bot/hooks/%C3%A9.ts");
        assert_eq!(path_of(&uri).unwrap(), path);
        assert_eq!(path_of(&Uri::from_str("untitled:Untitled-1").unwrap()), None);
    }
}
