//! Files written the way this tool writes them: private folders for the state root,
//! whole-file replacement (a reader never sees half a file; a user's file keeps its owner),
//! and writes skipped when the file already holds the text; JSON files as Node reads them;
//! links out of a folder; who owns a file.

pub mod json;
pub mod link_out;
pub mod owner;

use std::io::Write;
use std::path::Path;

/// `path` relative to `base`, with `/` between its parts on every OS, as reports and the
/// runtime name a file; `None` when `path` is not under `base`.
pub fn relative_slashed(path: &Path, base: &Path) -> Option<String> {
    let relative = path.strip_prefix(base).ok()?;
    Some(relative.components().map(|part| part.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/"))
}

/// Creates the folder `path` and any missing parent with mode 0700 (less the umask): the
/// state root holds the event log, the hooks' files and the dev token, for this user
/// only. A folder that already exists keeps its mode: a user's own choice is not undone.
pub fn create_private_dir_all(path: &Path) -> std::io::Result<()> {
    crate::platform::files::create_private_dir_all(path)
}

/// Writes `bytes` to a fresh temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    write_then_rename(path, bytes, |_| Ok(()))
}

/// [`write_atomically`] over the file `path` whose metadata is `like`, the new file given
/// its permissions and, where the system permits (root may give a file to anyone, others
/// only to a group they are in), its owner and group before it takes the old one's place:
/// a file root rewrites stays its owner's.
pub fn replace_keeping_owner(path: &Path, bytes: &[u8], like: &std::fs::Metadata) -> std::io::Result<()> {
    write_then_rename(path, bytes, |file| crate::platform::files::take_owner_and_mode(file, like))
}

/// Writes `bytes` over the file at `path` in place, for a file with more than one name (a
/// hard link), which a rename would cut off from the others. It is written over from its
/// start and then cut to length (the blocks it has are reused, so a full disk can stop
/// only a file that grows); if that fails, `original` (what it held) is put back.
pub fn overwrite_in_place(path: &Path, bytes: &[u8], original: &[u8]) -> std::io::Result<()> {
    use std::io::{Seek, SeekFrom};
    let mut file = std::fs::OpenOptions::new().write(true).open(path)?;
    let mut write = |bytes: &[u8]| -> std::io::Result<()> {
        file.seek(SeekFrom::Start(0))?;
        file.write_all(bytes)?;
        file.set_len(bytes.len() as u64)
    };
    write(bytes).inspect_err(|_| {
        let _ = write(original);
    })
}

/// Writes `bytes` to a fresh temporary file beside `path`, hands it to `prepare`, then
/// renames it over `path`; the temporary file is removed if any step fails.
fn write_then_rename(
    path: &Path,
    bytes: &[u8],
    prepare: impl FnOnce(&std::fs::File) -> std::io::Result<()>,
) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = path.with_extension(format!("tmp-{}-{unique}", std::process::id()));
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        file.write_all(bytes)?;
        prepare(&file)
    });
    if let Err(error) = written.and_then(|()| std::fs::rename(&temporary, path)) {
        let _ = std::fs::remove_file(&temporary);
        return Err(error);
    }
    Ok(())
}

/// Writes `text` to `path` unless it already holds exactly that, so a second run writes
/// nothing (one read per file); a write replaces the file whole, since another process (a
/// second agent-sdk, an editor, `tsc`) may be reading it. A missing folder is made with
/// `create_folder` (only then). Returns whether it wrote.
pub fn write_if_changed(
    path: &Path,
    text: &str,
    create_folder: fn(&Path) -> std::io::Result<()>,
) -> std::io::Result<bool> {
    if std::fs::read(path).is_ok_and(|existing| existing == text.as_bytes()) {
        return Ok(false);
    }
    match write_atomically(path, text.as_bytes()) {
        Err(error) if error.kind() == std::io::ErrorKind::NotFound => {
            create_folder(path.parent().unwrap_or(Path::new(".")))?;
            write_atomically(path, text.as_bytes())?;
        }
        written => written?,
    }
    Ok(true)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[cfg(unix)]
    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::{MetadataExt, PermissionsExt};
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.ts");
        std::fs::write(&path, "old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        let before = std::fs::metadata(&path).unwrap();
        replace_keeping_owner(&path, b"new", &before).unwrap();
        let after = std::fs::metadata(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        assert_eq!(after.permissions().mode() & 0o777, 0o640);
        assert_eq!((after.uid(), after.gid()), (before.uid(), before.gid()));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1, "a temporary file is left");
    }

    #[test]
    fn a_file_overwritten_in_place_stays_one_file_and_is_cut_to_length() {
        let dir = tempfile::tempdir().unwrap();
        let (path, other) = (dir.path().join("a.ts"), dir.path().join("b.ts"));
        std::fs::write(&path, "a longer text").unwrap();
        std::fs::hard_link(&path, &other).unwrap();
        overwrite_in_place(&path, b"short", b"a longer text").unwrap();
        assert_eq!(std::fs::read_to_string(&other).unwrap(), "short");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "short");
        #[cfg(unix)]
        assert_eq!(crate::platform::files::link_count(&std::fs::metadata(&path).unwrap()), 2);
    }
}
