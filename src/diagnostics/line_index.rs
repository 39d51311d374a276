//! Byte offsets to 1-based lines and character columns, for the spans oxc reports.

/// The start offset of every line of one source text.
#[derive(Debug, Clone)]
pub struct LineIndex {
    line_starts: Vec<u32>,
}

/// A 1-based line and column; columns count characters, not bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct LineColumn {
    pub line: u32,
    pub column: u32,
}

impl LineIndex {
    pub fn new(source: &str) -> Self {
        let mut line_starts = vec![0];
        line_starts.extend(source.bytes().enumerate().filter(|&(_, byte)| byte == b'\n').map(|(i, _)| i as u32 + 1));
        Self { line_starts }
    }

    /// The line and column of byte `offset` in `source` (the text this index was built
    /// from). An offset past the end, or inside a character, is clamped to a boundary.
    pub fn line_column(&self, source: &str, offset: u32) -> LineColumn {
        let mut offset = (offset as usize).min(source.len());
        while !source.is_char_boundary(offset) {
            offset -= 1;
        }
        let line = self.line_starts.partition_point(|&start| start as usize <= offset) - 1;
        let start = self.line_starts[line] as usize;
        let column = source[start..offset].chars().count();
        LineColumn { line: line as u32 + 1, column: column as u32 + 1 }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_characters_not_bytes() {
        let source = "ab\nçé x\n";
        let index = LineIndex::new(source);
        assert_eq!(index.line_column(source, 0), LineColumn { line: 1, column: 1 });
        assert_eq!(index.line_column(source, 3), LineColumn { line: 2, column: 1 });
        // "çé " is 5 bytes and 3 characters.
        assert_eq!(index.line_column(source, 8), LineColumn { line: 2, column: 4 });
        assert_eq!(index.line_column(source, 100), LineColumn { line: 3, column: 1 });
        // Inside "ç": clamped back to its first byte.
        assert_eq!(index.line_column(source, 4), LineColumn { line: 2, column: 1 });
    }
}
