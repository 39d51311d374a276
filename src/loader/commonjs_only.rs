//! TypeScript's CommonJS forms in a module Node runs as an ES module: `import x = require(…)`
//! and `export = …` compile to `require` and `module.exports`, which an ES module does not
//! have, so such a module would fail as it loads (tsc refuses `export =` there; it lowers
//! `import x = require(…)` with `createRequire`, which agent-sdk's compiler does not).

use std::path::Path;

use oxc::ast::ast::{Declaration, ImportOrExportKind, Program, Statement, TSModuleReference};
use oxc::span::Span;

use super::compiled::{Problem, ProblemKind};

/// The first top-level `import x = require(…)` or `export = …` of `program` (a module Node
/// runs as an ES module), as a located problem.
pub fn in_an_es_module(program: &Program, path: &Path) -> Option<Problem> {
    let file_name = path.file_name().unwrap_or_default().to_string_lossy();
    program.body.iter().find_map(|statement| {
        let (construct, span) = match statement {
            Statement::TSExportAssignment(export) => ("`export =`", export.span),
            Statement::ExportDeclaration(export) => match &export.declaration {
                Declaration::TSImportEqualsDeclaration(import) => import_require(import)?,
                _ => return None,
            },
            Statement::TSImportEqualsDeclaration(import) => import_require(import)?,
            _ => return None,
        };
        Some(Problem {
            kind: ProblemKind::Unsupported,
            span: Some((span.start, span.end)),
            message: format!(
                "{construct} is CommonJS, and Node runs `{file_name}` as an ES module (a `.mts` file, or a `.ts` file whose nearest package.json has `\"type\": \"module\"`)"
            ),
            help: "use `import … from \"…\"` and `export default …`, or rename the file to `.cts` to keep the CommonJS form".to_owned(),
        })
    })
}

/// `import x = require(…)` (a value import; `import type` is erased).
fn import_require(import: &oxc::ast::ast::TSImportEqualsDeclaration) -> Option<(&'static str, Span)> {
    let requires = matches!(import.module_reference, TSModuleReference::ExternalModuleReference(_));
    (requires && import.import_kind == ImportOrExportKind::Value).then_some(("`import … = require(…)`", import.span))
}
