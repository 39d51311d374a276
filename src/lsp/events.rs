//! Event keys in the editor: completion of the keys of `defineHook({ events: { … } })` from
//! the vocabulary (and `"*"`), and hover on a key showing its `data` type and what it means.
//!
//! Both read the buffer's text, not its parse: while a key is being typed the module does
//! not parse. A position is in `events` when the innermost bracket open before it is the
//! `{` after `events:`.

use lsp_types::{
    CompletionItem, CompletionItemKind, CompletionTextEdit, Documentation, Hover, HoverContents, MarkupContent,
    MarkupKind, Position, TextEdit,
};

use super::text;
use crate::vocabulary::{self, EVENTS, WILDCARD};

/// The completions at `position` of `source`: every event key, when the position is where a
/// key of `events` is written; none elsewhere.
pub fn completions(source: &str, position: Position) -> Vec<CompletionItem> {
    let offset = text::offset(source, position);
    let Some(key_start) = key_start(source, offset) else { return Vec::new() };
    // Replaces what is typed of the key, with its quotes: `"tu|"` becomes `"turn.completed"`.
    let typed = &source[key_start..offset];
    let quote = typed.chars().next().filter(|c| *c == '"' || *c == '\'');
    let end = match quote {
        Some(quote) if source[offset..].starts_with(quote) => offset + 1,
        _ => offset,
    };
    let range = text::range(source, key_start, end);
    let keys = EVENTS.iter().map(|event| (event.name, event.data, event.summary)).chain(std::iter::once((
        WILDCARD,
        "the event's own data",
        "every event type: one handler for all of them",
    )));
    keys.enumerate()
        .map(|(order, (name, data, summary))| {
            let quoted = format!("\"{name}\"");
            CompletionItem {
                label: name.to_owned(),
                kind: Some(CompletionItemKind::EVENT),
                detail: Some(format!("data: {data}")),
                documentation: Some(Documentation::String(summary.to_owned())),
                filter_text: Some(if quote.is_some() { quoted.clone() } else { name.to_owned() }),
                sort_text: Some(format!("{order:02}")),
                text_edit: Some(CompletionTextEdit::Edit(TextEdit { range, new_text: quoted })),
                ..CompletionItem::default()
            }
        })
        .collect()
}

/// The hover at `position` of `source`: on a key of `events`, its `data` type and meaning.
pub fn hover(source: &str, position: Position) -> Option<Hover> {
    let offset = text::offset(source, position);
    let (start, end, key) = word_at(source, offset)?;
    key_start(source, start)?;
    let markdown = if key == WILDCARD {
        "**`\"*\"`**: every event type, one handler for all of them; `event.type` says which.".to_owned()
    } else {
        let event = vocabulary::event_type(key)?;
        format!(
            "**`{}`**: {}\n\n```ts\n(event: {{ type: \"{}\"; data: {} }}, ctx) => void\n```",
            event.name, event.summary, event.name, event.data
        )
    };
    Some(Hover {
        contents: HoverContents::Markup(MarkupContent { kind: MarkupKind::Markdown, value: markdown }),
        range: Some(text::range(source, start, end)),
    })
}

/// Where the key being written at `offset` starts, when `offset` is at a key of an `events`
/// object: after its `{` or a `,`, with only the key's start typed before it.
fn key_start(source: &str, offset: usize) -> Option<usize> {
    let before = &source[..offset];
    let mut depth = 0usize;
    let mut segment_start = None;
    for (at, character) in before.char_indices().rev() {
        match character {
            '}' | ')' | ']' => depth += 1,
            '(' | '[' if depth == 0 => return None,
            '(' | '[' => depth -= 1,
            '{' if depth == 0 => {
                let segment_start = segment_start.unwrap_or(at + 1);
                return opens_events(&source[..at]).then(|| typed_key_start(source, segment_start, offset)).flatten();
            }
            '{' => depth -= 1,
            ',' if depth == 0 && segment_start.is_none() => segment_start = Some(at + 1),
            _ => {}
        }
    }
    None
}

/// Whether the text before a `{` ends with `events:` (or `"events":`).
fn opens_events(before: &str) -> bool {
    let Some(before) = before.trim_end().strip_suffix(':') else { return false };
    let name = before.trim_end();
    ["events", "\"events\"", "'events'"].iter().any(|spelling| {
        name.strip_suffix(spelling)
            .is_some_and(|rest| !rest.ends_with(|c: char| c.is_alphanumeric() || c == '_' || c == '$'))
    })
}

/// The start of what is typed of a key between `segment_start` and `offset`: a quote and
/// the characters of an event name, or nothing; `None` when something else is written there.
fn typed_key_start(source: &str, segment_start: usize, offset: usize) -> Option<usize> {
    let segment = &source[segment_start..offset];
    let typed = segment.trim_start();
    let start = offset - typed.len();
    let name = typed.strip_prefix(['"', '\'']).unwrap_or(typed);
    name.chars().all(|c| c.is_alphanumeric() || c == '.' || c == '*' || c == '_').then_some(start)
}

/// The key under `offset`: a quoted string's contents, or a word; its start and end include
/// the quotes.
fn word_at(source: &str, offset: usize) -> Option<(usize, usize, &str)> {
    let is_key = |c: char| c.is_alphanumeric() || c == '.' || c == '*' || c == '_';
    let start = source[..offset].rfind(|c: char| !is_key(c)).map_or(0, |at| at + 1);
    let end = source[offset..].find(|c: char| !is_key(c)).map_or(source.len(), |at| offset + at);
    if start == end {
        return None;
    }
    let key = &source[start..end];
    let quoted = start > 0
        && matches!(source.as_bytes()[start - 1], b'"' | b'\'')
        && source.as_bytes().get(end) == Some(&source.as_bytes()[start - 1]);
    if quoted { Some((start - 1, end + 1, key)) } else { Some((start, end, key)) }
}

#[cfg(test)]
mod tests {
    use super::*;

    const HOOK: &str = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({\n  events: {\n    \"turn.completed\"(event, ctx) { if (x) { y(); } },\n    \"tu\"\n  },\n});\n";

    fn at(source: &str, needle: &str, plus: usize) -> Position {
        text::position(source, source.find(needle).unwrap() + plus)
    }

    #[test]
    fn completes_a_key_of_events_replacing_what_is_typed_with_its_quotes() {
        let items = completions(HOOK, at(HOOK, "\"tu\"", 3));
        assert_eq!(items.len(), EVENTS.len() + 1);
        let turn = items.iter().find(|item| item.label == "turn.completed").unwrap();
        let Some(CompletionTextEdit::Edit(edit)) = &turn.text_edit else { panic!() };
        assert_eq!(edit.new_text, "\"turn.completed\"");
        assert_eq!(edit.range, text::range(HOOK, HOOK.find("\"tu\"").unwrap(), HOOK.find("\"tu\"").unwrap() + 4));
        assert!(items.iter().any(|item| item.label == "*"));
    }

    #[test]
    fn completes_nothing_inside_a_handler_or_its_parameters_or_outside_events() {
        assert!(completions(HOOK, at(HOOK, "y();", 0)).is_empty());
        assert!(completions(HOOK, at(HOOK, "event, ctx", 0)).is_empty());
        assert!(completions(HOOK, at(HOOK, "events", 0)).is_empty());
        assert!(completions(HOOK, at(HOOK, "defineHook }", 0)).is_empty());
    }

    #[test]
    fn hovers_on_a_key_of_events_with_its_data_and_meaning() {
        let hover = hover(HOOK, at(HOOK, "turn.completed", 3)).unwrap();
        let HoverContents::Markup(markup) = hover.contents else { panic!() };
        let event = vocabulary::event_type("turn.completed").unwrap();
        assert!(markup.value.contains(event.data), "{}", markup.value);
        assert!(markup.value.contains(event.summary), "{}", markup.value);
        assert!(super::hover(HOOK, at(HOOK, "ctx)", 1)).is_none());
    }
}
