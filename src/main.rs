//! The `agent-sdk` binary (also installed as `bdk`): everything lives in the library.

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> std::process::ExitCode {
    agent_sdk::main()
}
