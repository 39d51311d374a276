//! The names one module exports, read from its own text as Node links an
//! `import { name } from …` of it: an ES module's `export` statements, and for CommonJS
//! what Node's own lexer finds. Node 24 reads a CommonJS module's names with `merve`
//! (1.2.2, the crate used here, so the answer is Node's by construction); Node 20 and 22
//! with `cjs-module-lexer` 2, of which merve is the port (the agreement test runs both):
//! exports assignments, `Object.defineProperty(exports, …)` with a value or a getter that
//! returns a name, `module.exports = { … }` up to the first property it cannot read,
//! TypeScript's and Babel's re-export helpers, and `require` re-exports.
//!
//! What the lexer does not find, Node does not export, however the module fills
//! `module.exports` at run time. Where the lexer gives up on a module (a syntax it cannot
//! read), Node exports no name from it; that is not certain enough to call an import
//! wrong here, so the module is [`OwnExports::open`] and no import of it is judged.
//! What the re-exported modules add is [`super::link`]'s business.

use oxc::ast::ast::{
    Argument, AssignmentTarget, Declaration, ExportDefaultDeclarationKind, Expression, ModuleExportName,
    ObjectPropertyKind, Program, PropertyKey, SimpleAssignmentTarget, Statement,
};
use serde::{Deserialize, Serialize};

use super::resolver::ModuleFormat;

/// What a module's own text says it exports.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct OwnExports {
    /// The names it defines itself, in source order, `default` aside.
    pub names: Vec<String>,
    /// Whether an ES module has a default export (a CommonJS module always has one).
    pub default: bool,
    /// Specifiers of the modules whose every export it exports too (`export * from`, a
    /// CommonJS re-export), in source order.
    pub stars: Vec<String>,
    /// Whether some of its names cannot be known from its text.
    pub open: bool,
}

impl OwnExports {
    fn name(&mut self, name: &str) {
        if name == "default" {
            self.default = true;
        } else if !self.names.iter().any(|known| known == name) {
            self.names.push(name.to_owned());
        }
    }
}

/// What a module is written in: Node reads JavaScript as it is; TypeScript is compiled first.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Language {
    JavaScript,
    TypeScript,
}

impl Language {
    pub fn of(path: &std::path::Path) -> Self {
        if super::resolver::is_typescript(path) { Language::TypeScript } else { Language::JavaScript }
    }
}

/// The exports of `program`, which Node runs as `format` (for TypeScript: the program with
/// its types stripped, before any lowering to CommonJS; TypeScript's own type exports are
/// skipped either way).
pub fn own_exports(program: &Program, format: ModuleFormat, written_in: Language) -> OwnExports {
    let mut own = OwnExports::default();
    for statement in &program.body {
        module_syntax(statement, &mut own);
    }
    if format != ModuleFormat::CommonJs {
        return own;
    }
    let lexed = commonjs_exports(program.source_text);
    match written_in {
        // Node's lexer reads the module as it is.
        Language::JavaScript => own.open |= lexed.open,
        // The runtime lowers it as tsc does, and what the lexer finds in that output is what
        // its `export`s say (read above) and the `module.exports = …` its `export =` became,
        // plus what the lexer finds in text without `import`s or `export`s (which it cannot
        // read: it gives up on them, and they said all there is).
        Language::TypeScript => {
            for statement in &program.body {
                if let Statement::ExpressionStatement(statement) = statement
                    && let Expression::AssignmentExpression(assignment) = &statement.expression
                    && is_module_exports(&assignment.left)
                {
                    module_exports_value(&assignment.right, &mut own);
                }
            }
        }
    }
    for name in &lexed.names {
        own.name(name);
    }
    own.stars.extend(lexed.stars);
    own.default |= lexed.default;
    own
}

/// Whether `target` is `module.exports`.
fn is_module_exports(target: &AssignmentTarget) -> bool {
    matches!(
        target.as_simple_assignment_target(),
        Some(SimpleAssignmentTarget::StaticMemberExpression(member))
            if member.property.name == "exports"
                && matches!(&member.object, Expression::Identifier(object) if object.name == "module")
    )
}

/// What Node's CommonJS lexer finds in `source`: the names the module defines, the
/// modules it re-exports (which Node follows), and whether the lexer gave up on it.
pub fn commonjs_exports(source: &str) -> OwnExports {
    let mut own = OwnExports { default: true, ..OwnExports::default() };
    // Node lexes an empty module as one without names; merve calls it an error.
    if source.trim().is_empty() {
        return own;
    }
    // merve reads one byte past the text it is given (Node's strings end in a NUL, so
    // there it reads that): the text goes with a NUL after it, a byte of ours that is no token.
    let mut terminated = String::with_capacity(source.len() + 1);
    terminated.push_str(source);
    terminated.push('\0');
    match merve::parse_commonjs(&terminated[..source.len()]) {
        Ok(analysis) => {
            for export in analysis.exports() {
                own.name(export.name);
            }
            own.stars = analysis.reexports().map(|reexport| reexport.name.to_owned()).collect();
        }
        Err(_) => own.open = true,
    }
    own
}

/// What one top-level statement adds with ES module (and TypeScript `export =`) syntax.
fn module_syntax(statement: &Statement, own: &mut OwnExports) {
    match statement {
        Statement::ExportDeclaration(export) => declared_names(&export.declaration, own),
        Statement::ExportNamedDeclaration(export) if export.export_kind.is_value() => {
            for specifier in export.specifiers.iter().filter(|specifier| specifier.export_kind.is_value()) {
                own.name(&export_name(&specifier.exported));
            }
        }
        Statement::ExportFromDeclaration(export) if export.export_kind.is_value() => {
            for specifier in export.specifiers.iter().filter(|specifier| specifier.export_kind.is_value()) {
                own.name(&export_name(&specifier.exported));
            }
        }
        Statement::ExportAllDeclaration(export) if export.export_kind.is_value() => match &export.exported {
            Some(exported) => own.name(&export_name(exported)),
            None => own.stars.push(export.source.value.to_string()),
        },
        Statement::ExportDefaultDeclaration(export) => {
            let type_only = matches!(export.declaration, ExportDefaultDeclarationKind::TSInterfaceDeclaration(_));
            own.default |= !type_only;
        }
        Statement::TSExportAssignment(assignment) => module_exports_value(&assignment.expression, own),
        _ => {}
    }
}

/// The names an `export <declaration>` defines (none for a type or a `declare`).
fn declared_names(declaration: &Declaration, own: &mut OwnExports) {
    if declaration.is_type() || declaration.declare() {
        return;
    }
    match declaration {
        Declaration::VariableDeclaration(variables) => {
            for declarator in &variables.declarations {
                for id in declarator.id.get_binding_identifiers() {
                    own.name(&id.name);
                }
            }
        }
        Declaration::TSImportEqualsDeclaration(import) if !import.import_kind.is_value() => {}
        declaration => {
            if let Some(id) = declaration.id() {
                own.name(&id.name);
            }
        }
    }
}

fn export_name(name: &ModuleExportName) -> String {
    name.name().to_string()
}

/// What TypeScript's `export = <value>` exports (`module.exports = <value>` once compiled;
/// the runtime fronts it with an ES module of these names): an object literal's keys and the
/// modules it spreads, or all of a `require`d module's.
fn module_exports_value(value: &Expression, own: &mut OwnExports) {
    match value.get_inner_expression() {
        Expression::ObjectExpression(object) => {
            for property in &object.properties {
                match property {
                    ObjectPropertyKind::ObjectProperty(property) => match property_key(&property.key) {
                        Some(key) if !property.computed || matches!(property.key, PropertyKey::StringLiteral(_)) => {
                            own.name(&key);
                        }
                        _ => own.open = true,
                    },
                    ObjectPropertyKind::SpreadProperty(spread) => match required(&spread.argument) {
                        Some(specifier) => own.stars.push(specifier),
                        None => own.open = true,
                    },
                }
            }
        }
        value => {
            if let Some(specifier) = required(value) {
                own.stars.push(specifier);
            }
            // Any other value: Node detects no names in it.
        }
    }
}

fn property_key(key: &PropertyKey) -> Option<String> {
    match key {
        PropertyKey::StaticIdentifier(id) => Some(id.name.to_string()),
        PropertyKey::StringLiteral(literal) => Some(literal.value.to_string()),
        _ => None,
    }
}

/// `"x"` of `require("x")`.
fn required(expression: &Expression) -> Option<String> {
    let Expression::CallExpression(call) = expression.get_inner_expression() else { return None };
    match (&call.callee, call.arguments.as_slice()) {
        (Expression::Identifier(callee), [Argument::StringLiteral(literal)]) if callee.name == "require" => {
            Some(literal.value.to_string())
        }
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use oxc::allocator::Allocator;
    use oxc::parser::Parser;
    use oxc::span::SourceType;

    fn exports_of(source: &str, source_type: SourceType, format: ModuleFormat) -> OwnExports {
        let allocator = Allocator::default();
        let parsed = Parser::new(&allocator, source, source_type).parse();
        assert!(parsed.diagnostics.errors().next().is_none(), "{source}");
        let language = if source_type.is_typescript() { Language::TypeScript } else { Language::JavaScript };
        own_exports(&parsed.program, format, language)
    }

    fn commonjs(source: &str) -> OwnExports {
        exports_of(source, SourceType::cjs(), ModuleFormat::CommonJs)
    }

    #[test]
    fn es_module_exports_without_types() {
        let own = exports_of(
            "export const a = 1, { b } = {};\nexport function f() {}\nexport type T = 1;\nexport interface I {}\nexport declare const d: 1;\nexport enum E { A }\nconst c = 1;\nexport { c as 'c d', type T as U };\nexport * from './x';\nexport * as ns from './y';\nexport { z } from './z';\nexport default 1;\n",
            SourceType::ts(),
            ModuleFormat::Esm,
        );
        assert_eq!(own.names, ["a", "b", "f", "E", "c d", "ns", "z"]);
        assert!(own.default);
        assert_eq!(own.stars, ["./x"]);
        assert!(!own.open);
    }

    #[test]
    fn what_tsc_emits_for_commonjs_is_read_as_node_reads_it() {
        let own = commonjs(
            "\"use strict\";\nObject.defineProperty(exports, \"__esModule\", { value: true });\nexports.b = exports.a = void 0;\nexports.a = 1;\ntslib_1.__exportStar(require(\"./strings\"), exports);\nObject.defineProperty(exports, \"twice\", { enumerable: true, get: function () { return n.twice; } });\nexports.default = 2;\n",
        );
        assert_eq!(own.names, ["__esModule", "b", "a", "twice"]);
        assert!(own.default);
        assert_eq!(own.stars, ["./strings"]);
        assert!(!own.open);
    }

    #[test]
    fn babel_re_exports_are_followed() {
        let own = commonjs(
            "var _b = require(\"./b\");\nObject.keys(_b).forEach(function (key) {\n  if (key === \"default\" || key === \"__esModule\") return;\n  if (key in exports && exports[key] === _b[key]) return;\n  Object.defineProperty(exports, key, { enumerable: true, get: function () { return _b[key]; } });\n});\n",
        );
        assert_eq!((own.names.len(), own.stars, own.open), (0, vec!["./b".to_owned()], false));
    }

    #[test]
    fn module_exports_object_literals_up_to_what_the_lexer_cannot_read() {
        let own = commonjs("module.exports = { a, b: c, 'c-d': d, ...require('./e') };\n");
        assert_eq!((own.names, own.stars), (vec!["a".into(), "b".into(), "c-d".into()], vec!["./e".into()]));
        let own = commonjs("module.exports = { a, b: function () {}, c };\n");
        assert_eq!(own.names, ["a", "b"], "Node stops at the first value that is not a name");
        let own = commonjs("module.exports = require('./impl');\n");
        assert_eq!(own.stars, ["./impl"]);
        let own = commonjs("0 && (module.exports = { a, b });\n");
        assert_eq!(own.names, ["a", "b"], "esbuild's annotation");
    }

    #[test]
    fn what_the_lexer_does_not_find_node_does_not_export() {
        for source in [
            "const o = { a: 1 };\nmodule.exports = o;\n",
            "Object.assign(module.exports, helpers);\n",
            "Object.defineProperty(exports, key, { value: 1 });\n",
            "Object.defineProperty(exports, \"g\", { enumerable: true, get });\n",
            "Object.defineProperty(exports, \"h\", { get: () => 4 });\n",
            "function f() {}\nf.callMe = f;\nmodule.exports = f;\n",
            "",
        ] {
            let own = commonjs(source);
            assert!(own.names.is_empty() && own.stars.is_empty() && own.default && !own.open, "{source}: {own:?}");
        }
    }

    #[test]
    fn what_follows_the_text_in_memory_changes_nothing() {
        let text = "const o = { a: 1 };\nexports.b = 1;\n";
        for after in ["/", "'", "`", "}"] {
            let followed = format!("{text}{after}");
            assert_eq!(commonjs_exports(&followed[..text.len()]).names, ["b"], "{after}");
        }
    }

    #[test]
    fn a_module_the_lexer_gives_up_on_is_open() {
        assert!(commonjs_exports("exports.a = `${\n").open);
    }

    #[test]
    fn typescript_run_as_commonjs_exports_what_its_exports_say() {
        let own = exports_of(
            "import { a } from './a';\nexport * from './b';\nexport const c: number = a;\n",
            SourceType::ts(),
            ModuleFormat::CommonJs,
        );
        assert_eq!((own.names, own.stars, own.open), (vec!["c".to_owned()], vec!["./b".to_owned()], false));
        let own = exports_of("const d: number = 1;\nexports.d = d;\n", SourceType::ts(), ModuleFormat::CommonJs);
        assert_eq!((own.names, own.open), (vec!["d".to_owned()], false), "no module syntax: read as Node reads it");
        let allocator = Allocator::default();
        let mut program = Parser::new(&allocator, "export type T = 1;\n", SourceType::ts()).parse().program;
        program.body.clear(); // as the compiler leaves it
        program.source_type = SourceType::cjs();
        let own = own_exports(&program, ModuleFormat::CommonJs, Language::TypeScript);
        assert!(own.names.is_empty() && !own.open, "types only: {own:?}");
    }

    #[test]
    fn typescript_export_assignment_exports_the_object_s_keys() {
        let own = exports_of("const a = 1, b = 2;\nexport = { a, b };\n", SourceType::ts(), ModuleFormat::CommonJs);
        assert_eq!(own.names, ["a", "b"]);
    }
}
