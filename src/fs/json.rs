//! JSON files as Node, npm and tsc read them (package.json, tsconfig.json): a UTF-8 byte
//! order mark at the start, which PowerShell and some editors write, is not part of the text.

/// `text` without a leading UTF-8 byte order mark.
pub fn without_bom(text: &str) -> &str {
    text.strip_prefix('\u{feff}').unwrap_or(text)
}

/// The JSON value of a file's `text`, a byte order mark at its start ignored.
pub fn parse(text: &str) -> serde_json::Result<serde_json::Value> {
    serde_json::from_str(without_bom(text))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_byte_order_mark_is_not_part_of_the_json() {
        assert_eq!(parse("\u{feff}{ \"type\": \"module\" }").unwrap()["type"], "module");
        assert_eq!(parse("{}").unwrap(), serde_json::json!({}));
        assert_eq!(without_bom("\u{feff}{}"), "{}");
        // Only at the start: anywhere else it is a character like any other.
        assert!(parse("{}\u{feff}").is_err());
    }
}
