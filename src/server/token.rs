//! The dev server's bearer token: made from the OS's randomness, kept in `dev.json` (see
//! [`crate::state::dev_file`]) so it survives restarts (and a `logs -f` survives one) until
//! rotated, and compared in constant time.

use std::io::Read;

use crate::state::StateRoot;
use crate::state::dev_file::DevFile;

/// The token to use: the one already in `dev.json`, unless rotating or there is none.
pub fn load_or_create_token(root: &StateRoot, rotate: bool) -> anyhow::Result<String> {
    if !rotate
        && let Ok(text) = std::fs::read_to_string(root.dev_file())
        && let Ok(existing) = serde_json::from_str::<DevFile>(&text)
        && existing.token.len() >= 32
    {
        return Ok(existing.token);
    }
    new_token()
}

/// 32 random bytes from the OS, as hex.
fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    std::fs::File::open("/dev/urandom")?.read_exact(&mut bytes)?;
    Ok(bytes.iter().map(|byte| format!("{byte:02x}")).collect())
}

/// Compares a presented token with the real one in time that does not depend on where
/// they differ.
pub fn tokens_match(presented: &str, expected: &str) -> bool {
    let (a, b) = (presented.as_bytes(), expected.as_bytes());
    let mut difference = a.len() ^ b.len();
    for (i, byte) in b.iter().enumerate() {
        difference |= usize::from(a.get(i).copied().unwrap_or(0) ^ byte);
    }
    difference == 0
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::state::dev_file::DevFileLease;

    #[test]
    fn tokens_compare_exactly() {
        assert!(tokens_match("abc", "abc"));
        assert!(!tokens_match("abd", "abc"));
        assert!(!tokens_match("ab", "abc"));
        assert!(!tokens_match("abcd", "abc"));
        assert!(!tokens_match("", "abc"));
    }

    #[test]
    fn a_token_is_kept_until_rotated() {
        let dir = tempfile::tempdir().unwrap();
        let root = StateRoot::create(dir.path()).unwrap();
        let first = load_or_create_token(&root, false).unwrap();
        let dev = DevFile { url: "http://127.0.0.1:1".into(), token: first.clone(), pid: None };
        DevFileLease::take(&root).unwrap().unwrap().write(&dev).unwrap();
        assert_eq!(load_or_create_token(&root, false).unwrap(), first);
        assert_ne!(load_or_create_token(&root, true).unwrap(), first);
    }
}
