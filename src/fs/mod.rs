//! Files written the way this tool writes them: private folders for the state root,
//! whole-file replacement (a reader never sees half a file), and writes skipped when the
//! file already holds the text; JSON files as Node reads them; links out of a folder.

pub mod json;
pub mod link_out;

use std::io::Write;
use std::path::Path;

/// Creates the folder `path` and any missing parent with mode 0700 (less the umask): the
/// state root holds the event log, the hooks' files and the dev token, for this user
/// only. A folder that already exists keeps its mode: a user's own choice is not undone.
pub fn create_private_dir_all(path: &Path) -> std::io::Result<()> {
    use std::os::unix::fs::DirBuilderExt;
    std::fs::DirBuilder::new().recursive(true).mode(0o700).create(path)
}

/// Writes `bytes` to a fresh temporary file beside `path`, then renames it over `path`.
pub fn write_atomically(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    static COUNTER: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
    let unique = COUNTER.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let temporary = path.with_extension(format!("tmp-{}-{unique}", std::process::id()));
    let written = std::fs::File::create(&temporary).and_then(|mut file| file.write_all(bytes));
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
