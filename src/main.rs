//! The `agent-sdk` binary (also installed as `bdk`): everything lives in the library.

fn main() -> std::process::ExitCode {
    agent_sdk::main()
}
