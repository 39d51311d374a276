//! Paths as URI references: SARIF artifact locations and the `file://` URLs Node imports;
//! and URLs quoted in a message without the user name and password they may carry.

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

/// What a URL's user name and password are shown as where the URL is quoted.
const HIDDEN: &str = "…";

/// Where the authority of the URL starting at `url` ends, as the WHATWG URL parser reads
/// it (at `/`, `\`, `?` or `#`), or at white space (in a message, the URL ends there).
fn authority_end(url: &str) -> usize {
    url.find(|c: char| matches!(c, '/' | '\\' | '?' | '#') || c.is_whitespace()).unwrap_or(url.len())
}

/// `text` (a message, an HTTP client's error that names the URL it was sending to) with the
/// user name and password of every URL in it (`scheme://user:password@host`) shown as `…`,
/// so that a password never reaches a terminal or a log. The one way a URL is quoted.
pub fn without_credentials(text: &str) -> String {
    let mut shown = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(scheme_end) = rest.find("://") {
        let (before, after) = rest.split_at(scheme_end + 3);
        shown.push_str(before);
        let end = authority_end(after);
        match after[..end].rfind('@') {
            Some(at) if at > 0 && &after[..at] != HIDDEN => {
                shown.push_str(HIDDEN);
                shown.push_str(&after[at..end]);
            }
            _ => shown.push_str(&after[..end]),
        }
        rest = &after[end..];
    }
    shown.push_str(rest);
    shown
}

/// [`without_credentials`], and the user name and password of each of `urls` hidden too
/// wherever they appear in `text`: a URL given without a scheme (`user:pw@host:4318`) is
/// quoted back as it was given, and nothing in it says it is a URL.
pub fn without_credentials_of(text: &str, urls: &[&str]) -> String {
    let mut shown = without_credentials(text);
    for url in urls {
        let authority = url.split_once("://").map_or(*url, |(_, rest)| rest);
        let authority = &authority[..authority_end(authority)];
        if let Some((credentials, _)) = authority.rsplit_once('@').filter(|(credentials, _)| !credentials.is_empty()) {
            shown = shown.replace(&format!("{credentials}@"), &format!("{HIDDEN}@"));
        }
    }
    shown
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

    #[test]
    fn the_credentials_of_every_url_in_a_message_are_hidden() {
        assert_eq!(without_credentials("https://user:secret@c.example/v1/traces"), "https://…@c.example/v1/traces");
        assert_eq!(
            without_credentials("http://c:1/v1/logs: error sending request for url (http://u:p%40ss@c:1/v1/logs)"),
            "http://c:1/v1/logs: error sending request for url (http://…@c:1/v1/logs)"
        );
        assert_eq!(
            without_credentials("invalid endpoint 'http://u:pw@bad host:4318/v1'"),
            "invalid endpoint 'http://…@bad host:4318/v1'"
        );
        assert_eq!(without_credentials("at (ftp://u:pw@h) and http://v@h2?x=1"), "at (ftp://…@h) and http://…@h2?x=1");
        // An `@` after the authority, or in a URL without one, is not a password's.
        assert_eq!(without_credentials("http://c:4318/v1/logs?a=b@c"), "http://c:4318/v1/logs?a=b@c");
        assert_eq!(without_credentials("mail me@example.com, http://h/@x"), "mail me@example.com, http://h/@x");
        assert_eq!(without_credentials("http://@h ://"), "http://@h ://");
        assert_eq!(without_credentials(&without_credentials("http://u:pw@h")), "http://…@h", "hidden once");
    }

    #[test]
    fn the_credentials_of_a_url_given_without_a_scheme_are_hidden_where_they_are_quoted() {
        let given = "user:s3cret@127.0.0.1:4318";
        assert_eq!(
            without_credentials_of(&format!("invalid endpoint '{given}/v1/traces': invalid format"), &[given]),
            "invalid endpoint '…@127.0.0.1:4318/v1/traces': invalid format"
        );
        assert_eq!(without_credentials_of("127.0.0.1:7311/a@b", &["127.0.0.1:7311/a@b"]), "127.0.0.1:7311/a@b");
        assert_eq!(without_credentials_of("http://u:pw@h/x", &["http://u:pw@h"]), "http://…@h/x");
    }
}
