//! Text as we put it in front of a person: text we did not write made safe to print
//! ([`untrusted`]), I/O errors in a user's words ([`io_error`]), and paths and URLs written
//! as URIs, a URL quoted without its user name and password ([`uri`]).

pub mod io_error;
pub mod untrusted;
pub mod uri;
