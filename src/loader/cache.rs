//! Compiled modules under the state root (`.agent-sdk/cache/`), addressed by a hash of
//! everything that decides the output: the source text, its path (the source map names
//! it), the module format, the TypeScript options and this binary's version. An unchanged
//! module is never compiled twice; a changed one gets a new entry.
//!
//! Entries are written to a temporary file and renamed into place, so two `agent-sdk`
//! processes sharing a project never see half an entry.
//!
//! An entry's modification time is when it was last used (to the day: a hit refreshes it
//! once it is a day old, so a run of an unchanged project writes nothing), and
//! [`Cache::prune`] deletes only entries unused for long and not in use now. Another
//! process may still prune an entry a running runtime has yet to load: the runtime then
//! asks for the module again, and a missing entry is a miss.

use std::collections::HashSet;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{Duration, SystemTime};

use serde::{Deserialize, Serialize};

use super::compiled::{Compiled, Import};
use super::exports::OwnExports;
use super::resolver::{ModuleFormat, TsOptions};
use crate::state::StateRoot;

/// An open cache folder.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
}

/// What a cache entry remembers besides the code.
#[derive(Serialize, Deserialize)]
struct Entry {
    imports: Vec<Import>,
    exports: OwnExports,
    has_code: bool,
}

/// A cache hit or the result of storing: the imports, and where the code is.
#[derive(Debug, Clone)]
pub struct Cached {
    pub imports: Vec<Import>,
    /// See [`Compiled::exports`].
    pub exports: OwnExports,
    /// The compiled JavaScript file; `None` when Node runs the source as it is.
    pub code: Option<PathBuf>,
}

impl Cache {
    /// The cache of the state root `root` (created on first write).
    pub fn new(root: &StateRoot) -> Self {
        Self { dir: root.cache() }
    }

    /// The key of a module: a 128-bit hash, as 32 hex digits, of everything that decides its output.
    pub fn key(path: &Path, source: &str, format: ModuleFormat, options: &TsOptions) -> String {
        let mut hasher = xxhash_rust::xxh3::Xxh3::new();
        for part in [
            binary_stamp().as_bytes(),
            path.as_os_str().as_encoded_bytes(),
            format.as_node_str().as_bytes(),
            format!("{options:?}").as_bytes(),
            source.as_bytes(),
        ] {
            hasher.update(&(part.len() as u64).to_le_bytes());
            hasher.update(part);
        }
        format!("{:032x}", hasher.digest128())
    }

    /// The entry for `key`, if a complete one is there; it counts as used now.
    pub fn get(&self, key: &str) -> Option<Cached> {
        let mut file = std::fs::File::open(self.entry_path(key)).ok()?;
        let mut text = String::new();
        file.read_to_string(&mut text).ok()?;
        let entry: Entry = serde_json::from_str(&text).ok()?;
        let code = self.code_path(key);
        if entry.has_code && !code.is_file() {
            return None;
        }
        if file.metadata().is_ok_and(|metadata| unused_for(&metadata, USED_ONCE_A)) {
            mark_used(&file);
            if entry.has_code {
                let _ = std::fs::File::open(&code).map(|code| mark_used(&code));
            }
        }
        Some(Cached { imports: entry.imports, exports: entry.exports, code: entry.has_code.then_some(code) })
    }

    /// Stores a compiled module under `key` (code first, so an entry always has its code).
    pub fn put(&self, key: &str, compiled: &Compiled) -> std::io::Result<Cached> {
        crate::fs::create_private_dir_all(&self.dir)?;
        let code = match &compiled.code {
            Some(code) => {
                let path = self.code_path(key);
                crate::fs::write_atomically(&path, code.as_bytes())?;
                Some(path)
            }
            None => None,
        };
        let entry = Entry {
            imports: compiled.imports.clone(),
            exports: compiled.exports.clone(),
            has_code: compiled.code.is_some(),
        };
        crate::fs::write_atomically(&self.entry_path(key), serde_json::to_string(&entry)?.as_bytes())?;
        Ok(Cached { imports: compiled.imports.clone(), exports: compiled.exports.clone(), code })
    }

    /// Deletes the entries unused for more than `max_age` (edits leave old entries behind),
    /// but never one of `in_use` (the keys of the modules the caller is about to load).
    /// Errors are ignored: a cache that cannot be tidied still works.
    pub fn prune(&self, max_age: Duration, in_use: &HashSet<String>) {
        let Ok(entries) = std::fs::read_dir(&self.dir) else { return };
        for entry in entries.flatten() {
            let path = entry.path();
            if path.extension().is_none_or(|extension| extension != "json") {
                continue;
            }
            let used = path.file_stem().and_then(|stem| stem.to_str()).is_some_and(|key| in_use.contains(key));
            let unused = entry.metadata().is_ok_and(|metadata| unused_for(&metadata, max_age));
            // The entry first: without it, its code is never used again.
            if unused && !used {
                let _ = std::fs::remove_file(&path);
                let _ = std::fs::remove_file(path.with_extension("js"));
            }
        }
    }

    fn code_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.js"))
    }

    fn entry_path(&self, key: &str) -> PathBuf {
        self.dir.join(format!("{key}.json"))
    }
}

/// How often a hit refreshes an entry's modification time: an entry is at most this much
/// older than its last use.
const USED_ONCE_A: Duration = Duration::from_secs(24 * 3600);

/// Whether the file was last modified (used) more than `age` ago.
fn unused_for(metadata: &std::fs::Metadata, age: Duration) -> bool {
    let modified = metadata.modified();
    modified.is_ok_and(|modified| SystemTime::now().duration_since(modified).is_ok_and(|since| since > age))
}

/// Marks `file` used now (its modification time); a cache that cannot be written still works.
fn mark_used(file: &std::fs::File) {
    let _ = file.set_modified(SystemTime::now());
}

/// This build of the compiler: its version and the binary's size and modification time, so
/// a new build (even of the same version) never reuses another build's output.
fn binary_stamp() -> &'static str {
    static STAMP: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    STAMP.get_or_init(|| {
        let binary = crate::process::running_binary::metadata();
        let (size, modified) = binary.map_or((0, None), |metadata| (metadata.len(), metadata.modified().ok()));
        format!("{} {size} {modified:?}", env!("CARGO_PKG_VERSION"))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::loader::resolver::ImportKind;

    #[test]
    fn entries_round_trip_and_keys_change_with_anything_that_changes_output() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(&StateRoot::of(dir.path()));
        let options = TsOptions::default();
        let key = Cache::key(Path::new("/p/a.ts"), "x", ModuleFormat::Esm, &options);
        assert_ne!(key, Cache::key(Path::new("/p/b.ts"), "x", ModuleFormat::Esm, &options));
        assert_ne!(key, Cache::key(Path::new("/p/a.ts"), "y", ModuleFormat::Esm, &options));
        assert_ne!(key, Cache::key(Path::new("/p/a.ts"), "x", ModuleFormat::CommonJs, &options));
        let legacy = TsOptions { experimental_decorators: true, ..TsOptions::default() };
        assert_ne!(key, Cache::key(Path::new("/p/a.ts"), "x", ModuleFormat::Esm, &legacy));
        assert!(cache.get(&key).is_none());
        let import = Import { specifier: "./b".into(), kind: ImportKind::Require, span: (3, 8), names: Vec::new() };
        let exports = OwnExports { names: vec!["a".into()], ..OwnExports::default() };
        let compiled = Compiled { code: Some("code".into()), imports: vec![import.clone()], exports: exports.clone() };
        cache.put(&key, &compiled).unwrap();
        let hit = cache.get(&key).unwrap();
        assert_eq!(hit.imports, vec![import]);
        assert_eq!(hit.exports, exports);
        assert_eq!(std::fs::read_to_string(hit.code.unwrap()).unwrap(), "code");
        let none_in_use = HashSet::new();
        cache.prune(Duration::from_secs(3600), &none_in_use);
        assert!(cache.get(&key).is_some(), "a fresh entry is kept");
        // File times are coarser than the clock: let the entry age measurably.
        std::thread::sleep(Duration::from_millis(20));
        cache.prune(Duration::ZERO, &HashSet::from([key.clone()]));
        assert!(cache.get(&key).is_some(), "one in use is kept, however old");
        cache.prune(Duration::ZERO, &none_in_use);
        assert!(cache.get(&key).is_none(), "an old one goes");
        assert_eq!(std::fs::read_dir(dir.path().join(".agent-sdk/cache")).unwrap().count(), 0, "with its code");
    }

    #[test]
    fn a_hit_marks_an_entry_used_once_a_day() {
        let dir = tempfile::tempdir().unwrap();
        let cache = Cache::new(&StateRoot::of(dir.path()));
        let key = Cache::key(Path::new("/p/a.ts"), "x", ModuleFormat::Esm, &TsOptions::default());
        let compiled = Compiled { code: Some("code".into()), ..Compiled::default() };
        cache.put(&key, &compiled).unwrap();
        let files = [cache.entry_path(&key), cache.code_path(&key)];
        let modified = |path: &Path| std::fs::metadata(path).unwrap().modified().unwrap();
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        let a_month_ago = SystemTime::now() - Duration::from_secs(31 * 24 * 3600);
        for path in &files {
            std::fs::File::open(path).unwrap().set_modified(an_hour_ago).unwrap();
        }
        cache.get(&key).unwrap();
        assert!(files.iter().all(|path| modified(path) == an_hour_ago), "used within the day: nothing written");
        for path in &files {
            std::fs::File::open(path).unwrap().set_modified(a_month_ago).unwrap();
        }
        cache.get(&key).unwrap();
        assert!(files.iter().all(|path| modified(path) > an_hour_ago), "used now");
        cache.prune(Duration::from_secs(30 * 24 * 3600), &HashSet::new());
        assert!(cache.get(&key).is_some(), "so not pruned");
    }
}
