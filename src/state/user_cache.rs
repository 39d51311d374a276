//! The user's cache folder (`$XDG_CACHE_HOME/agent-sdk/`, else `~/.cache/agent-sdk/`): where
//! the static commands (`validate`, `info`, the editor) keep what running a project's
//! extension mounts needs (the compiled modules, the runtime's files, the probe's store), so
//! that a check writes nothing into the checkout it checks.

use std::path::{Path, PathBuf};

use super::StateRoot;

/// The folder of agent-sdk's own cache, when the environment names a home for it.
pub fn folder() -> Option<PathBuf> {
    let absolute = |value: std::ffi::OsString| Some(PathBuf::from(value)).filter(|path| path.is_absolute());
    let cache = std::env::var_os("XDG_CACHE_HOME")
        .and_then(absolute)
        .or_else(|| std::env::var_os("HOME").and_then(absolute).map(|home| home.join(".cache")))?;
    Some(cache.join("agent-sdk"))
}

/// The state root a check of the project at `canonical_dir` (absolute, links resolved)
/// keeps in the user's cache: one folder per project, named after its folder and a hash of
/// its path, created on demand (mode 0700).
pub fn checks_root(canonical_dir: &Path) -> anyhow::Result<StateRoot> {
    let Some(cache) = folder() else {
        anyhow::bail!(
            "running the project's extension mounts needs a cache folder outside the project, and neither XDG_CACHE_HOME nor HOME is set to an absolute path: set one, or check with --no-exec"
        );
    };
    let path = cache.join("checks").join(project_folder_name(canonical_dir));
    StateRoot::create_at(&path).map_err(|error| {
        anyhow::Error::new(error).context(format!("could not create the cache folder {}", path.display()))
    })
}

/// `<folder name>-<16 hex digits of the path's hash>`: readable, and one per project path.
fn project_folder_name(canonical_dir: &Path) -> String {
    let hash = xxhash_rust::xxh3::xxh3_64(canonical_dir.as_os_str().as_encoded_bytes());
    let name: String = canonical_dir
        .file_name()
        .map(|name| name.to_string_lossy())
        .unwrap_or_default()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() || c == '-' || c == '_' { c } else { '_' })
        .take(40)
        .collect();
    format!("{name}-{hash:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_project_path_has_its_own_folder_named_after_it() {
        let a = project_folder_name(Path::new("/work/acme-bot"));
        let b = project_folder_name(Path::new("/other/acme-bot"));
        assert!(a.starts_with("acme-bot-") && b.starts_with("acme-bot-"), "{a} {b}");
        assert_ne!(a, b);
        assert_eq!(a, project_folder_name(Path::new("/work/acme-bot")));
        assert!(project_folder_name(Path::new("/x/a b/é")).starts_with("_-"));
        assert!(project_folder_name(Path::new("/")).starts_with('-'));
    }
}
