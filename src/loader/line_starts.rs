//! The compiled module's source map made to map whole lines, so that Node's test coverage
//! (`test --coverage`) names the right `.ts` lines: Node maps a range of the compiled code
//! by the mappings at its two ends, and a range that ends in a line's indentation or starts
//! in a leading comment, where the compiler maps nothing, lands on the wrong line. Each line
//! whose first mapping is past its indentation also maps its first column, to the same
//! place; and a first line that maps nothing (a leading comment) maps its first column to
//! the source's. Stack traces are unchanged: no code starts in an indentation or comment.

use oxc_sourcemap::{SourceMap, Token};

/// `map` with each line's first column mapped (see the module's doc).
pub fn with_line_starts(map: SourceMap<'_>) -> SourceMap<'_> {
    let mut parts = map.into_parts();
    let tokens = line_starts(&parts.tokens, !parts.sources.is_empty());
    parts.tokens = tokens.into_boxed_slice();
    // The chunks index the old tokens (they are for encoding in parallel).
    parts.token_chunks = None;
    SourceMap::from_parts(parts)
}

/// `tokens` (in generated order) with the tokens [`with_line_starts`] adds; `has_source`:
/// the map names a source, which the first line's added token points at.
fn line_starts(tokens: &[Token], has_source: bool) -> Vec<Token> {
    let mut out = Vec::with_capacity(tokens.len() + tokens.len() / 4 + 1);
    if has_source && tokens.first().is_none_or(|first| first.get_dst_line() > 0) {
        out.push(Token::new(0, 0, 0, 0, Some(0), None));
    }
    let mut last_line = None;
    for token in tokens {
        let line = token.get_dst_line();
        if last_line != Some(line) && token.get_dst_col() > 0 && token.get_source_id().is_some() {
            out.push(Token::new(line, 0, token.get_src_line(), token.get_src_col(), token.get_source_id(), None));
        }
        last_line = Some(line);
        out.push(*token);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn token(dst: (u32, u32), src: (u32, u32)) -> Token {
        Token::new(dst.0, dst.1, src.0, src.1, Some(0), None)
    }

    fn positions(tokens: &[Token]) -> Vec<((u32, u32), (u32, u32))> {
        tokens
            .iter()
            .map(|token| ((token.get_dst_line(), token.get_dst_col()), (token.get_src_line(), token.get_src_col())))
            .collect()
    }

    #[test]
    fn an_indented_line_maps_its_first_column_where_its_code_starts() {
        // `\t}` on line 2 (0-based 1) came from `  },` on source line 6.
        let tokens = [token((0, 0), (0, 0)), token((0, 7), (0, 9)), token((1, 1), (5, 2))];
        assert_eq!(
            positions(&line_starts(&tokens, true)),
            [((0, 0), (0, 0)), ((0, 7), (0, 9)), ((1, 0), (5, 2)), ((1, 1), (5, 2))]
        );
    }

    #[test]
    fn a_first_line_that_maps_nothing_maps_to_the_source_s_first() {
        let tokens = [token((2, 0), (2, 0))];
        assert_eq!(positions(&line_starts(&tokens, true)), [((0, 0), (0, 0)), ((2, 0), (2, 0))]);
        assert_eq!(positions(&line_starts(&[], true)), [((0, 0), (0, 0))]);
        assert!(line_starts(&[], false).is_empty());
    }

    #[test]
    fn the_encoded_map_keeps_every_mapping_it_had() {
        let map = SourceMap::new(
            None,
            vec![],
            None,
            vec!["/p/bot/hooks/usage.ts".into()],
            vec![None],
            vec![token((2, 0), (2, 0)), token((3, 1), (5, 2))].into_boxed_slice(),
            None,
        );
        let encoded = with_line_starts(map).to_json_string();
        let decoded = SourceMap::from_json_string(&encoded).unwrap();
        assert_eq!(
            positions(&decoded.get_tokens().collect::<Vec<_>>()),
            [((0, 0), (0, 0)), ((2, 0), (2, 0)), ((3, 0), (5, 2)), ((3, 1), (5, 2))]
        );
    }
}
