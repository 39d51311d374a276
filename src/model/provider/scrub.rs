//! Keeping the API key out of everything a server's answer becomes (stdout, the events,
//! the hooks, the log): a server may echo it back, and JSON may spell it with escapes
//! (`\u0031`) or cut it over two deltas. So the key is looked for in decoded text, never in
//! the raw bytes only, and in a reply as a whole, across its pieces: the end of a piece
//! that may be the start of the key waits for the next piece.

use std::sync::Arc;

use serde_json::Value;

/// What a redacted key reads as.
pub const REDACTED: &str = "[redacted]";

/// The key to keep out of text, if there is one.
#[derive(Debug, Clone, Default)]
pub struct KeyScrub {
    key: Option<Arc<str>>,
}

impl KeyScrub {
    pub fn new(key: Option<&str>) -> Self {
        Self { key: key.filter(|key| !key.is_empty()).map(Arc::from) }
    }

    /// `text` with every occurrence of the key replaced by `[redacted]`.
    pub fn text(&self, text: &str) -> String {
        match self.key.as_deref() {
            Some(key) if text.contains(key) => text.replace(key, REDACTED),
            _ => text.to_owned(),
        }
    }

    /// Scrubs every string of a decoded JSON value, and every key of its objects.
    pub fn json(&self, value: &mut Value) {
        let Some(key) = self.key.as_deref() else { return };
        match value {
            Value::String(text) if text.contains(key) => *text = text.replace(key, REDACTED),
            Value::Array(items) => items.iter_mut().for_each(|item| self.json(item)),
            Value::Object(fields) => {
                if fields.keys().any(|name| name.contains(key)) {
                    let taken = std::mem::take(fields);
                    fields.extend(taken.into_iter().map(|(name, value)| (self.text(&name), value)));
                }
                fields.values_mut().for_each(|field| self.json(field));
            }
            _ => {}
        }
    }
}

/// A text that arrives in pieces (a reply's deltas), scrubbed as a whole: each piece gives
/// what may be shown at once, and holds back its end while that could be the start of the
/// key.
#[derive(Debug, Default)]
pub struct Pieces {
    held: String,
}

impl Pieces {
    /// What of `piece` (after what was held back) may be shown now.
    pub fn push(&mut self, scrub: &KeyScrub, piece: &str) -> String {
        let Some(key) = scrub.key.as_deref() else { return piece.to_owned() };
        self.held.push_str(piece);
        let text = scrub.text(&std::mem::take(&mut self.held));
        let start_of_key = start_of_key_at_end(&text, key);
        self.held = text[start_of_key..].to_owned();
        text[..start_of_key].to_owned()
    }

    /// What is still held back, once the text has ended: the start of a key that never came.
    pub fn finish(&mut self) -> String {
        std::mem::take(&mut self.held)
    }
}

/// Where the longest end of `text` that begins `key` (without being all of it) starts;
/// `text.len()` when none does.
fn start_of_key_at_end(text: &str, key: &str) -> usize {
    let earliest = text.len().saturating_sub(key.len() - 1);
    // The key is visible ASCII (checked when the provider connects), so a match starts at
    // an ASCII byte: a character boundary.
    (earliest..text.len()).find(|&start| key.as_bytes().starts_with(&text.as_bytes()[start..])).unwrap_or(text.len())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    const KEY: &str = "sk-secret-1";

    #[test]
    fn the_key_is_scrubbed_from_text_and_from_every_string_of_json() {
        let scrub = KeyScrub::new(Some(KEY));
        assert_eq!(
            scrub.text("invalid key sk-secret-1 (Bearer sk-secret-1)"),
            "invalid key [redacted] (Bearer [redacted])"
        );
        assert_eq!(scrub.text("nothing here"), "nothing here");
        assert_eq!(KeyScrub::new(None).text(KEY), KEY);
        assert_eq!(KeyScrub::new(Some("")).text("anything"), "anything");
        let mut value: Value = serde_json::from_str(r#"{"a":["sk-secret-\u0031",{"sk-secret-1":2}],"b":1}"#).unwrap();
        scrub.json(&mut value);
        assert_eq!(value, json!({ "a": ["[redacted]", { "[redacted]": 2 }], "b": 1 }));
    }

    fn shown(pieces: &[&str]) -> Vec<String> {
        let scrub = KeyScrub::new(Some(KEY));
        let mut text = Pieces::default();
        let mut shown: Vec<String> = pieces.iter().map(|piece| text.push(&scrub, piece)).collect();
        shown.push(text.finish());
        shown
    }

    #[test]
    fn a_key_cut_over_pieces_is_scrubbed_and_only_a_possible_start_waits() {
        assert_eq!(shown(&["my key: sk-se", "cret-1 ok"]), ["my key: ", "[redacted] ok", ""]);
        assert_eq!(shown(&["s", "k", "-secret-", "1", "!"]), ["", "", "", "[redacted]", "!", ""]);
        assert_eq!(shown(&["cats", " and dogs"]), ["cat", "s and dog", "s"]);
        assert_eq!(
            shown(&["ends with sk-"]),
            ["ends with ", "sk-"],
            "a start that is never completed is shown at the end"
        );
        assert_eq!(shown(&["sk-secret-1sk-secret-1"]), ["[redacted][redacted]", ""]);
        assert_eq!(shown(&["é sk-secret-", "2 ü"]), ["é ", "sk-secret-2 ü", ""]);
        let mut text = Pieces::default();
        assert_eq!(text.push(&KeyScrub::new(None), "s"), "s", "without a key nothing waits");
    }
}
