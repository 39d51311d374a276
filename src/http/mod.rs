//! What every HTTP client of ours shares: the certificate authorities an HTTPS client
//! trusts ([`trust`]) and Server-Sent Events read from a byte stream ([`sse`]).

pub mod sse;
pub mod trust;
