//! A project's `package.json` as agent-sdk edits it: the entries a command needs in it (a
//! script, a dependency), which of them it lacks, what to tell a user to add, and adding
//! them with the file's own layout kept (key order, indent, line endings), as npm keeps it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::{Map, Value};

/// One entry a project's `package.json` should have: `"<section>": { "<key>": "<value>" }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// `scripts`, `dependencies` or `devDependencies`.
    pub section: &'static str,
    pub key: String,
    pub value: String,
}

impl Entry {
    pub fn new(section: &'static str, key: impl Into<String>, value: impl Into<String>) -> Self {
        Self { section, key: key.into(), value: value.into() }
    }

    fn is_dependency(&self) -> bool {
        DEPENDENCY_SECTIONS.contains(&self.section)
    }
}

/// Where a package may already be named: a dependency named in any of these is there.
pub(crate) const DEPENDENCY_SECTIONS: [&str; 4] =
    ["dependencies", "devDependencies", "optionalDependencies", "peerDependencies"];

/// A `package.json`, read.
#[derive(Debug, Clone)]
pub struct PackageJson {
    pub path: PathBuf,
    fields: Map<String, Value>,
    indent: String,
    crlf: bool,
}

impl PackageJson {
    /// `<dir>/package.json`: `None` when there is none; an error saying why when it cannot
    /// be read or is not a JSON object.
    pub fn read(dir: &Path) -> anyhow::Result<Option<Self>> {
        let path = dir.join("package.json");
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => return Ok(None),
            Err(error) => return Err(error).with_context(|| format!("could not read {}", path.display())),
        };
        Self::parse(path, &text).map(Some)
    }

    /// The `package.json` at `path` whose text is `text`.
    pub fn parse(path: PathBuf, text: &str) -> anyhow::Result<Self> {
        let value: Value =
            crate::fs::json::parse(text).map_err(|error| anyhow::anyhow!("{} {}", path.display(), error.clause()))?;
        let Value::Object(fields) = value else {
            anyhow::bail!("{} does not hold a JSON object", path.display());
        };
        Ok(Self { path, fields, indent: indent_of(text), crlf: text.contains("\r\n") })
    }

    /// The entries of `wanted` this file lacks: a script it has no script of that name for,
    /// a package none of its dependency sections names (whatever version it names it with).
    pub fn lacking<'a>(&self, wanted: &'a [Entry]) -> Vec<&'a Entry> {
        wanted.iter().filter(|entry| !self.has(entry)).collect()
    }

    /// The scripts of `wanted` this file has under another command: each with its own.
    pub fn other_scripts<'a>(&self, wanted: &'a [Entry]) -> Vec<(&'a Entry, String)> {
        wanted
            .iter()
            .filter(|entry| !entry.is_dependency())
            .filter_map(|entry| {
                let own = self.fields.get(entry.section)?.get(&entry.key)?;
                let own = own.as_str().map_or_else(|| own.to_string(), str::to_owned);
                (own != entry.value).then_some((entry, own))
            })
            .collect()
    }

    fn has(&self, entry: &Entry) -> bool {
        let named_in = |section: &str| {
            self.fields.get(section).and_then(Value::as_object).is_some_and(|map| map.contains_key(&entry.key))
        };
        if entry.is_dependency() {
            DEPENDENCY_SECTIONS.iter().any(|section| named_in(section))
        } else {
            named_in(entry.section)
        }
    }

    /// Adds each entry it lacks (a section at the end when there is none; a dependency
    /// section kept in alphabetical order when it was, as npm writes them); those added.
    pub fn add<'a>(&mut self, wanted: &'a [Entry]) -> anyhow::Result<Vec<&'a Entry>> {
        let lacking = self.lacking(wanted);
        for entry in &lacking {
            let section = self.fields.entry(entry.section).or_insert_with(|| Value::Object(Map::new()));
            let Value::Object(map) = section else {
                anyhow::bail!(
                    "{}: \"{}\" is not an object, so agent-sdk cannot add to it",
                    self.path.display(),
                    entry.section
                );
            };
            let sorted = map.keys().is_sorted();
            map.insert(entry.key.clone(), Value::String(entry.value.clone()));
            if sorted && entry.is_dependency() {
                map.sort_keys();
            }
        }
        Ok(lacking)
    }

    /// The file's text: its own indent and line endings, and a final newline.
    pub fn text(&self) -> String {
        let mut out = Vec::new();
        let formatter = serde_json::ser::PrettyFormatter::with_indent(self.indent.as_bytes());
        let mut serializer = serde_json::Serializer::with_formatter(&mut out, formatter);
        // A map of JSON values always serialises.
        let _ = serde::Serialize::serialize(&self.fields, &mut serializer);
        let mut text = String::from_utf8_lossy(&out).into_owned();
        text.push('\n');
        if self.crlf { text.replace('\n', "\r\n") } else { text }
    }

    /// Writes [`Self::text`] back to the file.
    pub fn write(&self) -> anyhow::Result<()> {
        std::fs::write(&self.path, self.text()).with_context(|| format!("could not write {}", self.path.display()))
    }
}

/// The indent of a JSON text: that of its first indented line, else two spaces.
fn indent_of(text: &str) -> String {
    text.lines()
        .skip(1)
        .map(|line| &line[..line.len() - line.trim_start().len()])
        .find(|indent| !indent.is_empty())
        .unwrap_or("  ")
        .to_owned()
}

/// `text` as a JSON string, quotes and escapes.
pub fn quoted(text: &str) -> String {
    Value::String(text.to_owned()).to_string()
}

/// `entries` as the lines of JSON a user adds to a `package.json`, each section its own
/// object, indented by `margin`.
pub fn fragment(entries: &[&Entry], margin: &str) -> String {
    let mut sections: Vec<(&str, Vec<&Entry>)> = Vec::new();
    for entry in entries {
        match sections.iter_mut().find(|(section, _)| *section == entry.section) {
            Some((_, list)) => list.push(entry),
            None => sections.push((entry.section, vec![entry])),
        }
    }
    let blocks: Vec<String> = sections
        .iter()
        .map(|(section, list)| {
            let lines: Vec<String> = list
                .iter()
                .map(|entry| format!("{margin}  {}: {}", quoted(&entry.key), quoted(&entry.value)))
                .collect();
            format!("{margin}{}: {{\n{}\n{margin}}}", quoted(section), lines.join(",\n"))
        })
        .collect();
    format!("{}\n", blocks.join(",\n"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(text: &str) -> PackageJson {
        PackageJson::parse(PathBuf::from("package.json"), text).unwrap()
    }

    fn wanted() -> Vec<Entry> {
        vec![
            Entry::new("scripts", "test", "agent-sdk test"),
            Entry::new("dependencies", "@cursor/bdk", "file:vendor/agent-sdk/cursor-bdk"),
            Entry::new("devDependencies", "typescript", "^5.6.0"),
        ]
    }

    #[test]
    fn a_script_or_a_package_already_named_is_not_lacking() {
        let json = parsed(r#"{ "scripts": { "test": "jest" }, "dependencies": { "typescript": "5.9.3" } }"#);
        let wanted = wanted();
        let lacking: Vec<&str> = json.lacking(&wanted).iter().map(|entry| entry.key.as_str()).collect();
        assert_eq!(lacking, ["@cursor/bdk"]);
        let others: Vec<(&str, String)> =
            json.other_scripts(&wanted).into_iter().map(|(entry, own)| (entry.key.as_str(), own)).collect();
        assert_eq!(others, [("test", "jest".to_owned())]);
    }

    #[test]
    fn adding_keeps_the_order_indent_and_line_endings_of_the_file() {
        let text = "{\r\n    \"name\": \"acme\",\r\n    \"exports\": { \"types\": \"./a.d.ts\", \"import\": \"./a.mjs\" },\r\n    \"dependencies\": { \"zod\": \"^3\" }\r\n}";
        let mut json = parsed(text);
        let wanted = wanted();
        let added = json.add(&wanted).unwrap();
        assert_eq!(added.len(), 3);
        assert_eq!(
            json.text(),
            "{\r\n    \"name\": \"acme\",\r\n    \"exports\": {\r\n        \"types\": \"./a.d.ts\",\r\n        \"import\": \"./a.mjs\"\r\n    },\r\n    \"dependencies\": {\r\n        \"@cursor/bdk\": \"file:vendor/agent-sdk/cursor-bdk\",\r\n        \"zod\": \"^3\"\r\n    },\r\n    \"scripts\": {\r\n        \"test\": \"agent-sdk test\"\r\n    },\r\n    \"devDependencies\": {\r\n        \"typescript\": \"^5.6.0\"\r\n    }\r\n}\r\n"
        );
        assert!(json.add(&wanted).unwrap().is_empty(), "a second time adds nothing");
    }

    #[test]
    fn a_section_that_is_not_an_object_is_an_error_not_a_loss() {
        let mut json = parsed(r#"{ "scripts": "nope" }"#);
        let error = json.add(&wanted()).unwrap_err().to_string();
        assert!(error.contains("\"scripts\" is not an object"), "{error}");
        assert!(PackageJson::parse(PathBuf::from("package.json"), "[1]").is_err());
    }

    #[test]
    fn the_fragment_groups_entries_by_section() {
        let wanted = wanted();
        let entries: Vec<&Entry> = wanted.iter().collect();
        assert_eq!(
            fragment(&entries[..2], "  "),
            "  \"scripts\": {\n    \"test\": \"agent-sdk test\"\n  },\n  \"dependencies\": {\n    \"@cursor/bdk\": \"file:vendor/agent-sdk/cursor-bdk\"\n  }\n"
        );
    }
}
