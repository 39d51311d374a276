//! What `init` puts in a new project: the files of a working agent, from the templates in
//! `src/scaffold/`, with the agent's name and source folder filled in.

use std::path::PathBuf;

use crate::project::Layout;
use crate::project::package_json::{Entry, PackageJson};

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

/// What a new project is: its name, source folder, the SDK package its hooks import from,
/// and the Node.js major its `@types/node` matches.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Scaffold<'a> {
    pub name: &'a str,
    pub layout: Layout,
    /// `@cursor/bdk`, `@grok/agent-sdk` or `@cursor/july`.
    pub sdk: &'a str,
    pub node_major: u32,
}

/// The SDK package a layout's docs import from: the BDK's for `bot/`, the Agent SDK's for `agent/`.
pub fn default_sdk(layout: Layout) -> &'static str {
    match layout {
        Layout::Bot => "@cursor/bdk",
        Layout::Agent => "@grok/agent-sdk",
    }
}

/// The Node.js major `@types/node` follows when no `node` answers: the newest LTS line.
pub const NEWEST_LTS_NODE: u32 = 24;

/// The files of a new project.
pub fn files(scaffold: &Scaffold) -> Vec<ScaffoldFile> {
    let src = scaffold.layout.folder();
    let file = |path: String, text: String, kind| ScaffoldFile { path: PathBuf::from(path), text, kind };
    let hook = |template: &str| template.replace("{sdk}", scaffold.sdk);
    // The BDK's docs meter with `ctx.host.otel`; the Agent SDK's with `@opentelemetry/api`.
    let (usage, usage_test) = match scaffold.layout {
        Layout::Bot => (include_str!("usage.ts"), include_str!("usage.test.ts")),
        Layout::Agent => (include_str!("usage-otel.ts"), include_str!("usage-otel.test.ts")),
    };
    vec![
        file("package.json".to_owned(), package_json(scaffold), FileKind::IfAbsent),
        file("tsconfig.json".to_owned(), include_str!("tsconfig.json").replace("{src}", src), FileKind::Owned),
        file(".gitignore".to_owned(), include_str!("gitignore").to_owned(), FileKind::Lines),
        file(
            format!("{src}/instructions.md"),
            include_str!("instructions.md").replace("{name}", scaffold.name),
            FileKind::Owned,
        ),
        file(format!("{src}/hooks/memory.ts"), hook(include_str!("memory.ts")), FileKind::Owned),
        file(format!("{src}/hooks/usage.ts"), hook(usage), FileKind::Owned),
        file(format!("{src}/hooks/usage.test.ts"), hook(usage_test), FileKind::Owned),
    ]
}

/// The `typescript` a new project names: the current major that the tools around it accept
/// (typescript-eslint's peer range stops before 6.1; 7, the native compiler, has no stable
/// JavaScript API for such tools yet).
pub const TYPESCRIPT: &str = "^6.0.0";

/// The Node.js a new project asks for in `engines`: the vendor's hosting runs ≥ 22.13.
pub const ENGINES_NODE: &str = ">=22.13";

/// The `@types/node` major for Node.js `node_major`: its LTS line (an odd, short-lived major
/// takes the even one before it, which vitest's peer range names), and never older than 22,
/// the oldest line still supported (20 ended in April 2026; vitest 5 refuses its types).
pub fn types_node_major(node_major: u32) -> u32 {
    (node_major - node_major % 2).max(22)
}

/// The scaffold's `tsconfig.json` moved into the source folder (`bot/tsconfig.json`,
/// including `.`): for a repository whose own `tsconfig.json` init keeps. Editors and `tsc
/// -p bot` take it for the hooks; the repository's build keeps its own.
pub fn source_tsconfig(layout: Layout) -> ScaffoldFile {
    ScaffoldFile {
        path: PathBuf::from(layout.folder()).join("tsconfig.json"),
        text: include_str!("tsconfig.json").replace("{src}", "."),
        kind: FileKind::Owned,
    }
}

/// Whether a repository's `tsconfig.json` (its text) takes in the source folder `src`: it
/// names no `include` or `files` (then it takes everything), or an `include` that reaches
/// into `src` (`**/*`, `.`, `src/…`), and does not exclude `src`. Unreadable text: assumed so.
pub fn tsconfig_reaches(text: &str, src: &str) -> bool {
    let Ok(config) = crate::fs::json::parse(text) else { return true };
    let names_src = |pattern: &str| {
        let pattern = pattern.trim_start_matches("./");
        pattern.is_empty() || pattern == "." || pattern.starts_with('*') || pattern.split('/').next() == Some(src)
    };
    let list = |key: &str| -> Option<Vec<String>> {
        config
            .get(key)?
            .as_array()
            .map(|items| items.iter().filter_map(|item| item.as_str().map(str::to_owned)).collect())
    };
    if list("exclude").is_some_and(|excluded| {
        excluded.iter().any(|pattern| pattern.trim_start_matches("./").trim_end_matches('/') == src)
    }) {
        return false;
    }
    match (list("include"), config.get("files")) {
        (None, None) => true,
        (None, Some(_)) => false,
        (Some(included), _) => included.iter().any(|pattern| names_src(pattern)),
    }
}

/// The `@opentelemetry/api` the agent layout's hooks import (1.9 and later bind the logs API too).
pub const OPENTELEMETRY_API: &str = "^1.9.0";

/// What the scaffold needs in `package.json`: agent-sdk's commands as the `test` and
/// `validate` scripts (`--deny-warnings`: a handler that never runs fails the CI gate), the
/// SDK packages as `file:` dependencies of the folders `agent-sdk sdk` writes (so that
/// npm, pnpm and yarn keep them), `@opentelemetry/api` for the agent layout's hooks, and
/// `typescript` with the `@types/node` of `node_major`.
pub fn package_json_entries(layout: Layout, node_major: u32) -> Vec<Entry> {
    let mut entries = vec![
        Entry::new("scripts", "test", "agent-sdk test"),
        Entry::new("scripts", "validate", "agent-sdk validate --deny-warnings"),
    ];
    entries.extend(crate::sdk::packages::dependencies());
    if layout == Layout::Agent {
        entries.push(Entry::new("dependencies", "@opentelemetry/api", OPENTELEMETRY_API));
    }
    entries.push(Entry::new("devDependencies", "@types/node", format!("^{}", types_node_major(node_major))));
    entries.push(Entry::new("devDependencies", "typescript", TYPESCRIPT));
    entries
}

/// A new project's `package.json`: a private ES module package with [`package_json_entries`].
fn package_json(scaffold: &Scaffold) -> String {
    let start = serde_json::json!({
        "name": scaffold.name,
        "private": true,
        "type": "module",
        "engines": { "node": ENGINES_NODE },
    })
    .to_string();
    // A JSON object made here always parses, and has no section that is not an object.
    let Ok(mut json) = PackageJson::parse(PathBuf::from("package.json"), &start) else { return start };
    let _ = json.add(&package_json_entries(scaffold.layout, scaffold.node_major));
    json.text()
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

    fn agent(sdk: &str) -> Scaffold<'_> {
        Scaffold { name: "demo", layout: Layout::Agent, sdk, node_major: 22 }
    }

    #[test]
    fn both_layouts_put_the_hooks_in_their_source_folder() {
        let paths: Vec<PathBuf> = files(&agent("@grok/agent-sdk")).into_iter().map(|file| file.path).collect();
        assert!(paths.contains(&PathBuf::from("agent/hooks/usage.ts")));
        let tsconfig = files(&agent("@grok/agent-sdk")).into_iter().find(|file| file.path.ends_with("tsconfig.json"));
        assert!(tsconfig.is_some_and(|file| file.text.contains("\"include\": [\"agent\"]")));
    }

    #[test]
    fn the_hooks_import_from_the_package_chosen() {
        for file in
            files(&agent("@cursor/july")).into_iter().filter(|file| file.path.extension() == Some("ts".as_ref()))
        {
            assert!(file.text.contains("from \"@cursor/july/"), "{}: {}", file.path.display(), file.text);
            assert!(!file.text.contains("{sdk}") && !file.text.contains("@cursor/bdk"), "{}", file.path.display());
        }
        assert_eq!(default_sdk(Layout::Agent), "@grok/agent-sdk");
        assert_eq!(default_sdk(Layout::Bot), "@cursor/bdk");
    }

    #[test]
    fn a_repository_tsconfig_reaches_the_source_folder_unless_it_names_others_or_excludes_it() {
        for reaches in [
            "{}",
            "{ \"compilerOptions\": {} }",
            r#"{ "include": ["**/*.ts"] }"#,
            r#"{ "include": ["bot/**/*"] }"#,
            r#"{ "include": ["./bot"] }"#,
            "not json",
        ] {
            assert!(tsconfig_reaches(reaches, "bot"), "{reaches}");
        }
        for apart in [
            r#"{ "include": ["src"] }"#,
            r#"{ "files": ["index.ts"] }"#,
            r#"{ "exclude": ["bot"] }"#,
            r#"{ "include": ["**/*"], "exclude": ["./bot/"] }"#,
        ] {
            assert!(!tsconfig_reaches(apart, "bot"), "{apart}");
        }
    }

    #[test]
    fn node_s_types_follow_its_lts_line_from_22() {
        let majors: Vec<u32> = [20, 22, 23, 24, 25, 26, 27].into_iter().map(types_node_major).collect();
        assert_eq!(majors, [22, 22, 22, 24, 24, 26, 26]);
    }

    #[test]
    fn a_new_package_json_names_the_packages_and_node_s_types() {
        let text = package_json(&agent("@grok/agent-sdk"));
        let json: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(json["devDependencies"]["@types/node"], "^22");
        assert_eq!(json["devDependencies"]["typescript"], TYPESCRIPT);
        assert_eq!(json["engines"]["node"], ">=22.13");
        assert_eq!(json["dependencies"]["@grok/agent-sdk"], "file:vendor/agent-sdk/grok-agent-sdk");
        assert_eq!(json["scripts"]["validate"], "agent-sdk validate --deny-warnings");
        assert!(
            text.starts_with("{\n  \"name\": \"demo\",\n  \"private\": true,\n  \"type\": \"module\",\n"),
            "{text}"
        );
    }
}
