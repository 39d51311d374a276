//! I/O errors in a user's words: what every "cannot be read" message says after the path.

/// `EMFILE` (this process) and `ENFILE` (the whole system): the same numbers on Linux and
/// on the BSDs, macOS included.
const OUT_OF_DESCRIPTORS: [i32; 2] = [24, 23];

/// Whether the process (or the system) has no file descriptor to spare: the error of a
/// moment, not a fact about the file or the connection at hand.
pub fn is_out_of_descriptors(error: &std::io::Error) -> bool {
    error.raw_os_error().is_some_and(|code| OUT_OF_DESCRIPTORS.contains(&code))
}

/// An I/O error in a user's words, without the OS error number.
pub fn describe(error: &std::io::Error) -> String {
    use std::io::ErrorKind;
    match error.kind() {
        ErrorKind::NotFound => "it does not exist (or is a broken link)".to_owned(),
        ErrorKind::PermissionDenied => "permission denied".to_owned(),
        ErrorKind::InvalidFilename => "its path is too long".to_owned(),
        _ => {
            let text = error.to_string();
            text.split(" (os error").next().unwrap_or(&text).to_owned()
        }
    }
}
