//! How the user runs this binary, for the commands its hints suggest: `agent-sdk …`, or,
//! when a package manager started it (`npx agent-sdk`, an npm script), through that one:
//! `npx agent-sdk …`, `pnpm exec agent-sdk …`, `yarn agent-sdk …`, `bunx agent-sdk …`.

/// The command a hint names: `agent-sdk`, or how the package manager that started this
/// process runs it (it says so in `npm_config_user_agent`).
pub fn command() -> String {
    command_from(std::env::var("npm_config_user_agent").ok().as_deref())
}

/// How the package manager that started this process (else npm) installs a project's
/// dependencies.
pub fn install_command() -> String {
    install_command_from(std::env::var("npm_config_user_agent").ok().as_deref())
}

fn install_command_from(user_agent: Option<&str>) -> String {
    match manager(user_agent) {
        "pnpm" => "pnpm install",
        "yarn" => "yarn install",
        "bun" => "bun install",
        _ => "npm install",
    }
    .to_owned()
}

/// The package manager's name in `npm_config_user_agent` (`npm/10.8.2 node/v22.23.3 …`).
fn manager(user_agent: Option<&str>) -> &str {
    user_agent.and_then(|agent| agent.split('/').next()).unwrap_or_default()
}

fn command_from(user_agent: Option<&str>) -> String {
    match manager(user_agent) {
        "npm" => "npx agent-sdk",
        "pnpm" => "pnpm exec agent-sdk",
        "yarn" => "yarn agent-sdk",
        "bun" => "bunx agent-sdk",
        _ => "agent-sdk",
    }
    .to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_package_manager_runs_it_its_own_way() {
        assert_eq!(command_from(None), "agent-sdk");
        assert_eq!(command_from(Some("npm/10.8.2 node/v22.23.3 linux x64 workspaces/false")), "npx agent-sdk");
        assert_eq!(command_from(Some("pnpm/9.15.0 npm/? node/v22.23.3 linux x64")), "pnpm exec agent-sdk");
        assert_eq!(command_from(Some("yarn/1.22.22 npm/? node/v22.23.3 linux x64")), "yarn agent-sdk");
        assert_eq!(command_from(Some("")), "agent-sdk");
        assert_eq!(install_command_from(None), "npm install");
        assert_eq!(install_command_from(Some("pnpm/9.15.0 npm/? node/v22.23.3 linux x64")), "pnpm install");
    }
}
