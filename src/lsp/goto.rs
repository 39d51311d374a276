//! Go to definition from a mount file's `disableHook("x")` to hook `x` in the extension: the
//! factory's import resolved as Node resolves it, then the key `x` of the hooks it defines
//! (`x: defineHook(…)`, `"x": …`); the extension's module itself when the key is written
//! elsewhere (built at run time, or in a module it imports).

use std::path::Path;

use lsp_types::{Location, Position, Range};

use super::text;
use crate::check::extensions::mount_file;
use crate::loader::resolver::{ImportKind, Resolver, Target};

/// Where the hook named at `position` of the mount file `path` (whose text is `source`, in the
/// project at `project_dir`, absolute with links resolved) is defined.
pub fn definition(project_dir: &Path, path: &Path, source: &str, position: Position) -> Option<Location> {
    let offset = text::offset(source, position);
    let shown = crate::loader::resolver::display_path(project_dir, path);
    let shape = crate::parse::on_a_big_enough_stack(source.len(), || {
        crate::check::analyze::parse_then(&shown, source, |file, _, program| {
            mount_file::read_shape(file, &program).ok()
        })
    })?
    .ok()??;
    let disabled =
        shape.disabled.iter().find(|hook| (hook.span.0 as usize..=hook.span.1 as usize).contains(&offset))?;
    let resolver = Resolver::new(project_dir);
    let target = resolver.resolve(path, resolver.format_of(path), &shape.factory_source, ImportKind::Static).ok()?;
    let Target::File(extension) = target else { return None };
    let extension_text = std::fs::read_to_string(&extension).ok()?;
    let range = match key_of(&extension_text, &disabled.key) {
        Some((start, end)) => text::range(&extension_text, start, end),
        None => Range::default(),
    };
    Some(Location { uri: text::uri_of(&extension), range })
}

/// The bytes of the first property key `key` in `source`: `key:`, `"key":` or `'key':`.
fn key_of(source: &str, key: &str) -> Option<(usize, usize)> {
    let is_name = |c: char| c.is_alphanumeric() || c == '_' || c == '$';
    for quote in ["\"", "'", ""] {
        let spelt = format!("{quote}{key}{quote}");
        let mut from = 0;
        while let Some(found) = source[from..].find(&spelt) {
            let start = from + found;
            let end = start + spelt.len();
            from = end;
            let bare = quote.is_empty();
            if bare && (source[..start].ends_with(is_name) || source[end..].starts_with(is_name)) {
                continue;
            }
            if source[end..].trim_start().starts_with(':') {
                return Some((start, end));
            }
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_a_key_bare_or_quoted_but_not_inside_another_name() {
        let source = "hooks: {\n  pretriage: 1,\n  triage: defineHook({}),\n  \"audit/usage\": x,\n}";
        let (start, end) = key_of(source, "triage").unwrap();
        assert_eq!(&source[start..end], "triage");
        assert!(source[..start].ends_with("  "));
        let (start, end) = key_of(source, "audit/usage").unwrap();
        assert_eq!(&source[start..end], "\"audit/usage\"");
        assert_eq!(key_of(source, "missing"), None);
    }
}
