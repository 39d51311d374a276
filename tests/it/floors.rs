//! The house's floors, checked: every top-level module of the library has a floor, imports
//! only from its own floor or below, the modules import each other in no circle, and the
//! two wings of floor 4 (the static check, the turn engine) never import each other.
//! docs/ARCHITECTURE.md draws the same table.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Each top-level module of `src/` and its floor; the ground is 1.
const FLOORS: &[(&str, u8)] = &[
    ("commands", 7),
    ("server", 6),
    ("lsp", 6),
    ("session", 5),
    ("check", 4),
    ("engine", 4),
    ("report", 4),
    ("model", 3),
    ("runtime", 3),
    ("loader", 2),
    ("telemetry", 2),
    ("cli", 1),
    ("clock", 1),
    ("config", 1),
    ("data_shape", 1),
    ("diagnostics", 1),
    ("env_file", 1),
    ("exit_status", 1),
    ("fingerprint", 1),
    ("fs", 1),
    ("invocation", 1),
    ("io_error", 1),
    ("package_json", 1),
    ("parse", 1),
    ("platform", 1),
    ("printer", 1),
    ("project", 1),
    ("protocol", 1),
    ("running_binary", 1),
    ("scaffold", 1),
    ("sdk", 1),
    ("session_id", 1),
    ("signals", 1),
    ("since", 1),
    ("sse", 1),
    ("state", 1),
    ("suggest", 1),
    ("trust", 1),
    ("untrusted", 1),
    ("uri", 1),
    ("vocabulary", 1),
];

/// Modules of one floor that never import each other, in either direction.
const APART: &[(&str, &str)] = &[("check", "engine"), ("report", "engine")];

fn src() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("src")
}

/// The top-level module a file of `src/` belongs to; `None` for the crate roots.
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "bin")).then(|| name.to_owned())
}

fn rust_files(dir: &Path, found: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).unwrap().map(Result::unwrap) {
        let path = entry.path();
        if path.is_dir() {
            rust_files(&path, found);
        } else if path.extension().is_some_and(|extension| extension == "rs") {
            found.push(path);
        }
    }
}

/// The code of a file without its comments (a doc link names a module without importing it).
fn code(text: &str) -> String {
    text.lines()
        .filter(|line| !line.trim_start().starts_with("//"))
        .map(|line| line.find(" // ").map_or(line, |at| &line[..at]))
        .collect::<Vec<_>>()
        .join("\n")
}

/// The top-level modules `code` names as `crate::name`, or as an item of `use crate::{…}`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut names = BTreeSet::new();
    let mut rest = code;
    while let Some(at) = rest.find("crate::") {
        let after = &rest[at + "crate::".len()..];
        if let Some(group) = after.strip_prefix('{') {
            let mut depth = 0usize;
            let mut item = String::new();
            for character in group.chars() {
                match character {
                    '{' => depth += 1,
                    '}' if depth == 0 => break,
                    '}' => depth -= 1,
                    ',' if depth == 0 => {
                        names.insert(leading_name(&item));
                        item.clear();
                        continue;
                    }
                    _ => {}
                }
                if depth == 0 || !item.contains("::") {
                    item.push(character);
                }
            }
            names.insert(leading_name(&item));
        } else {
            names.insert(leading_name(after));
        }
        rest = after;
    }
    names.retain(|name| !name.is_empty() && name != "self");
    names
}

fn leading_name(text: &str) -> String {
    text.trim_start().chars().take_while(|c| c.is_alphanumeric() || *c == '_').collect()
}

/// module → the other top-level modules it imports, with a file that does.
fn imports() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for file in files {
        let relative = file.strip_prefix(src()).unwrap().to_path_buf();
        let Some(module) = module_of(&relative) else { continue };
        let text = std::fs::read_to_string(&file).unwrap();
        let imported = graph.entry(module.clone()).or_default();
        for name in named_modules(&code(&text)) {
            if name != module {
                imported.entry(name).or_insert_with(|| relative.clone());
            }
        }
    }
    graph
}

fn floor(module: &str) -> u8 {
    FLOORS.iter().find(|(name, _)| *name == module).map(|(_, floor)| *floor).unwrap_or_else(|| {
        panic!("`{module}` has no floor: add it to FLOORS in tests/it/floors.rs (and docs/ARCHITECTURE.md)")
    })
}

#[test]
fn every_module_of_the_library_has_a_floor_and_every_floor_entry_is_a_module() {
    let lib = std::fs::read_to_string(src().join("lib.rs")).unwrap();
    let declared: BTreeSet<&str> =
        lib.lines().filter_map(|line| line.strip_prefix("pub mod ")?.split(';').next()).collect();
    let tabled: BTreeSet<&str> = FLOORS.iter().map(|(name, _)| *name).collect();
    assert_eq!(declared, tabled, "lib.rs's modules and the floor table differ");
}

#[test]
fn no_module_imports_from_a_floor_above_its_own() {
    let upward: Vec<String> = imports()
        .iter()
        .flat_map(|(module, imported)| {
            imported.iter().filter(|(name, _)| floor(name) > floor(module)).map(move |(name, file)| {
                format!(
                    "{module} (floor {}) imports {name} (floor {}), in src/{}",
                    floor(module),
                    floor(name),
                    file.display()
                )
            })
        })
        .collect();
    assert!(upward.is_empty(), "imports that run up:\n{}", upward.join("\n"));
}

#[test]
fn the_modules_import_each_other_in_no_circle() {
    let graph = imports();
    // Depth-first, keeping the path: a module met again on it closes a circle.
    fn visit(
        module: &str,
        graph: &BTreeMap<String, BTreeMap<String, PathBuf>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|on| on == module) {
            let mut circle = path[at..].to_vec();
            circle.push(module.to_owned());
            return Some(circle);
        }
        if !done.insert(module.to_owned()) {
            return None;
        }
        path.push(module.to_owned());
        for next in graph.get(module).into_iter().flat_map(BTreeMap::keys) {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    for module in graph.keys() {
        let circle = visit(module, &graph, &mut Vec::new(), &mut done);
        assert!(circle.is_none(), "a circle of imports: {}", circle.unwrap_or_default().join(" → "));
    }
}

#[test]
fn the_check_and_the_engine_never_import_each_other() {
    let graph = imports();
    for (one, other) in APART {
        for (from, to) in [(one, other), (other, one)] {
            let file = graph.get(*from).and_then(|imported| imported.get(*to));
            assert!(file.is_none(), "{from} imports {to} (in src/{}), and they stand apart", file.unwrap().display());
        }
    }
}

#[test]
fn imports_are_read_from_paths_and_groups_but_not_comments() {
    let text = "use crate::a::b;\n// crate::comment\nuse crate::{c, d::{e, f}, self};\nlet x = crate::g::h(); // crate::trailing";
    let names: Vec<String> = named_modules(&code(text)).into_iter().collect();
    assert_eq!(names, ["a", "c", "d", "g"]);
}
