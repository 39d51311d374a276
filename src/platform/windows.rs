//! The Windows side of [`crate::platform`]: what the hook runtime needs has another design
//! there (docs/ARCHITECTURE.md, "Platforms"), so each part says it is not supported yet.

use std::fs::File;

use super::Unsupported;

/// Windows would share the handler slot as a named file mapping; not written yet.
pub fn anonymous_file(_name: &std::ffi::CStr) -> std::io::Result<File> {
    Err(Unsupported("the hook runtime's handler slot").into())
}
