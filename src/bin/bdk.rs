//! `bdk`: the same program as `agent-sdk`, under the name BDK users type.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    agent_sdk::main_as(agent_sdk::cli::ProgramName::Bdk)
}
