//! What changes when any of the agent's code does: the files of a folder and the modules
//! reached from it, with their sizes and modification times (`dev` and `test --watch` poll it).

use std::path::{Path, PathBuf};
use std::time::SystemTime;

/// Every watched file with its size and modification time: changes when anything does.
pub type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

/// Every file under `dir` (dot-entries and `node_modules` aside) and every file of `reached`.
pub fn fingerprint(dir: &Path, reached: &[PathBuf]) -> Fingerprint {
    let (files, _) = look(dir, reached);
    files
}

/// [`fingerprint`], or `None` when a folder could not be read because the process is out
/// of file descriptors: such a look misses files, and would report a change that never
/// happened.
pub fn whole_fingerprint(dir: &Path, reached: &[PathBuf]) -> Option<Fingerprint> {
    let (files, whole) = look(dir, reached);
    whole.then_some(files)
}

/// The fingerprint, and whether no folder was left unread for want of a file descriptor.
fn look(dir: &Path, reached: &[PathBuf]) -> (Fingerprint, bool) {
    let mut whole = true;
    let in_folder: Vec<PathBuf> = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            entry.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
        })
        .filter_map(|entry| {
            if let Err(problem) = &entry {
                whole &= !problem.io_error().is_some_and(crate::text::io_error::is_out_of_descriptors);
            }
            entry.ok()
        })
        .filter(|entry| entry.file_type().is_file())
        .map(|entry| entry.path().to_path_buf())
        .collect();
    let mut files: Fingerprint = in_folder
        .into_iter()
        .chain(reached.iter().cloned())
        .map(|path| match std::fs::metadata(&path) {
            Ok(metadata) => (path, metadata.len(), metadata.modified().ok()),
            Err(_) => (path, 0, None),
        })
        .collect();
    files.sort();
    files.dedup();
    (files, whole)
}
