//! The house's floors, checked: every top-level module of the library has a floor, imports
//! only from its own floor or below, the modules import each other in no circle, and the
//! two wings of floor 4 (the static check, the turn engine) never import each other. The
//! ground floor is split into its real levels (what imports nothing of the house, what
//! imports only those, …), and inside every folder the files beside each other import each
//! other in no circle either. docs/ARCHITECTURE.md draws the same table, and a test holds
//! it to this one.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::common::sources::{code, named_paths, rust_files, src, src_files};

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
    ("config", 1),
    ("diagnostics", 1),
    ("exit_status", 1),
    ("fs", 1),
    ("http", 1),
    ("parse", 1),
    ("platform", 1),
    ("printer", 1),
    ("process", 1),
    ("project", 1),
    ("protocol", 1),
    ("scaffold", 1),
    ("sdk", 1),
    ("signals", 1),
    ("state", 1),
    ("text", 1),
    ("time", 1),
    ("vocabulary", 1),
];

/// The ground floor (floor 1) by its real levels: a module of level 1 imports nothing of the
/// house, and one of level `n` imports ground modules of levels below `n`, one of them `n - 1`.
const GROUND_LEVELS: &[(&str, u8)] = &[
    ("exit_status", 1),
    ("parse", 1),
    ("platform", 1),
    ("process", 1),
    ("text", 1),
    ("time", 1),
    ("diagnostics", 2),
    ("fs", 2),
    ("http", 2),
    ("signals", 2),
    ("project", 3),
    ("state", 3),
    ("vocabulary", 3),
    ("protocol", 4),
    ("sdk", 4),
    ("cli", 5),
    ("scaffold", 5),
    ("printer", 6),
    ("config", 7),
];

/// Modules of one floor that never import each other, in either direction.
const APART: &[(&str, &str)] = &[("check", "engine"), ("report", "engine")];

/// The top-level module a file of `src/` belongs to; `None` for the crate roots.
fn module_of(relative: &Path) -> Option<String> {
    let first = relative.components().next()?.as_os_str().to_str()?;
    let name = first.strip_suffix(".rs").unwrap_or(first);
    (!matches!(name, "lib" | "main" | "bin")).then(|| name.to_owned())
}

/// The top-level modules `code` names as `crate::name`, or as an item of `use crate::{…}`.
fn named_modules(code: &str) -> BTreeSet<String> {
    let mut names: BTreeSet<String> = named_paths(code)
        .into_iter()
        .filter(|(root, _)| *root == "crate")
        .filter_map(|(_, path)| path.first().cloned())
        .collect();
    names.retain(|name| name != "self");
    names
}

/// module → the other top-level modules it imports, with a file that does.
fn imports() -> BTreeMap<String, BTreeMap<String, PathBuf>> {
    let mut graph: BTreeMap<String, BTreeMap<String, PathBuf>> = BTreeMap::new();
    for (relative, text) in src_files() {
        let relative = PathBuf::from(relative);
        let Some(module) = module_of(&relative) else { continue };
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

/// A circle in `graph` (node → the nodes it imports), if there is one, as the path round it.
fn circle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    // Depth-first, keeping the path: a node met again on it closes a circle.
    fn visit(
        node: &str,
        graph: &BTreeMap<String, BTreeSet<String>>,
        path: &mut Vec<String>,
        done: &mut BTreeSet<String>,
    ) -> Option<Vec<String>> {
        if let Some(at) = path.iter().position(|on| on == node) {
            let mut circle = path[at..].to_vec();
            circle.push(node.to_owned());
            return Some(circle);
        }
        if !done.insert(node.to_owned()) {
            return None;
        }
        path.push(node.to_owned());
        for next in graph.get(node).into_iter().flatten() {
            if let Some(circle) = visit(next, graph, path, done) {
                return Some(circle);
            }
        }
        path.pop();
        None
    }
    let mut done = BTreeSet::new();
    graph.keys().find_map(|node| visit(node, graph, &mut Vec::new(), &mut done))
}

#[test]
fn the_modules_import_each_other_in_no_circle() {
    let graph = imports().into_iter().map(|(module, imported)| (module, imported.into_keys().collect())).collect();
    let circle = circle(&graph);
    assert!(circle.is_none(), "a circle of imports: {}", circle.unwrap_or_default().join(" → "));
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

/// Each file of `src/` by its module path: `state/store.rs` is `[state, store]`, and a
/// folder's `mod.rs` is the folder's own path.
fn module_files() -> BTreeMap<Vec<String>, PathBuf> {
    let mut files = Vec::new();
    rust_files(&src(), &mut files);
    files
        .into_iter()
        .filter_map(|file| {
            let relative = file.strip_prefix(src()).unwrap().to_path_buf();
            module_of(&relative)?;
            let mut path: Vec<String> =
                relative.with_extension("").iter().map(|part| part.to_string_lossy().into_owned()).collect();
            if path.last().is_some_and(|last| last == "mod") {
                path.pop();
            }
            Some((path, relative))
        })
        .collect()
}

/// file → the other files it imports (each path named resolved to the deepest file it goes
/// through). A file's `mod tests` at its end is not among its imports.
fn file_imports() -> BTreeMap<Vec<String>, BTreeSet<Vec<String>>> {
    let files = module_files();
    let mut graph = BTreeMap::new();
    for (module, relative) in &files {
        let text = std::fs::read_to_string(src().join(relative)).unwrap();
        let text = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        let mut imported = BTreeSet::new();
        for (root, path) in named_paths(&code(text)) {
            let mut full: Vec<String> = match root {
                "crate" => Vec::new(),
                "self" => module.clone(),
                _ => module[..module.len().saturating_sub(1)].to_vec(),
            };
            let mut path = path.as_slice();
            while let [first, rest @ ..] = path
                && first == "super"
            {
                full.pop();
                path = rest;
            }
            if path.first().is_some_and(|first| first == "*") {
                continue;
            }
            full.extend(path.iter().cloned());
            let target =
                (1..=full.len()).rev().map(|length| &full[..length]).find(|prefix| files.contains_key(*prefix));
            if let Some(target) = target.filter(|target| *target != module.as_slice()) {
                imported.insert(target.to_vec());
            }
        }
        graph.insert(module.clone(), imported);
    }
    graph
}

/// folder → its files and subfolders (by name) → the ones beside them they import. A
/// folder's `mod.rs` is its front door, not one of them: it may import them and they it.
fn folder_imports(
    files: &BTreeMap<Vec<String>, BTreeSet<Vec<String>>>,
) -> BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> {
    let mut folders: BTreeMap<Vec<String>, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
    for (from, imported) in files {
        for to in imported {
            let shared = from.iter().zip(to).take_while(|(one, other)| one == other).count();
            // The top-level modules' circles are the module test's; a file and its own folder's front door are not beside each other.
            if shared == 0 || shared == from.len() || shared == to.len() {
                continue;
            }
            let folder = folders.entry(from[..shared].to_vec()).or_default();
            folder.entry(from[shared].clone()).or_default().insert(to[shared].clone());
        }
    }
    folders
}

#[test]
fn inside_every_folder_the_files_import_each_other_in_no_circle() {
    let circles: Vec<String> = folder_imports(&file_imports())
        .iter()
        .filter_map(|(folder, graph)| {
            let circle = circle(graph)?;
            Some(format!("in src/{}/: {}", folder.join("/"), circle.join(" → ")))
        })
        .collect();
    assert!(
        circles.is_empty(),
        "files that import each other in a circle (move the type they share to a file below them):\n{}",
        circles.join("\n")
    );
}

#[test]
fn a_circle_between_files_of_one_folder_is_found_and_the_front_door_is_not_one() {
    let path = |text: &str| text.split('/').map(str::to_owned).collect::<Vec<_>>();
    let graph = |edges: &[(&str, &str)]| {
        let mut graph: BTreeMap<Vec<String>, BTreeSet<Vec<String>>> = BTreeMap::new();
        for (from, to) in edges {
            graph.entry(path(from)).or_default().insert(path(to));
        }
        graph
    };
    // a mod.rs (`room`) and its files import each other freely.
    let front_door = folder_imports(&graph(&[("room", "room/a"), ("room/a", "room"), ("room/a", "room/b")]));
    assert!(front_door.values().all(|graph| circle(graph).is_none()));
    // Two files beside each other, one through a subfolder's file, make a circle.
    let folders = folder_imports(&graph(&[("room/a", "room/b/c"), ("room/b/d", "room/a")]));
    assert_eq!(circle(&folders[&path("room")]), Some(vec!["a".to_owned(), "b".to_owned(), "a".to_owned()]));
}

#[test]
fn paths_are_read_from_every_root_and_group() {
    let text =
        "use super::a::{b, c::{d, e}};\nuse self::f;\nlet x = crate::g::h();\nuse super::*;\nlet y = my_crate::z;";
    let paths: Vec<(&str, String)> =
        named_paths(text).into_iter().map(|(root, path)| (root, path.join("::"))).collect();
    assert_eq!(
        paths,
        [
            ("crate", "g::h".to_owned()),
            ("super", "a::b".to_owned()),
            ("super", "a::c::d".to_owned()),
            ("super", "a::c::e".to_owned()),
            ("super", "*".to_owned()),
            ("self", "f".to_owned())
        ]
    );
}

fn level(module: &str) -> u8 {
    GROUND_LEVELS.iter().find(|(name, _)| *name == module).map(|(_, level)| *level).unwrap_or_else(|| {
        panic!("`{module}` stands on the ground floor without a level: add it to GROUND_LEVELS in tests/it/floors.rs (and docs/ARCHITECTURE.md)")
    })
}

#[test]
fn the_ground_floor_stands_on_its_real_levels() {
    let ground: BTreeSet<&str> = FLOORS.iter().filter(|(_, floor)| *floor == 1).map(|(name, _)| *name).collect();
    let levelled: BTreeSet<&str> = GROUND_LEVELS.iter().map(|(name, _)| *name).collect();
    assert_eq!(ground, levelled, "the ground floor's modules and GROUND_LEVELS differ");
    let graph = imports();
    let wrong: Vec<String> = ground
        .iter()
        .filter_map(|module| {
            let below = graph.get(*module).into_iter().flat_map(BTreeMap::keys).filter(|name| floor(name) == 1);
            let real = 1 + below.map(|name| level(name)).max().unwrap_or(0);
            (real != level(module)).then(|| {
                format!("{module} is on level {} of the ground floor, its real level is {real}", level(module))
            })
        })
        .collect();
    assert!(wrong.is_empty(), "{}", wrong.join("\n"));
}

/// The floor table of docs/ARCHITECTURE.md: each module named in a row's second cell, with
/// the row's floor (`1.3` is level 3 of the ground floor).
fn documented_floors() -> BTreeSet<(String, u8, u8)> {
    let doc = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("docs/ARCHITECTURE.md")).unwrap();
    let section = doc.split("\n## Floors\n").nth(1).unwrap().split("\n## ").next().unwrap();
    let mut documented = BTreeSet::new();
    for row in section.lines().filter(|line| line.starts_with('|')) {
        let cells: Vec<&str> = row.split('|').map(str::trim).collect();
        let (Some(number), Some(modules)) = (cells.get(1), cells.get(2)) else { continue };
        let (floor, level) = number.split_once('.').unwrap_or((number, "0"));
        let (Ok(floor), Ok(level)) = (floor.parse::<u8>(), level.parse::<u8>()) else { continue };
        for name in modules.split('`').skip(1).step_by(2) {
            documented.insert((name.to_owned(), floor, level));
        }
    }
    documented
}

#[test]
fn architecture_md_draws_the_same_floors() {
    let tabled: BTreeSet<(String, u8, u8)> = FLOORS
        .iter()
        .map(|(name, floor)| ((*name).to_owned(), *floor, if *floor == 1 { level(name) } else { 0 }))
        .collect();
    let documented = documented_floors();
    let missing: Vec<_> = tabled.difference(&documented).collect();
    let extra: Vec<_> = documented.difference(&tabled).collect();
    assert!(
        missing.is_empty() && extra.is_empty(),
        "docs/ARCHITECTURE.md's floor table differs from FLOORS (module, floor, ground level):\nnot in the doc: {missing:?}\nonly in the doc: {extra:?}"
    );
}
