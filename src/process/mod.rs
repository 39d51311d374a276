//! This process as others see it: the binary it was started from, which the processes it
//! starts run again ([`running_binary`]), and how the user runs it, for the commands its
//! hints suggest ([`invocation`]).

pub mod invocation;
pub mod running_binary;
