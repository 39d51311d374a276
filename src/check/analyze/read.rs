//! Reading one hook module from disk: only regular files, only UTF-8 text, only up to a size limit.

use std::io::Read;
use std::path::Path;

use crate::diagnostics::{Code, Diagnostic};
use crate::io_error;

/// The largest hook module `validate` reads. Real hooks are a few kilobytes; anything this
/// big is generated or a mistake, and reading it would dominate the whole check.
pub const MAX_HOOK_BYTES: u64 = 1024 * 1024;

/// The text of the hook module at `path`, or why it cannot be checked.
pub fn read_hook(path: &Path, display: &str) -> Result<String, Box<Diagnostic>> {
    let unreadable = |reason: String, help: &str| {
        Box::new(Diagnostic::new(Code::Unreadable, format!("cannot be read: {reason}"), help).with_path(display))
    };
    let io_error = |error: std::io::Error| {
        unreadable(io_error::describe(&error), "make sure the file exists and is readable by this user")
    };
    // Checked before opening: opening a FIFO would block until someone writes to it.
    let metadata = std::fs::metadata(path).map_err(io_error)?;
    if !metadata.is_file() {
        return Err(unreadable(
            "it is not a regular file".to_owned(),
            "a hook module must be a regular file; rename or move this one out of `hooks/`",
        ));
    }
    if metadata.len() > MAX_HOOK_BYTES {
        return Err(too_large(metadata.len(), &unreadable));
    }
    let mut bytes = Vec::with_capacity(metadata.len() as usize);
    // `take` guards against a file that grew after the size check.
    std::fs::File::open(path)
        .and_then(|file| file.take(MAX_HOOK_BYTES + 1).read_to_end(&mut bytes))
        .map_err(io_error)?;
    if bytes.len() as u64 > MAX_HOOK_BYTES {
        return Err(too_large(bytes.len() as u64, &unreadable));
    }
    let text = String::from_utf8(bytes).map_err(|error| {
        let offset = error.utf8_error().valid_up_to();
        unreadable(
            format!("it is not UTF-8 text (invalid byte at offset {offset})"),
            "save the file as UTF-8; if it is not source code, move it out of `hooks/`",
        )
    })?;
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
