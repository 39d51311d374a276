//! Reading one hook module from disk: only regular files, only UTF-8 text, only up to a size
//! limit; an editor's unsaved text of one is held to the same limit and the same findings.

use std::io::Read;
use std::path::Path;

use crate::diagnostics::{Code, Diagnostic};
use crate::text::io_error;

/// The largest hook module `validate` reads. Real hooks are a few kilobytes; anything this
/// big is generated or a mistake, and reading it would dominate the whole check.
pub const MAX_HOOK_BYTES: u64 = 1024 * 1024;

/// The text of the hook module at `path`, or why it cannot be checked.
pub fn read_hook(path: &Path, display: &str) -> Result<String, Box<Diagnostic>> {
    let unreadable = unreadable(display);
    let io_error = |error: std::io::Error| {
        unreadable(io_error::describe(&error), "make sure the file exists and is readable by this user")
    };
    let not_a_file = || {
        unreadable(
            "it is not a regular file".to_owned(),
            "a hook module must be a regular file; rename or move this one out of `hooks/`",
        )
    };
    // Opened without waiting (a FIFO would block until someone writes to it), then asked
    // what it is: one path lookup. What cannot be opened (a socket, a file this user may not
    // read) is looked up by its path for the reason.
    let file = match crate::platform::files::open_to_inspect(path) {
        Ok(file) => file,
        Err(error) => {
            return Err(match std::fs::metadata(path) {
                Ok(metadata) if !metadata.is_file() => not_a_file(),
                _ => io_error(error),
            });
        }
    };
    let metadata = file.metadata().map_err(io_error)?;
    if !metadata.is_file() {
        return Err(not_a_file());
    }
    if metadata.len() > MAX_HOOK_BYTES {
        return Err(too_large(metadata.len(), &unreadable));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // The file as it was when asked its size (a file that grows meanwhile is read up to
    // that, within the limit), with no read past its end to find it.
    file.take(metadata.len()).read_to_end(&mut bytes).map_err(io_error)?;
    let text = String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        unreadable(
            format!("it is not UTF-8 text (invalid byte at offset {offset})"),
            "save the file as UTF-8; if it is not source code, move it out of `hooks/`",
        )
    })?;
    refuse_binary(text, &unreadable)
}

/// The text of the hook module at `path`: the editor's unsaved `unsaved` when it holds one
/// (refused as the file would be: over [`MAX_HOOK_BYTES`], or binary), else the file's.
pub fn read_hook_or_unsaved(path: &Path, display: &str, unsaved: Option<String>) -> Result<String, Box<Diagnostic>> {
    let Some(text) = unsaved else { return read_hook(path, display) };
    let unreadable = unreadable(display);
    if text.len() as u64 > MAX_HOOK_BYTES {
        return Err(too_large(text.len() as u64, &unreadable));
    }
    refuse_binary(text, &unreadable)
}

/// The finding of a hook module at `display` that cannot be read, of its reason and help.
fn unreadable(display: &str) -> impl Fn(String, &str) -> Box<Diagnostic> + '_ {
    move |reason, help| {
        Box::new(Diagnostic::new(Code::Unreadable, format!("cannot be read: {reason}"), help).with_path(display))
    }
}

fn refuse_binary(
    text: String,
    unreadable: &impl Fn(String, &str) -> Box<Diagnostic>,
) -> Result<String, Box<Diagnostic>> {
    if text.contains('\0') {
        return Err(unreadable(
            "it looks like a binary file (it contains NUL bytes)".to_owned(),
            "hook modules are TypeScript or JavaScript source; move this file out of `hooks/`",
        ));
    }
    Ok(text)
}

fn too_large(len: u64, unreadable: &impl Fn(String, &str) -> Box<Diagnostic>) -> Box<Diagnostic> {
    const MIB: f64 = 1024.0 * 1024.0;
    unreadable(
        format!(
            "it is {:.1} MiB, over the {:.0} MiB limit for a hook module",
            len as f64 / MIB,
            MAX_HOOK_BYTES as f64 / MIB
        ),
        "a hook is a small module: move generated data out of `hooks/` and import it instead",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unsaved_text_is_refused_as_the_file_would_be() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.ts");
        let big = format!("// {}\n", "x".repeat(MAX_HOOK_BYTES as usize));
        std::fs::write(&path, &big).unwrap();
        let from_disk = read_hook(&path, "bot/hooks/big.ts").unwrap_err();
        let unsaved = read_hook_or_unsaved(Path::new("/nowhere.ts"), "bot/hooks/big.ts", Some(big)).unwrap_err();
        assert_eq!(
            (unsaved.code, &unsaved.message, &unsaved.help),
            (from_disk.code, &from_disk.message, &from_disk.help)
        );
        assert_eq!(unsaved.message, "cannot be read: it is 1.0 MiB, over the 1 MiB limit for a hook module");
        let binary = read_hook_or_unsaved(&path, "bot/hooks/big.ts", Some("a\0b".to_owned())).unwrap_err();
        assert!(binary.message.contains("NUL bytes"), "{}", binary.message);
        let small = read_hook_or_unsaved(&path, "bot/hooks/big.ts", Some("export {};\n".to_owned()));
        assert_eq!(small.unwrap(), "export {};\n");
    }
}
