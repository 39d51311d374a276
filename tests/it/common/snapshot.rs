//! The filters a command's output goes through before it is snapshotted (or compared), in
//! one place: what differs from one machine or run to the next (the project's temporary
//! folder, the binary's version, the Node.js major, the serve log's times, the ids the
//! binary makes) becomes a placeholder, so that a snapshot holds only what a user sees the
//! same way every time.

use std::path::Path;

use regex::Regex;

/// An ordered list of replacements; [`Filters::apply`] runs them in the order they were added.
#[derive(Default)]
pub struct Filters {
    rules: Vec<(Regex, String)>,
}

impl Filters {
    /// No filter yet.
    pub fn new() -> Self {
        Self::default()
    }

    /// `pattern` (a regex) → `replacement` (which may name the pattern's groups: `$1`).
    pub fn pattern(mut self, pattern: &str, replacement: &str) -> Self {
        self.rules.push((Regex::new(pattern).unwrap(), replacement.to_owned()));
        self
    }

    /// The text `literal` → `replacement`.
    pub fn literal(self, literal: &str, replacement: &str) -> Self {
        self.pattern(&regex::escape(literal), &replacement.replace('$', "$$"))
    }

    /// The project folder `dir` → `[PROJECT]`.
    pub fn project(self, dir: &Path) -> Self {
        self.folder(dir, "[PROJECT]")
    }

    /// The folder `dir`, as links resolve it (a temporary folder is under a link on macOS)
    /// and as given, → `placeholder`.
    pub fn folder(self, dir: &Path, placeholder: &str) -> Self {
        let real = dir.canonicalize().unwrap();
        self.literal(&real.to_string_lossy(), placeholder).literal(&dir.to_string_lossy(), placeholder)
    }

    /// The binary's version (which the SDK packages are stamped with) → `[VERSION]`, so a
    /// release does not change a snapshot.
    pub fn version(self) -> Self {
        self.literal(env!("CARGO_PKG_VERSION"), "[VERSION]")
    }

    /// The Node.js major `major` in a version range, `"^24"` → `"^[NODE]"`.
    pub fn node_range(self, major: impl std::fmt::Display) -> Self {
        self.literal(&format!("\"^{major}\""), "\"^[NODE]\"")
    }

    /// The time at the start of a serve-log line (`2026-12-02T13:31:38.483Z INFO  …`) → `[TIME]`.
    pub fn log_times(self) -> Self {
        self.pattern(r"(?m)^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z ", "[TIME] ")
    }

    /// Session and turn ids the binary makes (`ses_5d64730691289d40`) → `ses_[ID]`,
    /// `turn_[ID]`; a name a test chose (`ses_named`) is kept.
    pub fn ids(self) -> Self {
        self.pattern(r"\b(ses|turn)_[0-9a-f]{16}\b", "${1}_[ID]")
    }

    /// `text` with every filter applied, in order.
    pub fn apply(&self, text: &str) -> String {
        self.rules.iter().fold(text.to_owned(), |text, (pattern, replacement)| {
            pattern.replace_all(&text, replacement.as_str()).into_owned()
        })
    }
}
