//! Where Node keeps the code it compiled for the runtime: V8's compile cache
//! (`NODE_COMPILE_CACHE`, Node ≥ 22.1; earlier ones ignore it) in `compile-cache/` of the
//! runtime's folder, so the next runtime starts without compiling the runtime's bundle, the
//! SDK's files and the hooks again. The runtime takes the variable out of its `process.env`
//! (host.mjs): the hooks see the environment they were given.
//!
//! Node keys an entry by the module's path and never removes one, so every project folder a
//! runtime ever loaded hooks from (a test suite's temporary ones: thousands, some 14 KB each)
//! would stay in the user's cache for as long as the set is used. At most once a day, a Node
//! version's folder that holds more than [`MAX_ENTRIES`] entries, or that nothing was added to
//! for [`UNUSED_FOR`], is set aside (renamed, at once) and removed by a thread of its own, off
//! the command's way (thousands of files take seconds to remove); what a command ending first
//! left, the next command that starts a runtime goes on removing. Node compiles into a fresh
//! folder at its next start.

use std::ffi::OsString;
use std::path::Path;
use std::time::{Duration, SystemTime};

/// The compile cache's folder in the runtime's folder.
pub const FOLDER: &str = "compile-cache";

/// The entries a Node version's folder may hold: the modules of a few dozen projects with
/// their packages.
const MAX_ENTRIES: usize = 4096;

/// A Node version's folder nothing was added to for this long is removed (a Node no longer
/// used, or entries that would all be compiled again in one start).
const UNUSED_FOR: Duration = Duration::from_secs(30 * 24 * 60 * 60);

/// How often the folders are looked at: the time of [`TRIMMED`] says when they last were.
const TRIM_EVERY: Duration = Duration::from_secs(24 * 60 * 60);
const TRIMMED: &str = ".trimmed";

/// `vars` with `NODE_COMPILE_CACHE` naming `folder`, unless they say where Node's compile
/// cache goes or that it is off (`NODE_COMPILE_CACHE`, `NODE_DISABLE_COMPILE_CACHE`): that
/// is the user's to say.
pub fn with_compile_cache(mut vars: Vec<(OsString, OsString)>, folder: &Path) -> Vec<(OsString, OsString)> {
    let said = |name: &str| vars.iter().any(|(named, _)| named == name);
    if !said("NODE_COMPILE_CACHE") && !said("NODE_DISABLE_COMPILE_CACHE") {
        vars.push(("NODE_COMPILE_CACHE".into(), folder.as_os_str().to_owned()));
    }
    vars
}

/// Keeps the compile cache of the runtime in `runtime_dir` within its bounds (see above):
/// one listing of the cache's few folders, and once a day one of each Node version's folder.
/// What cannot be read or removed is left as it is: the cache only ever saves time.
pub fn trim(runtime_dir: &Path) {
    trim_at(&runtime_dir.join(FOLDER), SystemTime::now(), MAX_ENTRIES);
}

/// [`trim`] of the compile cache `folder` as of `now`: the thread removing what was set
/// aside, if anything was.
fn trim_at(folder: &Path, now: SystemTime, max_entries: usize) -> Option<std::thread::JoinHandle<()>> {
    let trimmed = folder.join(TRIMMED);
    let look = !modified_within(&trimmed, now, TRIM_EVERY);
    let mut aside = Vec::new();
    for version in std::fs::read_dir(folder).ok()?.flatten() {
        if !version.file_type().is_ok_and(|kind| kind.is_dir()) {
            continue;
        }
        let (path, name) = (version.path(), version.file_name());
        // Node names its folders after its version; a dot-folder is one set aside before.
        if name.as_encoded_bytes().starts_with(b".") {
            aside.push(path);
        } else if look && (!modified_within(&path, now, UNUSED_FOR) || holds_more(&path, max_entries)) {
            let mut set_aside = OsString::from(format!(".removing-{}-", std::process::id()));
            set_aside.push(&name);
            let set_aside = folder.join(set_aside);
            if std::fs::rename(&path, &set_aside).is_ok() {
                aside.push(set_aside);
            }
        }
    }
    if look {
        let _ = std::fs::File::create(&trimmed).and_then(|file| file.set_modified(now));
    }
    if aside.is_empty() {
        return None;
    }
    let removing = move || aside.iter().for_each(|path| drop(std::fs::remove_dir_all(path)));
    std::thread::Builder::new().name("agent-sdk-compile-cache".to_owned()).spawn(removing).ok()
}

/// Whether the folder at `path` holds more than `max` entries.
fn holds_more(path: &Path, max: usize) -> bool {
    std::fs::read_dir(path).is_ok_and(|entries| entries.take(max + 1).count() > max)
}

/// Whether `path` was modified less than `age` before `now`.
fn modified_within(path: &Path, now: SystemTime, age: Duration) -> bool {
    std::fs::metadata(path)
        .and_then(|metadata| metadata.modified())
        .is_ok_and(|modified| now.duration_since(modified).map_or(true, |since| since < age))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pair(name: &str, value: &str) -> (OsString, OsString) {
        (OsString::from(name), OsString::from(value))
    }

    #[test]
    fn the_compile_cache_is_the_runtime_s_unless_the_user_says_where_or_that_it_is_off() {
        let folder = Path::new("/cache/runtime/set/compile-cache");
        let given = with_compile_cache(vec![pair("PATH", "/usr/bin")], folder);
        assert_eq!(given, [pair("PATH", "/usr/bin"), pair("NODE_COMPILE_CACHE", "/cache/runtime/set/compile-cache")]);
        for own in [pair("NODE_COMPILE_CACHE", "/mine"), pair("NODE_DISABLE_COMPILE_CACHE", "1")] {
            assert_eq!(with_compile_cache(vec![own.clone()], folder), [own]);
        }
    }

    /// A Node version's folder with `entries` entries, last written `days` days before `now`.
    fn version(cache: &Path, name: &str, entries: usize, now: SystemTime, days: u64) -> std::path::PathBuf {
        let folder = cache.join(name);
        std::fs::create_dir_all(&folder).unwrap();
        for entry in 0..entries {
            std::fs::write(folder.join(format!("{entry:08x}")), "compiled").unwrap();
        }
        let written = now - Duration::from_secs(days * 24 * 60 * 60);
        std::fs::File::open(&folder).unwrap().set_modified(written).unwrap();
        folder
    }

    #[test]
    fn a_version_s_folder_grown_past_its_bound_or_unused_for_a_month_is_removed_once_a_day() {
        let cache = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        let used = version(cache.path(), "v24.21.0-x64-1-0", 4, now, 1);
        let grown = version(cache.path(), "v22.23.3-x64-2-0", 5, now, 0);
        let unused = version(cache.path(), "v20.20.2-x64-3-0", 1, now, 31);
        let removing = trim_at(cache.path(), now, 4).expect("two folders set aside");
        assert!(used.is_dir(), "within its bound and in use");
        assert!(!grown.exists(), "past its bound: set aside at once");
        assert!(!unused.exists(), "unused for a month: set aside at once");
        removing.join().unwrap();
        let left: Vec<_> = std::fs::read_dir(cache.path()).unwrap().map(|entry| entry.unwrap().file_name()).collect();
        assert_eq!(left.len(), 2, "the used folder and the stamp, nothing set aside: {left:?}");

        // Looked at again only a day later.
        let grown = version(cache.path(), "v22.23.3-x64-2-0", 5, now, 0);
        assert!(trim_at(cache.path(), now + Duration::from_secs(3600), 4).is_none());
        assert!(grown.is_dir(), "an hour later, not looked at");
        trim_at(cache.path(), now + Duration::from_secs(25 * 3600), 4).unwrap().join().unwrap();
        assert!(!grown.exists(), "a day later, removed");
        assert!(used.is_dir());
    }

    /// A folder set aside by a command that ended before its removal did is removed by the
    /// next one, whether or not it is the day's look.
    #[test]
    fn what_a_command_set_aside_and_left_the_next_one_removes() {
        let cache = tempfile::tempdir().unwrap();
        let now = SystemTime::now();
        std::fs::File::create(cache.path().join(TRIMMED)).unwrap().set_modified(now).unwrap();
        let left = version(cache.path(), ".removing-1-v24.21.0-x64-1-0", 3, now, 0);
        let grown = version(cache.path(), "v22.23.3-x64-2-0", 5, now, 0);
        trim_at(cache.path(), now, 4).unwrap().join().unwrap();
        assert!(!left.exists());
        assert!(grown.is_dir(), "not the day's look");
    }

    #[test]
    fn no_compile_cache_yet_is_nothing_to_trim() {
        let runtime = tempfile::tempdir().unwrap();
        trim(runtime.path());
        assert!(!runtime.path().join(FOLDER).exists(), "nothing made for a cache Node has not made");
    }
}
