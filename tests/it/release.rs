//! The released linux-x64 binary (scripts/release-build) keeps what docs/install.md promises:
//! it starts on glibc 2.17 (no symbol of a newer glibc, no C++ library of the system's), it
//! carries no symbols, and it runs.

use std::path::PathBuf;
use std::process::Command;

use crate::common::root;

/// The oldest glibc the released binary starts on.
const PROMISED_GLIBC: (u32, u32) = (2, 17);

/// Builds the released binary (cargo makes it a no-op when nothing changed; `.ci/run` builds
/// it before the suite) and returns its path.
fn released_binary() -> PathBuf {
    let output = Command::new(root().join("scripts/release-build")).current_dir(root()).output().unwrap();
    assert!(output.status.success(), "scripts/release-build failed:\n{}", String::from_utf8_lossy(&output.stderr));
    root().join(String::from_utf8(output.stdout).unwrap().trim())
}

fn objdump(args: &[&str], binary: &PathBuf) -> String {
    let output = Command::new("objdump").args(args).arg(binary).output().expect("objdump (binutils) is on PATH");
    assert!(output.status.success(), "{}", String::from_utf8_lossy(&output.stderr));
    String::from_utf8(output.stdout).unwrap()
}

/// Each `GLIBC_x.y` version a dynamic symbol of `symbols` (`objdump -T`) asks for, with the symbol.
fn glibc_versions(symbols: &str) -> Vec<((u32, u32), String)> {
    symbols
        .lines()
        .filter_map(|line| {
            let start = line.find("GLIBC_")? + "GLIBC_".len();
            let version: String = line[start..].chars().take_while(|c| c.is_ascii_digit() || *c == '.').collect();
            let mut parts = version.split('.').map(|part| part.parse::<u32>().ok());
            let version = (parts.next()??, parts.next().flatten().unwrap_or(0));
            Some((version, line.split_whitespace().last()?.to_owned()))
        })
        .collect()
}

#[test]
fn the_released_binary_starts_on_glibc_2_17_has_no_symbols_and_runs() {
    let binary = released_binary();

    let too_new: Vec<_> = glibc_versions(&objdump(&["-T"], &binary))
        .into_iter()
        .filter(|(version, _)| *version > PROMISED_GLIBC)
        .collect();
    assert!(too_new.is_empty(), "symbols of a glibc newer than {PROMISED_GLIBC:?}: {too_new:?}");

    let needed: Vec<String> = objdump(&["-p"], &binary)
        .lines()
        .filter_map(|line| line.trim().strip_prefix("NEEDED").map(|name| name.trim().to_owned()))
        .collect();
    let systems_cxx: Vec<_> = needed.iter().filter(|name| name.contains("stdc++") || name.contains("c++")).collect();
    assert!(systems_cxx.is_empty(), "links the system's C++ library: {needed:?}");

    let sections = objdump(&["-h"], &binary);
    for section in [".symtab", ".debug_info"] {
        assert!(!sections.contains(section), "the released binary carries {section}");
    }

    let output = Command::new(&binary).arg("--version").output().unwrap();
    assert_eq!(String::from_utf8_lossy(&output.stdout), format!("agent-sdk {}\n", env!("CARGO_PKG_VERSION")));
}

#[test]
fn a_symbol_of_a_newer_glibc_is_read_as_such() {
    let symbols = "\
0000000000000000      DF *UND*\t0000000000000000 (GLIBC_2.34) __libc_start_main
0000000000000000  w   DF *UND*\t0000000000000000 (GLIBC_2.2.5) free
0000000000000000      DF *UND*\t0000000000000000  GLIBC_2.17  clock_gettime
";
    assert_eq!(
        glibc_versions(symbols),
        [((2, 34), "__libc_start_main".to_owned()), ((2, 2), "free".to_owned()), ((2, 17), "clock_gettime".to_owned())]
    );
}
