//! `--format sarif`: a SARIF 2.1.0 log for code-scanning uploads (tests/it/cli.rs checks every
//! fixture's log against the official schema). Beyond the schema it gives GitHub code
//! scanning what it needs: every code is a rule with both descriptions, help and a
//! `helpUri`; every result has a location with a region (a project-wide finding points at
//! `package.json` or the source folder) and a `primaryLocationLineHash` that follows the
//! flagged line's text, not its number, so an alert stays matched while code moves.
//! Columns are Unicode code points, as everywhere else in our output.

use std::collections::HashMap;

use serde_json::{Value, json};
use xxhash_rust::xxh3::xxh3_64;

use super::{Location, ProjectDir};
use crate::check::CheckedProject;
use crate::diagnostics::{Code, Diagnostic, Fix, Severity};

/// The README (in the repository named in Cargo.toml): the tool's `informationUri`.
pub const README_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/README.md");

/// The table of diagnostic codes: with a code's anchor, each rule's `helpUri`.
pub const CODES_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/codes.md");

pub fn render(checked: &CheckedProject, dir: &ProjectDir) -> String {
    let rules: Vec<Value> = Code::ALL.iter().map(|code| rule(*code)).collect();
    let mut fingerprints = Fingerprints::default();
    let results: Vec<Value> = checked
        .diagnostics
        .iter()
        .map(|diagnostic| {
            let location = dir.locate(diagnostic);
            let line = flagged_line(checked, diagnostic);
            let fingerprint = fingerprints.next(diagnostic.code, &location.path, line);
            result(diagnostic, &location, fingerprint, dir)
        })
        .collect();
    let log = json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": { "driver": {
                "name": "agent-sdk",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": README_URL,
                "rules": rules,
            }},
            "columnKind": "unicodeCodePoints",
            "results": results,
        }],
    });
    let mut out = serde_json::to_string_pretty(&log).expect("a JSON value serialises");
    out.push('\n');
    out
}

/// The anchor of `code`'s row in the code table (docs/codes.md): `hooks::unknown-event` is
/// `hooks-unknown-event`.
pub fn anchor(code: Code) -> String {
    code.as_str().replace("::", "-")
}

fn rule(code: Code) -> Value {
    let help_uri = format!("{CODES_URL}#{}", anchor(code));
    let consequence = match code.severity() {
        Severity::Error => "An error: `agent-sdk validate` fails.",
        Severity::Warning => "A warning: `agent-sdk validate` fails only with `--deny-warnings`.",
        Severity::Advice => "Advice: it never fails `agent-sdk validate`.",
    };
    json!({
        "id": code.as_str(),
        "shortDescription": { "text": code.summary() },
        "fullDescription": { "text": format!("{} {consequence}", code.summary()) },
        "help": {
            "text": code.help(),
            "markdown": format!("{}\n\n[`{}` in the code table]({help_uri})", code.help(), code.as_str()),
        },
        "helpUri": help_uri,
        "defaultConfiguration": { "level": level(code.severity()) },
    })
}

fn result(diagnostic: &Diagnostic, location: &Location, fingerprint: String, dir: &ProjectDir) -> Value {
    let rule_index = Code::ALL.iter().position(|code| *code == diagnostic.code);
    let uri = uri(&location.path);
    let region = match &diagnostic.label {
        Some(_) => json!({
            "startLine": location.start.line,
            "startColumn": location.start.column,
            "endLine": location.end.line,
            "endColumn": location.end.column,
        }),
        // The whole file (or project): its first line.
        None => json!({ "startLine": 1, "startColumn": 1 }),
    };
    let mut result = json!({
        "ruleId": diagnostic.code.as_str(),
        "ruleIndex": rule_index,
        "level": level(diagnostic.severity()),
        "message": { "text": format!("{}\nhelp: {}", diagnostic.message, diagnostic.help) },
        "locations": [{ "physicalLocation": { "artifactLocation": { "uri": uri }, "region": region } }],
        "partialFingerprints": { "primaryLocationLineHash": fingerprint },
    });
    if let Some(fix) = &diagnostic.fix {
        result["fixes"] = json!([sarif_fix(fix, dir)]);
    }
    result
}

/// An artifact's `uri`: relative to the current directory, or a `file:` URL.
fn uri(path: &str) -> String {
    if path.starts_with('/') {
        crate::text::uri::file_url(std::path::Path::new(path))
    } else {
        crate::text::uri::encode_path(path)
    }
}

/// A fix as SARIF 2.1.0 has it: one `artifactChange` per file, each edit a replacement of
/// a region (empty for an insertion); whether it is safe goes in its property bag.
fn sarif_fix(fix: &Fix, dir: &ProjectDir) -> Value {
    let mut changes: Vec<(&str, Vec<Value>)> = Vec::new();
    for edit in &fix.edits {
        let replacement = json!({
            "deletedRegion": {
                "startLine": edit.start_at.line,
                "startColumn": edit.start_at.column,
                "endLine": edit.end_at.line,
                "endColumn": edit.end_at.column,
            },
            "insertedContent": { "text": edit.new_text },
        });
        match changes.last_mut() {
            Some((path, replacements)) if *path == edit.path => replacements.push(replacement),
            _ => changes.push((&edit.path, vec![replacement])),
        }
    }
    let changes: Vec<Value> = changes
        .into_iter()
        .map(|(path, replacements)| {
            json!({ "artifactLocation": { "uri": uri(&dir.file(path)) }, "replacements": replacements })
        })
        .collect();
    json!({
        "description": { "text": fix.title },
        "artifactChanges": changes,
        "properties": { "applicability": fix.applicability.as_str() },
    })
}

/// The text of the line a finding starts on, without surrounding blanks (so re-indenting
/// keeps an alert); empty for a finding without a span.
fn flagged_line<'c>(checked: &'c CheckedProject, diagnostic: &Diagnostic) -> &'c str {
    let (Some(path), Some(label)) = (&diagnostic.path, &diagnostic.label) else { return "" };
    let Some(text) = checked.sources.get(path) else { return "" };
    text.split('\n').nth((label.start_at.line as usize).saturating_sub(1)).unwrap_or("").trim()
}

/// `primaryLocationLineHash` values: a hash of the code, the path and the flagged line's
/// text, then `:n` for the n-th result with that hash, in GitHub's own format.
#[derive(Default)]
struct Fingerprints {
    seen: HashMap<u64, usize>,
}

impl Fingerprints {
    fn next(&mut self, code: Code, path: &str, line: &str) -> String {
        // NUL separates the parts: no code, path or line holds one where it would matter.
        let hash = xxh3_64(format!("{}\0{path}\0{line}", code.as_str()).as_bytes());
        let occurrence = self.seen.entry(hash).or_default();
        *occurrence += 1;
        format!("{hash:016x}:{occurrence}")
    }
}

fn level(severity: Severity) -> &'static str {
    match severity {
        Severity::Error => "error",
        Severity::Warning => "warning",
        Severity::Advice => "note",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_fingerprint_follows_the_text_and_counts_repeats() {
        let mut fingerprints = Fingerprints::default();
        let first = fingerprints.next(Code::UnknownEvent, "bot/hooks/a.ts", "onTurn() {},");
        let again = fingerprints.next(Code::UnknownEvent, "bot/hooks/a.ts", "onTurn() {},");
        let other = fingerprints.next(Code::UnknownEvent, "bot/hooks/b.ts", "onTurn() {},");
        assert!(first.ends_with(":1") && again.ends_with(":2"));
        assert_eq!(first.split(':').next(), again.split(':').next());
        assert_ne!(first.split(':').next(), other.split(':').next());
        assert_eq!(Fingerprints::default().next(Code::UnknownEvent, "bot/hooks/a.ts", "onTurn() {},"), first);
    }
}
