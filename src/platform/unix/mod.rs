//! The Unix side of [`crate::platform`] (Linux first; what is Linux-only says so).

pub mod channel;
pub mod files;
mod orphans;
pub mod process;
pub mod signals;
pub mod spawn;
pub mod users;
