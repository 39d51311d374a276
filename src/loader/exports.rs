//! The names one module exports, read from its own text as Node links an
//! `import { name } from …` of it: an ES module's `export` statements, and for CommonJS
//! what Node's `cjs-module-lexer` can detect (`exports.x = …`, `module.exports = { … }`,
//! `Object.defineProperty(exports, "x", …)`, and the re-exports `module.exports =
//! require(…)` and `__exportStar(require(…), exports)`).
//!
//! For CommonJS this reads more than the lexer does (any value in `module.exports = { … }`,
//! any getter), so every name Node finds is found here: a name missing from these is
//! missing in Node. Where the names cannot be known (a computed `exports[key]`, `exports`
//! handed to a function), the module is [`OwnExports::open`] and no import of it is judged.
//! What the re-exported modules add is [`super::link`]'s business.

use oxc::ast::ast::{
    Argument, AssignmentExpression, AssignmentTarget, CallExpression, Declaration, ExportDefaultDeclarationKind,
    Expression, ModuleExportName, ObjectPropertyKind, Program, PropertyKey, SimpleAssignmentTarget, Statement,
};
use oxc::ast_visit::{Visit, walk};
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

/// The exports of `program`, which Node runs as `format` (for TypeScript: the program with
/// its types stripped, before any lowering to CommonJS; TypeScript's own type exports are
/// skipped either way).
pub fn own_exports(program: &Program, format: ModuleFormat) -> OwnExports {
    let mut own = OwnExports::default();
    for statement in &program.body {
        module_syntax(statement, &mut own);
    }
    // Every form the lexer reads names `exports`: a module whose text never does (most
    // TypeScript, whose `export`s are lowered later) need not be walked.
    if format == ModuleFormat::CommonJs {
        let mut commonjs = CommonJsExports { own: &mut own };
        if program.source_text.contains("exports") {
            commonjs.visit_program(program);
        } else {
            // What the compiler made of TypeScript's `export = …` is all there can be.
            for statement in &program.body {
                if let Statement::ExpressionStatement(statement) = statement
                    && let Expression::AssignmentExpression(assignment) = &statement.expression
                {
                    commonjs.visit_assignment_expression(assignment);
                }
            }
        }
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

/// What `module.exports = <value>` (or TypeScript's `export = <value>`) exports: an object
/// literal's keys and the modules it spreads, or all of a `require`d module's.
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

/// Whether `expression` is `exports` or `module.exports`.
fn is_exports(expression: &Expression) -> bool {
    match expression.get_inner_expression() {
        Expression::Identifier(id) => id.name == "exports",
        Expression::StaticMemberExpression(member) => {
            member.property.name == "exports"
                && matches!(&member.object, Expression::Identifier(object) if object.name == "module")
        }
        _ => false,
    }
}

/// The helpers compilers re-export a whole module with: `__exportStar(require("x"), exports)`
/// (tsc, tslib), `__export(require("x"))` (older tsc), `__reExport(…, require("x"), …)` (esbuild).
const RE_EXPORT_HELPERS: [&str; 3] = ["__exportStar", "__export", "__reExport"];

/// Finds every CommonJS export anywhere in a module, as the lexer does (it reads tokens,
/// not scopes, so neither does this).
struct CommonJsExports<'o> {
    own: &'o mut OwnExports,
}

impl<'a> Visit<'a> for CommonJsExports<'_> {
    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        match &it.left {
            AssignmentTarget::StaticMemberExpression(member) if is_exports(&member.object) => {
                self.own.name(&member.property.name);
            }
            AssignmentTarget::ComputedMemberExpression(member) if is_exports(&member.object) => {
                match member.expression.get_inner_expression() {
                    Expression::StringLiteral(literal) => self.own.name(&literal.value),
                    _ => self.own.open = true,
                }
            }
            target => {
                if let Some(SimpleAssignmentTarget::StaticMemberExpression(member)) =
                    target.as_simple_assignment_target()
                    && member.property.name == "exports"
                    && matches!(&member.object, Expression::Identifier(object) if object.name == "module")
                {
                    module_exports_value(&it.right, self.own);
                }
            }
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let callee = match it.callee.get_inner_expression() {
            Expression::Identifier(id) => Some(id.name.as_str()),
            Expression::StaticMemberExpression(member) => Some(member.property.name.as_str()),
            _ => None,
        };
        let arguments: Vec<Option<&Expression>> = it.arguments.iter().map(Argument::as_expression).collect();
        let hands_on_exports = arguments.iter().flatten().any(|argument| is_exports(argument));
        match callee {
            Some("defineProperty") if arguments.first().copied().flatten().is_some_and(is_exports) => {
                match arguments.get(1).copied().flatten().map(Expression::get_inner_expression) {
                    Some(Expression::StringLiteral(literal)) => self.own.name(&literal.value),
                    _ => self.own.open = true,
                }
            }
            Some(helper) if RE_EXPORT_HELPERS.contains(&helper) => {
                match arguments.iter().flatten().find_map(|argument| required(argument)) {
                    Some(specifier) => self.own.stars.push(specifier),
                    None => self.own.open = true,
                }
            }
            // `exports` handed to code that may add names to it (a UMD factory,
            // `Object.assign`): what it adds cannot be read here.
            _ if hands_on_exports => self.own.open = true,
            _ => {}
        }
        walk::walk_call_expression(self, it);
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
        own_exports(&parsed.program, format)
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
    fn module_exports_object_literals_and_re_exports() {
        let own = commonjs("module.exports = { a, b: function () {}, 'c-d': 1, ...require('./e') };\n");
        assert_eq!(
            (own.names, own.stars, own.open),
            (vec!["a".into(), "b".into(), "c-d".into()], vec!["./e".into()], false)
        );
        let own = commonjs("module.exports = require('./impl');\n");
        assert_eq!(own.stars, ["./impl"]);
        let own = commonjs("const o = { a: 1 };\nmodule.exports = o;\n");
        assert!(own.names.is_empty() && own.stars.is_empty() && !own.open, "Node finds no name in it: {own:?}");
        let own = commonjs("0 && (module.exports = { a, b });\n");
        assert_eq!(own.names, ["a", "b"], "esbuild's annotation");
    }

    #[test]
    fn what_cannot_be_read_opens_the_module() {
        for source in [
            "Object.keys(_x).forEach(function (key) { exports[key] = _x[key]; });\n",
            "Object.assign(module.exports, helpers);\n",
            "(function (factory) { factory(exports); })(function (e) { e.a = 1; });\n",
            "module.exports = { ...helpers };\n",
            "module.exports = { [name]: 1 };\n",
            "Object.defineProperty(exports, key, { value: 1 });\n",
        ] {
            assert!(commonjs(source).open, "{source}");
        }
    }

    #[test]
    fn typescript_export_assignment_exports_the_object_s_keys() {
        let own = exports_of("const a = 1, b = 2;\nexport = { a, b };\n", SourceType::ts(), ModuleFormat::CommonJs);
        assert_eq!(own.names, ["a", "b"]);
    }
}
