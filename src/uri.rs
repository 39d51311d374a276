//! Paths as URI references: SARIF artifact locations and the `file://` URLs Node imports.

use std::path::Path;

/// `path` with every byte outside the unreserved set and `/` percent-encoded, so spaces
/// and non-ASCII names survive.
pub fn encode_path(path: &str) -> String {
    let mut uri = String::with_capacity(path.len());
    for byte in path.bytes() {
        if byte.is_ascii_alphanumeric() || b"-._~/".contains(&byte) {
            uri.push(byte as char);
        } else {
            uri.push_str(&format!("%{byte:02X}"));
        }
    }
    uri
}

/// The `file://` URL of an absolute path.
pub fn file_url(path: &Path) -> String {
    format!("file://{}", encode_path(&path.to_string_lossy()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn encodes_spaces_and_non_ascii() {
        assert_eq!(encode_path("bot/hooks/my hook.ts"), "bot/hooks/my%20hook.ts");
        assert_eq!(encode_path("bot/hooks/é.ts"), "bot/hooks/%C3%A9.ts");
        assert_eq!(file_url(Path::new("/a b/c.js")), "file:///a%20b/c.js");
    }
}
