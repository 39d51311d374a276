//! What `init` puts in a new project: the files of a working agent, from the templates in
//! `src/scaffold/`, with the agent's name and source folder filled in.

use std::path::PathBuf;

use crate::project::Layout;

/// One file of the scaffold, relative to the project folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScaffoldFile {
    pub path: PathBuf,
    pub text: String,
    pub kind: FileKind,
}

/// How a file meets one that is already there.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    /// Written only with `--force` when it exists.
    Owned,
    /// Left as it is when it exists (`package.json`: the user's own).
    IfAbsent,
    /// Lines added to it when it exists, those it lacks (`.gitignore`).
    Lines,
}

/// The files of a new project called `name` with the `layout` source folder.
pub fn files(name: &str, layout: Layout) -> Vec<ScaffoldFile> {
    let src = layout.folder();
    let file = |path: String, text: String, kind| ScaffoldFile { path: PathBuf::from(path), text, kind };
    vec![
        file("package.json".to_owned(), package_json(name), FileKind::IfAbsent),
        file("tsconfig.json".to_owned(), include_str!("scaffold/tsconfig.json").replace("{src}", src), FileKind::Owned),
        file(".gitignore".to_owned(), include_str!("scaffold/gitignore").to_owned(), FileKind::Lines),
        file(
            format!("{src}/instructions.md"),
            include_str!("scaffold/instructions.md").replace("{name}", name),
            FileKind::Owned,
        ),
        file(format!("{src}/hooks/memory.ts"), include_str!("scaffold/memory.ts").to_owned(), FileKind::Owned),
        file(format!("{src}/hooks/usage.ts"), include_str!("scaffold/usage.ts").to_owned(), FileKind::Owned),
        file(format!("{src}/hooks/usage.test.ts"), include_str!("scaffold/usage.test.ts").to_owned(), FileKind::Owned),
    ]
}

/// A new project's `package.json`: an ES module package whose scripts are agent-sdk's
/// commands, and which writes the SDK packages again after every `npm install` (npm
/// removes folders of `node_modules/` that no dependency names).
fn package_json(name: &str) -> String {
    let json = serde_json::json!({
        "name": name,
        "private": true,
        "type": "module",
        "scripts": {
            "test": "agent-sdk test",
            "validate": "agent-sdk validate",
            "postinstall": "agent-sdk sdk || exit 0",
        },
        "devDependencies": {
            "@types/node": "^20.11.0",
            "typescript": "^5.6.0",
        },
    });
    // A JSON value always serialises.
    let mut text = serde_json::to_string_pretty(&json).unwrap_or_default();
    text.push('\n');
    text
}

/// A name npm accepts for the package (lowercase; letters, digits, `-`, `.`, `_`), made
/// from a folder name such as `My Bot`.
pub fn package_name(folder: &str) -> String {
    let mapped: String = folder
        .chars()
        .map(|c| c.to_ascii_lowercase())
        .map(|c| if c.is_ascii_alphanumeric() || matches!(c, '-' | '.' | '_') { c } else { '-' })
        .collect();
    let trimmed = mapped.trim_start_matches(['.', '_', '-']).trim_end_matches('-');
    if trimmed.is_empty() { "agent".to_owned() } else { trimmed.chars().take(214).collect() }
}

/// The lines of `wanted` that `existing` (a `.gitignore`) does not already have, `/`s at
/// either end aside.
pub fn missing_lines<'a>(existing: &str, wanted: &'a str) -> Vec<&'a str> {
    let normal = |line: &str| line.trim().trim_matches('/').to_owned();
    let have: Vec<String> = existing.lines().map(normal).collect();
    wanted
        .lines()
        .filter(|line| !line.trim().is_empty() && !line.trim_start().starts_with('#'))
        .filter(|line| !have.contains(&normal(line)))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn folder_names_become_package_names() {
        assert_eq!(package_name("My Bot"), "my-bot");
        assert_eq!(package_name("acme-bot"), "acme-bot");
        assert_eq!(package_name(".hidden"), "hidden");
        assert_eq!(package_name("日本"), "agent");
    }

    #[test]
    fn a_gitignore_gets_only_the_lines_it_lacks() {
        assert_eq!(missing_lines("node_modules\n/dist\n", ".agent-sdk/\nnode_modules/\n"), [".agent-sdk/"]);
        assert!(missing_lines("# x\n/.agent-sdk/\nnode_modules/\n", ".agent-sdk/\nnode_modules/\n").is_empty());
    }

    #[test]
    fn both_layouts_put_the_hooks_in_their_source_folder() {
        let paths: Vec<PathBuf> = files("demo", Layout::Agent).into_iter().map(|file| file.path).collect();
        assert!(paths.contains(&PathBuf::from("agent/hooks/usage.ts")));
        let tsconfig = files("demo", Layout::Agent).into_iter().find(|file| file.path.ends_with("tsconfig.json"));
        assert!(tsconfig.is_some_and(|file| file.text.contains("\"include\": [\"agent\"]")));
    }
}
