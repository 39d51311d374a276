//! Time as users type and read it: timestamps, durations and ids ([`clock`]), and the
//! `--since` ages and times the `logs` client and the `dev` server read alike ([`since`]).

pub mod clock;
pub mod since;
