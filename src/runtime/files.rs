//! The runtime's own files (the host, its module hooks, the SDK): embedded in the binary and
//! written once per user and per content, into `runtime/<hash>/` of the user's cache
//! ([`crate::state::user_cache`]), so that a fresh checkout's first run writes none of them
//! (28 files cost a cold `run` 6 to 8 ms here, before Node could start). A set is written
//! whole into a temporary folder and renamed into place, so a folder that exists is
//! complete and is never written again; two binaries write two folders. Without a cache
//! folder one can write (no `HOME`, a read-only home), they go under the project's state
//! root as before, rewritten only where they changed.

use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use crate::state::StateRoot;

/// The runtime's files, with the SDK's ([`crate::sdk::files::sdk_files`]) under `sdk/`.
const RUNTIME_FILES: &[(&str, &str)] = &[
    // Node starts the bundle of host.mjs and its imports (tests/it/types.rs builds it); the
    // module hooks' files are here too for the loader thread and `agent-sdk test`.
    ("host.mjs", include_str!("node/generated/host.mjs")),
    ("builtin.mjs", include_str!("node/builtin.mjs")),
    ("stack-maps.mjs", include_str!("node/stack-maps.mjs")),
    ("loader.mjs", include_str!("node/loader.mjs")),
    ("module-hooks.mjs", include_str!("node/module-hooks.mjs")),
    ("on-demand.mjs", include_str!("node/on-demand.mjs")),
    ("project-modules.mjs", include_str!("node/project-modules.mjs")),
    ("test-setup.mjs", include_str!("node/test-setup.mjs")),
    ("test-results.mjs", include_str!("node/test-results.mjs")),
    ("helpers/decorate.cjs", include_str!("node/helpers/decorate.cjs")),
    ("helpers/decorateMetadata.cjs", include_str!("node/helpers/decorateMetadata.cjs")),
    ("helpers/decorateParam.cjs", include_str!("node/helpers/decorateParam.cjs")),
    ("helpers/usingCtx.cjs", include_str!("node/helpers/usingCtx.cjs")),
];

/// A set of another content (an older binary's) not used for this long is removed when a
/// new set is written: a `dev` started by that binary a month ago is the one that could
/// still read it.
const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// Every file of the runtime, by its path inside the runtime's folder.
fn files() -> Vec<(String, std::borrow::Cow<'static, str>)> {
    let own = RUNTIME_FILES.iter().map(|&(name, text)| (name.to_owned(), std::borrow::Cow::Borrowed(text)));
    let sdk = crate::sdk::files::sdk_files()
        .map(|(name, text)| (format!("{}/{name}", crate::sdk::files::RUNTIME_SDK_FOLDER), text));
    own.chain(sdk).collect()
}

/// The folder holding the runtime's files, written if they are not there yet: the user's
/// cache's set for this content, else (no cache folder can be written) `state_root`'s
/// `runtime/`. Named by its real path (the state root's is already), as Node names the file
/// it starts: host.mjs compares its compile cache's folder with the one agent-sdk gave it.
pub fn install(state_root: &StateRoot) -> std::io::Result<PathBuf> {
    let files = files();
    if let Some(cache) = crate::state::user_cache::folder()
        && let Ok(folder) = install_shared(&cache.join("runtime"), &files)
    {
        return Ok(std::fs::canonicalize(&folder).unwrap_or(folder));
    }
    let folder = state_root.runtime();
    for (name, text) in &files {
        crate::fs::write_if_changed(&folder.join(name), text, crate::fs::create_private_dir_all)?;
    }
    Ok(folder)
}

/// `<sets>/<hash of the files>/`, written whole unless it exists. Its path must be UTF-8
/// text: Node takes module paths as strings.
fn install_shared(sets: &Path, files: &[(String, std::borrow::Cow<'static, str>)]) -> std::io::Result<PathBuf> {
    let folder = sets.join(format!("{:016x}", content_hash(files)));
    if folder.to_str().is_none() {
        return Err(std::io::Error::new(std::io::ErrorKind::InvalidInput, "the cache folder's path is not UTF-8"));
    }
    if folder.join("host.mjs").is_file() {
        // Its time says it is in use (see remove_unused_sets).
        let _ = std::fs::File::open(&folder).and_then(|opened| opened.set_modified(SystemTime::now()));
        return Ok(folder);
    }
    crate::fs::create_private_dir_all(sets)?;
    let temporary = sets.join(format!(".writing-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&temporary);
    let written = files.iter().try_for_each(|(name, text)| {
        let path = temporary.join(name);
        crate::fs::create_private_dir_all(path.parent().unwrap_or(&temporary))?;
        std::fs::write(path, text.as_bytes())
    });
    let placed = written.and_then(|()| std::fs::rename(&temporary, &folder));
    if placed.is_err() {
        let _ = std::fs::remove_dir_all(&temporary);
        // Another process put the same set in place first: it is as good as ours.
        if folder.join("host.mjs").is_file() {
            return Ok(folder);
        }
        placed?;
    }
    remove_unused_sets(sets, &folder);
    Ok(folder)
}

/// Removes the sets beside `kept` (and folders left half-written) not used in [`UNUSED_FOR`]
/// (a set's modification time is set each time a runtime starts from it).
fn remove_unused_sets(sets: &Path, kept: &Path) {
    let Ok(entries) = std::fs::read_dir(sets) else { return };
    let now = SystemTime::now();
    for entry in entries.flatten() {
        let path = entry.path();
        let old = entry
            .metadata()
            .and_then(|metadata| metadata.modified())
            .is_ok_and(|modified| now.duration_since(modified).is_ok_and(|age| age > UNUSED_FOR));
        if path != kept && old {
            let _ = std::fs::remove_dir_all(path);
        }
    }
}

/// One hash of every file's path and text.
fn content_hash(files: &[(String, std::borrow::Cow<'static, str>)]) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    for (name, text) in files {
        for part in [name.as_bytes(), &[0], text.as_bytes(), &[0]] {
            hasher.update(part);
        }
    }
    hasher.digest()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(folder: &Path) -> Vec<String> {
        let mut names: Vec<String> = walk(folder)
            .into_iter()
            .map(|path| path.strip_prefix(folder).unwrap().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    fn walk(folder: &Path) -> Vec<PathBuf> {
        std::fs::read_dir(folder)
            .unwrap()
            .flatten()
            .flat_map(|entry| if entry.path().is_dir() { walk(&entry.path()) } else { vec![entry.path()] })
            .collect()
    }

    #[test]
    fn a_set_is_written_once_whole_and_found_again() {
        let cache = tempfile::tempdir().unwrap();
        let sets = cache.path().join("runtime");
        let first = install_shared(&sets, &files()).unwrap();
        let mut expected: Vec<String> = files().into_iter().map(|(name, _)| name).collect();
        expected.sort();
        assert_eq!(names(&first), expected);
        let host = first.join("host.mjs");
        std::fs::write(&host, "changed by hand").unwrap();
        assert_eq!(install_shared(&sets, &files()).unwrap(), first, "the same content, the same folder");
        assert_eq!(std::fs::read_to_string(&host).unwrap(), "changed by hand", "an existing set is not written again");
        assert_eq!(std::fs::read_dir(&sets).unwrap().count(), 1, "no temporary folder is left");
    }

    #[test]
    fn another_content_is_another_set_and_old_unused_sets_go() {
        let cache = tempfile::tempdir().unwrap();
        let sets = cache.path().join("runtime");
        let old = sets.join("00000000000000aa");
        let recent = sets.join("00000000000000bb");
        for folder in [&old, &recent] {
            std::fs::create_dir_all(folder).unwrap();
            std::fs::write(folder.join("host.mjs"), "").unwrap();
        }
        let month_ago = SystemTime::now() - UNUSED_FOR - Duration::from_secs(60);
        std::fs::File::open(&old).unwrap().set_modified(month_ago).unwrap();
        let mut changed = files();
        changed[0].1 = std::borrow::Cow::Borrowed("// another host");
        let new = install_shared(&sets, &changed).unwrap();
        assert_ne!(new, install_shared(&sets, &files()).unwrap());
        assert!(!old.exists(), "a set unused for a month is removed");
        assert!(recent.exists(), "a set used lately stays (an older binary's dev may run on it)");
    }
}
