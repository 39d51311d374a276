//! `dev.json`: the dev server's URL and bearer token, kept under the state root with mode
//! 0600, for `agent-sdk logs` to find a local server.

use serde::{Deserialize, Serialize};

use super::StateRoot;

/// What `agent-sdk logs` reads to find a local dev server.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct DevFile {
    pub url: String,
    pub token: String,
}

/// Writes `dev.json` readable by its owner only.
pub fn write_dev_file(root: &StateRoot, dev: &DevFile) -> anyhow::Result<()> {
    use std::io::Write;
    use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
    let path = root.dev_file();
    let mut file = std::fs::OpenOptions::new().create(true).write(true).truncate(true).mode(0o600).open(&path)?;
    // An older file may have been created with wider permissions.
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    file.write_all(serde_json::to_string_pretty(dev)?.as_bytes())?;
    Ok(())
}
