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
