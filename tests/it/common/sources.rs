//! The library's own sources, as the tests that hold the house's rules read them.

use std::path::{Path, PathBuf};

/// The library's `src/`.
pub fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// Every `.rs` file under `dir`, at any depth.
pub fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// Every `.rs` file of `src/`, sorted: its path under `src/` (with `/`) and its text.
pub fn src_files() -> Vec<(String, String)> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files.sort();
    files
        .into_iter()
        .map(|file| {
            let relative = file.strip_prefix(src()).unwrap().to_string_lossy().replace('\\', "/");
            (relative, std::fs::read_to_string(&file).unwrap())
        })
        .collect()
}

/// The code of a file without its comments (a doc link names a module without importing it).
pub fn code(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| line.find(" // ").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// Every path `code` names from `crate::`, `super::` or `self::`, with its root, each item of a
/// `{…}` group its own path: `use crate::a::{b, c::d}` names `crate` `[a, b]` and `[a, c, d]`.
pub fn named_paths(code: &str) -> Vec<(&'static str, Vec<String>)> {
    let mut paths = Vec::new();
    for root in ["crate", "super", "self"] {
        let needle = format!("{root}::");
        let mut from = 0;
        while let Some(found) = code[from..].find(&needle) {
            let at = from + found;
            from = at + needle.len();
            let before = code[..at].chars().next_back();
            if before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == ':' || c == '$') {
                continue;
            }
            paths.extend(tails(&code[from..]).into_iter().map(|path| (root, path)));
        }
    }
    paths
}

/// The paths that `text` (what follows a `root::`) goes on with: `a::b`, or a group's items.
fn tails(text: &str) -> Vec<Vec<String>> {
    let mut segments = Vec::new();
    let mut rest = text;
    loop {
        let rest_trimmed = rest.trim_start();
        if let Some(group) = rest_trimmed.strip_prefix('{') {
            let mut items = Vec::new();
            let (mut depth, mut start) = (0usize, 0);
            for (at, character) in group.char_indices() {
                match character {
                    '{' => depth += 1,
                    '}' if depth == 0 => {
                        items.push(&group[start..at]);
                        break;
                    }
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        items.push(&group[start..at]);
                        start = at + 1;
                    }
                    _ => {}
                }
            }
            let items = items.into_iter().filter(|item| !item.trim().is_empty());
            return items
                .flat_map(|item| tails(item).into_iter().map(|tail| segments.iter().cloned().chain(tail).collect()))
                .collect();
        }
        let name = leading_name(rest_trimmed);
        if name.is_empty() {
            break;
        }
        rest = &rest_trimmed[name.len()..];
        segments.push(name);
        match rest.strip_prefix("::") {
            Some(after) => rest = after,
            None => break,
        }
    }
    vec![segments]
}

fn leading_name(text: &str) -> String {
    let text = text.trim_start();
    if text.starts_with('*') {
        return "*".to_owned();
    }
    text.chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}
