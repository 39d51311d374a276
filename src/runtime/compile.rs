//! Compiling the project's TypeScript for Node with the oxc transformer: every module of
//! the project is written, type-free, to a tree under the state root that mirrors it.
//!
//! Import specifiers are left as written; the runtime's loader resolves them against the
//! source tree and answers with the compiled file (see `node/loader.mjs`).

use std::path::{Path, PathBuf};

use oxc::allocator::Allocator;
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};
use walkdir::WalkDir;

use crate::discover::MODULE_EXTENSIONS;

/// A module that could not be compiled.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CompileError {
    /// Relative to the project root, with `/`.
    pub path: String,
    pub message: String,
}

/// The compiled file for the source at `relative` (`bot/hooks/x.ts` → `bot/hooks/x.js`).
pub fn compiled_path(compiled_root: &Path, relative: &str) -> PathBuf {
    let (stem, extension) = relative.rsplit_once('.').unwrap_or((relative, "js"));
    let extension = match extension {
        "mts" | "mjs" => "mjs",
        "cts" | "cjs" => "cjs",
        _ => "js",
    };
    compiled_root.join(format!("{stem}.{extension}"))
}

/// Compiles every module of the project at `project_root` (outside `node_modules`,
/// dot-folders and the state root) into `compiled_root`. Returns what failed; the rest is written.
pub fn compile_project(project_root: &Path, compiled_root: &Path) -> std::io::Result<Vec<CompileError>> {
    std::fs::create_dir_all(compiled_root)?;
    std::fs::write(compiled_root.join("package.json"), "{ \"type\": \"module\" }\n")?;
    let mut errors = Vec::new();
    let walk = WalkDir::new(project_root).follow_links(true).into_iter().filter_entry(|entry| {
        let name = entry.file_name().to_string_lossy();
        entry.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
    });
    for entry in walk.flatten() {
        let Some(extension) = entry.path().extension().and_then(|extension| extension.to_str()) else { continue };
        if !entry.file_type().is_file() || !MODULE_EXTENSIONS.contains(&extension) || is_declaration(entry.path()) {
            continue;
        }
        let Ok(relative) = entry.path().strip_prefix(project_root) else { continue };
        let relative = relative.components().map(|c| c.as_os_str().to_string_lossy()).collect::<Vec<_>>().join("/");
        let source = match std::fs::read_to_string(entry.path()) {
            Ok(source) => source,
            Err(error) => {
                errors.push(CompileError { path: relative, message: error.to_string() });
                continue;
            }
        };
        let absolute = project_root.canonicalize()?.join(&relative);
        match compile_module(&absolute, &source) {
            Ok((code, map)) => {
                let target = compiled_path(compiled_root, &relative);
                if let Some(parent) = target.parent() {
                    std::fs::create_dir_all(parent)?;
                }
                let map_name = format!("{}.map", target.file_name().unwrap_or_default().to_string_lossy());
                std::fs::write(&target, format!("{code}\n//# sourceMappingURL={map_name}\n"))?;
                std::fs::write(target.with_file_name(map_name), map)?;
            }
            Err(message) => errors.push(CompileError { path: relative, message }),
        }
    }
    Ok(errors)
}

fn is_declaration(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
}

/// TypeScript or JavaScript → JavaScript and its source map (JSON).
pub fn compile_module(source_path: &Path, source: &str) -> Result<(String, String), String> {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(source_path).unwrap_or_else(|_| SourceType::ts());
    let parsed = Parser::new(&allocator, source, source_type).parse();
    if let Some(error) = parsed.diagnostics.errors().next() {
        return Err(error.message.to_string());
    }
    let mut program = parsed.program;
    let semantic = SemanticBuilder::new().with_enum_eval(true).build(&program);
    let scoping = semantic.semantic.into_scoping();
    let transformed = Transformer::new(&allocator, source_path, &TransformOptions::default())
        .build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.errors().next() {
        return Err(error.message.to_string());
    }
    let options = CodegenOptions { source_map_path: Some(source_path.to_path_buf()), ..CodegenOptions::default() };
    let generated = Codegen::new().with_options(options).build(&program);
    let map = generated.map.map(|map| map.to_json_string()).unwrap_or_default();
    Ok((generated.code, map))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_types_and_keeps_esm() {
        let (code, map) = compile_module(
            Path::new("/p/bot/hooks/x.ts"),
            "import { defineHook } from \"@cursor/bdk/hooks\";\nenum E { A }\nconst n: number = 1;\nexport default defineHook({ events: {} }) as const;\n",
        )
        .unwrap();
        assert!(code.contains("import { defineHook } from \"@cursor/bdk/hooks\""), "{code}");
        assert!(!code.contains(": number"), "{code}");
        assert!(map.contains("x.ts"), "{map}");
    }

    #[test]
    fn maps_extensions() {
        let root = Path::new("/c");
        assert_eq!(compiled_path(root, "bot/hooks/a.ts"), Path::new("/c/bot/hooks/a.js"));
        assert_eq!(compiled_path(root, "bot/hooks/a.mts"), Path::new("/c/bot/hooks/a.mjs"));
        assert_eq!(compiled_path(root, "bot/hooks/a.cts"), Path::new("/c/bot/hooks/a.cjs"));
    }
}
