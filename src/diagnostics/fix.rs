//! A finding's fix as text edits: what `validate --fix` applies and what editors offer as a
//! quick fix. A fix is safe when applying it keeps what the code means (or makes it mean
//! what it plainly meant); unsafe when it may change behaviour, so it is applied only when
//! asked (`--unsafe-fixes`), as ruff does.

use serde::Serialize;

use super::LineColumn;

/// Whether a fix may be applied without asking.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Applicability {
    /// Keeps what the code means, or makes it mean what it plainly meant: `--fix` applies it.
    Safe,
    /// May change what the code does: only `--unsafe-fixes` applies it.
    Unsafe,
}

impl Applicability {
    pub fn as_str(self) -> &'static str {
        match self {
            Applicability::Safe => "safe",
            Applicability::Unsafe => "unsafe",
        }
    }
}

/// One way to fix a finding: edits that are applied together or not at all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fix {
    /// What applying it does, in a few words ("Replace with `turn.completed`").
    pub title: String,
    pub applicability: Applicability,
    /// Non-overlapping edits, in file and position order.
    pub edits: Vec<Edit>,
}

impl Fix {
    pub fn new(title: impl Into<String>, applicability: Applicability, mut edits: Vec<Edit>) -> Self {
        edits.sort_by(|a, b| (&a.path, a.start, a.end).cmp(&(&b.path, b.start, b.end)));
        Self { title: title.into(), applicability, edits }
    }

    pub fn safe(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self::new(title, Applicability::Safe, edits)
    }

    pub fn unsafe_(title: impl Into<String>, edits: Vec<Edit>) -> Self {
        Self::new(title, Applicability::Unsafe, edits)
    }
}

/// Replace bytes `start..end` of the file at `path` with `new_text` (an insertion when
/// `start == end`, a deletion when `new_text` is empty).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edit {
    /// Relative to `--dir`, with `/` separators, as a diagnostic's path.
    pub path: String,
    /// Byte offsets into the file as it was checked.
    pub start: u32,
    pub end: u32,
    /// Where the replaced bytes start and end (the end is exclusive).
    pub start_at: LineColumn,
    pub end_at: LineColumn,
    pub new_text: String,
}

/// `text` with `edits` applied: edits of this one file, in position order, none overlapping
/// another (see [`Fix::new`]); offsets are into `text`. An edit whose offsets do not fall on
/// `text`'s character boundaries is skipped.
pub fn apply_edits<'e>(text: &str, edits: impl IntoIterator<Item = &'e Edit>) -> String {
    let mut out = String::with_capacity(text.len());
    let mut at = 0;
    for edit in edits {
        let (start, end) = (edit.start as usize, edit.end as usize);
        if start < at || end > text.len() || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        out.push_str(&text[at..start]);
        out.push_str(&edit.new_text);
        at = end;
    }
    out.push_str(&text[at..]);
    out
}

/// What `edit` does to `text`: `None` when it does not fit it (an offset past its end or
/// inside a character, as from a check of other text), else whether it changes it (a
/// replacement with the same text does not).
pub fn changes(text: &str, edit: &Edit) -> Option<bool> {
    let replaced = text.get(edit.start as usize..edit.end as usize)?;
    Some(replaced != edit.new_text)
}

/// Whether two edits of one file touch the same bytes (two insertions at one offset do: which
/// goes first is not known).
pub fn overlap(a: &Edit, b: &Edit) -> bool {
    let insertion_in = |x: &Edit, y: &Edit| x.start == x.end && (y.start..=y.end).contains(&x.start);
    a.path == b.path && (a.start.max(b.start) < a.end.min(b.end) || insertion_in(a, b) || insertion_in(b, a))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn edit(start: u32, end: u32, new_text: &str) -> Edit {
        let at = LineColumn { line: 1, column: 1 };
        Edit { path: "a.ts".into(), start, end, start_at: at, end_at: at, new_text: new_text.into() }
    }

    #[test]
    fn edits_apply_in_order_and_an_overlapping_one_is_skipped() {
        let text = "const a = b;";
        let edits = [edit(0, 5, "let"), edit(6, 7, "x"), edit(6, 9, "no"), edit(12, 12, "\n")];
        assert_eq!(apply_edits(text, &edits), "let x = b;\n");
    }

    #[test]
    fn an_edit_inside_a_character_does_not_fit_and_the_same_text_changes_nothing() {
        let text = "a,\u{a0}b";
        assert_eq!(changes(text, &edit(0, 3, "")), None);
        assert_eq!(changes(text, &edit(4, 9, "")), None);
        assert_eq!(changes(text, &edit(0, 1, "a")), Some(false));
        assert_eq!(changes(text, &edit(0, 4, "")), Some(true));
    }

    #[test]
    fn overlapping_edits_are_told_apart_from_neighbours() {
        assert!(overlap(&edit(0, 5, ""), &edit(4, 6, "")));
        assert!(!overlap(&edit(0, 5, ""), &edit(5, 6, "")));
        assert!(overlap(&edit(3, 3, "x"), &edit(3, 3, "y")));
        assert!(overlap(&edit(3, 3, "x"), &edit(2, 4, "")));
        assert!(!overlap(&edit(5, 5, "x"), &edit(0, 4, "")));
    }
}
