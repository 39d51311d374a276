//! Compiling the project's TypeScript for Node with the oxc transformer: every module of
//! the project is written, type-free, to a tree under the state root that mirrors it,
//! with its import specifiers pointed where Node should look (see [`super::resolve`]).
//!
//! A module that cannot be compiled is written as one that throws the reason when
//! imported, so the runtime reports it against the hook, with the source path.

use std::path::{Path, PathBuf};

use oxc::allocator::Allocator;
use oxc::ast::ast::{
    ExportAllDeclaration, ExportFromDeclaration, Expression, ImportDeclaration, ImportExpression, StringLiteral,
};
use oxc::ast_visit::{VisitMut, walk_mut};
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::parser::Parser;
use oxc::semantic::SemanticBuilder;
use oxc::span::SourceType;
use oxc::transformer::{TransformOptions, Transformer};
use walkdir::WalkDir;

use super::resolve::Resolver;
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
/// dot-folders and the state root) into `compiled_root`, pointing SDK imports at the
/// runtime's `sdk_dir`. Returns what failed.
pub fn compile_project(
    project_root: &Path,
    compiled_root: &Path,
    sdk_dir: &Path,
) -> std::io::Result<Vec<CompileError>> {
    let project_root = &project_root.canonicalize()?;
    let resolver = Resolver { project_root, compiled_root, sdk_dir };
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
        let target = compiled_path(compiled_root, &relative);
        if let Some(parent) = target.parent() {
            std::fs::create_dir_all(parent)?;
        }
        match compile_module(&project_root.join(&relative), &relative, &source, &resolver) {
            Ok((code, map)) => {
                let map_name = format!("{}.map", target.file_name().unwrap_or_default().to_string_lossy());
                std::fs::write(&target, format!("{code}\n//# sourceMappingURL={map_name}\n"))?;
                std::fs::write(target.with_file_name(map_name), map)?;
            }
            Err(message) => {
                let thrown = serde_json::to_string(&message).unwrap_or_default();
                std::fs::write(&target, format!("throw new Error({thrown});\n"))?;
                errors.push(CompileError { path: relative, message });
            }
        }
    }
    Ok(errors)
}

fn is_declaration(path: &Path) -> bool {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    name.ends_with(".d.ts") || name.ends_with(".d.mts") || name.ends_with(".d.cts")
}

/// TypeScript or JavaScript → JavaScript and its source map (JSON). `relative` is the
/// module's path from the project root, which its imports are resolved from.
pub fn compile_module(
    source_path: &Path,
    relative: &str,
    source: &str,
    resolver: &Resolver,
) -> Result<(String, String), String> {
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
    let mut rewrite = RewriteSpecifiers { allocator: &allocator, resolver, importer: relative, error: None };
    rewrite.visit_program(&mut program);
    if let Some(error) = rewrite.error {
        return Err(error);
    }
    let options = CodegenOptions { source_map_path: Some(source_path.to_path_buf()), ..CodegenOptions::default() };
    let generated = Codegen::new().with_options(options).build(&program);
    let map = generated.map.map(|map| map.to_json_string()).unwrap_or_default();
    Ok((generated.code, map))
}

/// Points every static import and export (and literal dynamic `import()`) where
/// [`Resolver`] says.
struct RewriteSpecifiers<'a, 'r> {
    allocator: &'a Allocator,
    resolver: &'r Resolver<'r>,
    importer: &'r str,
    /// The first static import that resolves to nothing.
    error: Option<String>,
}

impl<'a> RewriteSpecifiers<'a, '_> {
    fn rewrite(&mut self, literal: &mut StringLiteral<'a>, required: bool) {
        match self.resolver.resolve(literal.value.as_str(), self.importer) {
            Ok(Some(specifier)) => {
                literal.value = self.allocator.alloc_str(&specifier).into();
                literal.raw = None;
            }
            Ok(None) => {}
            // A dynamic import that fails is the hook's to handle when it runs.
            Err(error) if required && self.error.is_none() => self.error = Some(error),
            Err(_) => {}
        }
    }
}

impl<'a> VisitMut<'a> for RewriteSpecifiers<'a, '_> {
    fn visit_import_declaration(&mut self, it: &mut ImportDeclaration<'a>) {
        self.rewrite(&mut it.source, true);
    }

    fn visit_export_all_declaration(&mut self, it: &mut ExportAllDeclaration<'a>) {
        self.rewrite(&mut it.source, true);
    }

    fn visit_export_from_declaration(&mut self, it: &mut ExportFromDeclaration<'a>) {
        self.rewrite(&mut it.source, true);
    }

    fn visit_import_expression(&mut self, it: &mut ImportExpression<'a>) {
        if let Expression::StringLiteral(literal) = &mut it.source {
            self.rewrite(literal, false);
        }
        walk_mut::walk_import_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_types_and_keeps_esm() {
        let resolver =
            Resolver { project_root: Path::new("/p"), compiled_root: Path::new("/c"), sdk_dir: Path::new("/r/sdk") };
        let (code, map) = compile_module(
            Path::new("/p/bot/hooks/x.ts"),
            "bot/hooks/x.ts",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nenum E { A }\nconst n: number = 1;\nexport default defineHook({ events: {} }) as const;\n",
            &resolver,
        )
        .unwrap();
        assert!(code.contains("import { defineHook } from \"file:///r/sdk/hooks.mjs\""), "{code}");
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
