//! I/O errors in a user's words: what every "cannot be read" message says after the path.

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
