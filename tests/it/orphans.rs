//! Every committed snapshot belongs to a test that still takes it: a snapshot whose test was
//! renamed or removed would otherwise stay, never compared with anything, and keep checks
//! that read the snapshot folder (every code exercised, every quoted message seen) green.

/// `it__<module>__<name>.snap`, with `-2`, `-3`… for a test's later snapshots and `@<suffix>`
/// for a variant: the module's source file (the snapshot's own `source:` header) must still
/// name `<name>`: as the test's function, as the snapshot's given name, as a case its test
/// loops over (`"extension-not-installed"`, snapshot `extension_not_installed`), or as a
/// `format!("help_{command}")` prefix and one of the `"<command>"`s.
#[test]
fn every_snapshot_has_a_test_that_takes_it() {
    let root = crate::common::root();
    let folder = root.join("tests/it/snapshots");
    let mut orphans = Vec::new();
    let mut read = 0;
    for entry in std::fs::read_dir(&folder).unwrap() {
        let file = entry.unwrap().file_name().to_string_lossy().into_owned();
        let Some(stem) = file.strip_suffix(".snap") else {
            orphans.push(format!("{file}: not a snapshot (a .snap.new left unreviewed?)"));
            continue;
        };
        read += 1;
        let Some(name) = snapshot_name(stem) else {
            orphans.push(format!("{file}: not named `it__<module>__<name>.snap`"));
            continue;
        };
        let text = std::fs::read_to_string(folder.join(&file)).unwrap();
        let Some(source) = text.lines().find_map(|line| line.strip_prefix("source: ")) else {
            orphans.push(format!("{file}: no `source:` header"));
            continue;
        };
        let Ok(code) = std::fs::read_to_string(root.join(source.trim())) else {
            orphans.push(format!("{file}: its source `{source}` is gone"));
            continue;
        };
        if !takes(&code, name) {
            orphans.push(format!("{file}: `{source}` has no test named `{name}`"));
        }
    }
    assert!(read > 100, "only {read} snapshots read from {}", folder.display());
    assert!(orphans.is_empty(), "snapshots no test takes (delete them):\n{}", orphans.join("\n"));
}

/// `<name>` of `it__<module>__<name>` (a later snapshot's `-N` and a variant's `@<suffix>`
/// taken off).
fn snapshot_name(stem: &str) -> Option<&str> {
    let name = stem.strip_prefix("it__")?.rsplit_once("__")?.1;
    let name = name.split_once('@').map_or(name, |(name, _)| name);
    let numbered = name.rsplit_once('-').filter(|(_, number)| number.parse::<u32>().is_ok());
    Some(numbered.map_or(name, |(base, _)| base))
}

/// Whether `code` takes a snapshot called `name` (see above).
fn takes(code: &str, name: &str) -> bool {
    let quoted = |text: &str| code.contains(&format!("\"{text}\""));
    if names(code, name) || quoted(&name.replace('_', "-")) {
        return true;
    }
    let prefixes = regex::Regex::new(r#"format!\("([A-Za-z_]+)\{"#).unwrap();
    prefixes
        .captures_iter(code)
        .any(|prefix| name.strip_prefix(&prefix[1]).is_some_and(|rest| quoted(rest) || quoted(&rest.replace('_', "-"))))
}

/// Whether `code` has `name` as a whole word: a function, or a snapshot's given name.
fn names(code: &str, name: &str) -> bool {
    code.match_indices(name).any(|(at, _)| {
        let word = |c: char| c.is_alphanumeric() || c == '_';
        let before = code[..at].chars().next_back().is_none_or(|c| !word(c));
        let after = code[at + name.len()..].chars().next().is_none_or(|c| !word(c));
        before && after
    })
}

#[test]
fn a_snapshot_name_is_read_from_its_file_name() {
    assert_eq!(snapshot_name("it__validate__agent_below"), Some("agent_below"));
    assert_eq!(
        snapshot_name("it__ci_output__concise_is_one_line_per_finding-3"),
        Some("concise_is_one_line_per_finding")
    );
    assert_eq!(snapshot_name("it__cli__help_validate"), Some("help_validate"));
    assert_eq!(snapshot_name("it__test_command__a_failing_test@node20"), Some("a_failing_test"));
    assert_eq!(snapshot_name("validate__x"), None);
    assert!(takes("for c in [\"validate\"] { assert_snapshot!(format!(\"help_{c}\"), x) }", "help_validate"));
    assert!(takes("for case in [\"not-installed\"] {", "not_installed"));
    assert!(!takes("fn help_validate_it() {}", "help_validate"));
    assert!(names("fn agent_below() {", "agent_below"));
    assert!(!names("fn agent_below_it() {", "agent_below"));
}
