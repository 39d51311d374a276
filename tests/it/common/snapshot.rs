//! The filters a command's output goes through before it is snapshotted (or compared), in
//! one place: what differs from one machine or run to the next (the project's temporary
//! folder, the binary's version, the Node.js major, timings, ports, ids) becomes a
//! placeholder, so that a snapshot holds only what a user sees the same way every time.

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

    /// Timings as the serve log and the summaries print them (`12ms`, `1.2s`, `0.35 s`) →
    /// `[TIME]`.
    pub fn timings(self) -> Self {
        self.pattern(r"\b\d+(\.\d+)? ?(ms|s)\b", "[TIME]")
    }

    /// A loopback address's port (`127.0.0.1:43127`) → `127.0.0.1:[PORT]`.
    pub fn ports(self) -> Self {
        self.pattern(r"\b(127\.0\.0\.1|localhost|\[::1\]):\d+\b", "$1:[PORT]")
    }

    /// Session and turn ids the binary makes (`ses_…`, `turn_…`) → `ses_[ID]`, `turn_[ID]`.
    pub fn ids(self) -> Self {
        self.pattern(r"\b(ses|turn)_[0-9A-Za-z]{8,}\b", "${1}_[ID]")
    }

    /// A process id as the serve log names it (`pid 1234`) → `pid [PID]`.
    pub fn pids(self) -> Self {
        self.pattern(r"\bpid \d+\b", "pid [PID]")
    }

    /// `text` with every filter applied, in order.
    pub fn apply(&self, text: &str) -> String {
        self.rules.iter().fold(text.to_owned(), |text, (pattern, replacement)| {
            pattern.replace_all(&text, replacement.as_str()).into_owned()
        })
    }
}
