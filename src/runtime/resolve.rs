//! Where a compiled module's imports point: decided when the project is compiled, so Node
//! needs no loader hooks (registering one costs a Node start a worker thread, ~25 ms).
//!
//! - The SDK's modules (`@cursor/bdk/hooks`, …) → the runtime's built-in modules.
//! - Relative specifiers → resolved against the *source* tree as a TypeScript user expects
//!   (`../lib/fmt`, `../lib/fmt.ts`, `../lib/fmt.js` for a `.ts` file, `../lib` for an
//!   index file), then pointed at the compiled file; a file that is not compiled (`.json`)
//!   is imported from where it is.
//! - Everything else (packages, `node:` built-ins) is left to Node: the compiled tree lives
//!   inside the project, so Node finds the project's `node_modules` above it.

use std::path::{Component, Path, PathBuf};

use crate::runtime::compile::compiled_path;
use crate::sdk;
use crate::uri::file_url;

/// What the compiler needs to resolve one module's imports.
pub struct Resolver<'p> {
    pub project_root: &'p Path,
    pub compiled_root: &'p Path,
    /// The runtime's `sdk/` folder.
    pub sdk_dir: &'p Path,
}

/// The extensions tried, in order, for a specifier written without one.
const TRY_EXTENSIONS: [&str; 6] = ["ts", "mts", "js", "mjs", "cts", "cjs"];

impl Resolver<'_> {
    /// The specifier to write in the compiled module `importer` (a source path relative
    /// to the project root), or `None` to leave it as written.
    pub fn resolve(&self, specifier: &str, importer: &str) -> Result<Option<String>, String> {
        if let Some(module) = self.sdk_module(specifier) {
            return Ok(Some(file_url(&self.sdk_dir.join(module))));
        }
        if !(specifier.starts_with("./") || specifier.starts_with("../")) {
            return Ok(None);
        }
        let importer_dir = Path::new(importer).parent().unwrap_or(Path::new(""));
        let wanted = normalize(&importer_dir.join(specifier));
        let Some(found) = self.find_source(&wanted) else {
            return Err(format!("Cannot find module \"{specifier}\" imported from {importer}"));
        };
        let relative = found.to_string_lossy().replace('\\', "/");
        if !is_compiled(&relative) {
            return Ok(Some(file_url(&self.project_root.join(&found))));
        }
        let target = compiled_path(self.compiled_root, &relative);
        let from = compiled_path(self.compiled_root, importer);
        Ok(Some(relative_specifier(from.parent().unwrap_or(self.compiled_root), &target)))
    }

    /// The runtime module for an SDK specifier.
    fn sdk_module(&self, specifier: &str) -> Option<&'static str> {
        if sdk::is_hooks_module(specifier) {
            Some("hooks.mjs")
        } else if sdk::is_memory_module(specifier) {
            Some("memory.mjs")
        } else if sdk::SDK_PACKAGES.contains(&specifier) {
            Some("index.mjs")
        } else {
            None
        }
    }

    /// The source file (relative to the project root) a relative specifier means.
    fn find_source(&self, wanted: &Path) -> Option<PathBuf> {
        let exists = |path: &Path| self.project_root.join(path).is_file();
        if exists(wanted) {
            return Some(wanted.to_path_buf());
        }
        let text = wanted.to_string_lossy();
        // `./fmt.js` written for `./fmt.ts`, as TypeScript's own resolution allows.
        for (written, source) in [(".js", ".ts"), (".mjs", ".mts"), (".cjs", ".cts")] {
            if let Some(stem) = text.strip_suffix(written) {
                let candidate = PathBuf::from(format!("{stem}{source}"));
                if exists(&candidate) {
                    return Some(candidate);
                }
            }
        }
        let with_extension = TRY_EXTENSIONS.iter().map(|extension| PathBuf::from(format!("{text}.{extension}")));
        let index = TRY_EXTENSIONS.iter().map(|extension| wanted.join(format!("index.{extension}")));
        with_extension.chain(index).find(|candidate| exists(candidate))
    }
}

/// Whether the compiler writes a compiled copy of this source file.
fn is_compiled(relative: &str) -> bool {
    let Some((_, extension)) = relative.rsplit_once('.') else { return false };
    let declaration = [".d.ts", ".d.mts", ".d.cts"].iter().any(|suffix| relative.ends_with(suffix));
    crate::discover::MODULE_EXTENSIONS.contains(&extension)
        && !declaration
        && !relative.split('/').any(|part| part == "node_modules" || part.starts_with('.'))
}

/// `a/./b/../c` → `a/c`, without touching the file system (`..` above the start is kept).
fn normalize(path: &Path) -> PathBuf {
    let mut parts: Vec<Component> = Vec::new();
    for component in path.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir if matches!(parts.last(), Some(Component::Normal(_))) => {
                parts.pop();
            }
            other => parts.push(other),
        }
    }
    parts.iter().collect()
}

/// `./x.js` or `../lib/x.js`: `target` as seen from the folder `from`.
fn relative_specifier(from: &Path, target: &Path) -> String {
    let from: Vec<_> = from.components().collect();
    let to: Vec<_> = target.components().collect();
    let common = from.iter().zip(&to).take_while(|(a, b)| a == b).count();
    let mut parts: Vec<String> = vec!["..".to_owned(); from.len() - common];
    parts.extend(to[common..].iter().map(|part| part.as_os_str().to_string_lossy().into_owned()));
    let joined = parts.join("/");
    let joined = crate::uri::encode_path(&joined);
    if joined.starts_with("..") { joined } else { format!("./{joined}") }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_specifiers_between_compiled_files() {
        assert_eq!(relative_specifier(Path::new("/c/bot/hooks"), Path::new("/c/bot/lib/fmt.js")), "../lib/fmt.js");
        assert_eq!(relative_specifier(Path::new("/c/bot/hooks"), Path::new("/c/bot/hooks/x.js")), "./x.js");
        assert_eq!(
            relative_specifier(Path::new("/c/bot/hooks/a"), Path::new("/c/bot/my lib/x.js")),
            "../../my%20lib/x.js"
        );
    }

    #[test]
    fn normalizes_lexically() {
        assert_eq!(normalize(Path::new("bot/hooks/../lib/./fmt")), Path::new("bot/lib/fmt"));
        assert_eq!(normalize(Path::new("../x")), Path::new("../x"));
    }

    #[test]
    fn only_modules_outside_dependencies_are_compiled() {
        assert!(is_compiled("bot/lib/fmt.ts"));
        assert!(!is_compiled("bot/lib/data.json"));
        assert!(!is_compiled("bot/types.d.ts"));
        assert!(!is_compiled("node_modules/x/index.js"));
    }
}
