//! A mount file's shape, read without running it: its default export is a call of a
//! factory it imports (an extension package's default export), optionally through
//! `.disableHook("…")` or `disableHook(…, "…")` with string literals. What the call
//! returns is learnt only by running it (see [`super::probe`]).

use std::collections::HashMap;

use oxc::ast::ast::{
    Argument, AssignmentTarget, BindingPattern, CallExpression, Expression, ImportDeclarationSpecifier,
    ImportOrExportKind, ModuleExportName, Program, Statement, VariableDeclarationKind,
};
use oxc::span::{GetSpan, Span};

use crate::diagnostics::{Code, Diagnostic, SourceFile};
use crate::sdk;

/// What a mount file says, as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MountShape {
    /// The factory's call (`ci({ org: "acme" })`): where a failure of the mount is shown.
    pub call: (u32, u32),
    /// The specifier the factory is imported from (`@acme/ci-triage`).
    pub factory_source: String,
    /// The hooks it disables, by their names inside the extension, each where it is written.
    pub disabled: Vec<DisabledHook>,
}

/// One name given to `disableHook`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DisabledHook {
    pub key: String,
    pub span: (u32, u32),
}

/// How a mount file is written, for the help of `extensions::not-a-mount`.
const MOUNT_EXAMPLE: &str = "import ci from \"@acme/ci-triage\"; export default ci({ org: \"acme\" });";

/// Reads the shape of the mount file `file`, parsed as `program`.
pub fn read_shape(file: &SourceFile, program: &Program) -> Result<MountShape, Box<Diagnostic>> {
    let imports = imports(program);
    let Some(export) = default_export(program) else {
        return Err(Box::new(
            Diagnostic::new(
                Code::NotAMount,
                "this mount file has no default export, so it mounts nothing",
                format!("export the extension's call as the default: `{MOUNT_EXAMPLE}`"),
            )
            .with_path(file.path),
        ));
    };
    let mut disabled = Vec::new();
    let mut expr = export.get_inner_expression();
    loop {
        let Expression::CallExpression(call) = expr else {
            return Err(not_a_mount(file, expr.span(), format!("this is {}", describe(expr))));
        };
        match what_is_called(call, &imports) {
            Called::DisableMethod(object) => {
                disabled.splice(0..0, names(file, call, 0)?);
                expr = object.get_inner_expression();
            }
            Called::DisableFunction => {
                let Some(first) = call.arguments.first().and_then(Argument::as_expression) else {
                    return Err(not_a_mount(file, call.span, "`disableHook` is given no mount".to_owned()));
                };
                disabled.splice(0..0, names(file, call, 1)?);
                expr = first.get_inner_expression();
            }
            Called::Factory(source) => {
                return Ok(MountShape { call: (call.span.start, call.span.end), factory_source: source, disabled });
            }
            Called::Other(what) => return Err(not_a_mount(file, call.callee.span(), what)),
        }
    }
}

enum Called<'a> {
    /// `<mount>.disableHook(…)`.
    DisableMethod(&'a Expression<'a>),
    /// `disableHook(<mount>, …)`, imported from the SDK.
    DisableFunction,
    /// A function imported from this specifier: the extension's factory.
    Factory(String),
    /// Anything else, said in words.
    Other(String),
}

fn what_is_called<'a>(call: &'a CallExpression<'a>, imports: &HashMap<&str, Imported>) -> Called<'a> {
    match call.callee.get_inner_expression() {
        Expression::StaticMemberExpression(member) if member.property.name == "disableHook" => {
            Called::DisableMethod(&member.object)
        }
        Expression::Identifier(id) => match imports.get(id.name.as_str()) {
            Some(imported) if imported.is_sdk_disable_hook => Called::DisableFunction,
            Some(imported) if imported.is_sdk => Called::Other(format!(
                "`{}` comes from the SDK (`{}`), not from an extension package",
                id.name, imported.source
            )),
            Some(imported) => Called::Factory(imported.source.clone()),
            None => Called::Other(format!("`{}` is not imported, so it is not an extension's factory", id.name)),
        },
        callee => Called::Other(format!("this calls {}, not a factory the file imports", describe(callee))),
    }
}

/// The string literal arguments of `call` from index `from` on: hook names.
fn names(file: &SourceFile, call: &CallExpression, from: usize) -> Result<Vec<DisabledHook>, Box<Diagnostic>> {
    let mut names = Vec::new();
    for argument in call.arguments.iter().skip(from) {
        let key = match argument.as_expression().map(Expression::get_inner_expression) {
            Some(Expression::StringLiteral(literal)) => literal.value.to_string(),
            Some(Expression::TemplateLiteral(template)) if template.expressions.is_empty() => {
                template.quasis.iter().map(|quasi| quasi.value.cooked.map_or("", |cooked| cooked.as_str())).collect()
            }
            _ => {
                let span = argument.span();
                return Err(Box::new(file.diagnostic(
                    Code::NotAMount,
                    (span.start, span.end),
                    "not a string literal",
                    "`disableHook` takes the names of hooks as string literals, so that they can be checked",
                    "write the hook's name as it is inside the extension, in quotes: `.disableHook(\"triage\")`",
                )));
            }
        };
        names.push(DisabledHook { key, span: (argument.span().start, argument.span().end) });
    }
    Ok(names)
}

struct Imported {
    source: String,
    is_sdk: bool,
    /// `disableHook` from an SDK extensions (or hooks) module.
    is_sdk_disable_hook: bool,
}

/// The module's value imports and top-level `const x = require("…")`, by local name.
fn imports<'a>(program: &'a Program<'a>) -> HashMap<&'a str, Imported> {
    let mut found = HashMap::new();
    for statement in &program.body {
        match statement {
            Statement::ImportDeclaration(import) if import.import_kind == ImportOrExportKind::Value => {
                let source = import.source.value.as_str();
                let is_sdk = sdk::SDK_PACKAGES.iter().any(|package| {
                    source == *package || source.strip_prefix(package).is_some_and(|rest| rest.starts_with('/'))
                });
                let disable_module = sdk::is_extensions_module(source) || sdk::is_hooks_module(source);
                for specifier in import.specifiers.iter().flatten() {
                    let (local, imported) = match specifier {
                        ImportDeclarationSpecifier::ImportSpecifier(named) => {
                            if named.import_kind == ImportOrExportKind::Type {
                                continue;
                            }
                            let imported = match &named.imported {
                                ModuleExportName::IdentifierName(name) => name.name.as_str(),
                                ModuleExportName::IdentifierReference(name) => name.name.as_str(),
                                ModuleExportName::StringLiteral(name) => name.value.as_str(),
                            };
                            (named.local.name.as_str(), imported)
                        }
                        ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => {
                            (default.local.name.as_str(), "default")
                        }
                        ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => continue,
                    };
                    let is_sdk_disable_hook = disable_module && imported == "disableHook";
                    found.insert(local, Imported { source: source.to_owned(), is_sdk, is_sdk_disable_hook });
                }
            }
            Statement::VariableDeclaration(declaration) if declaration.kind == VariableDeclarationKind::Const => {
                for declarator in &declaration.declarations {
                    if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&declarator.id, &declarator.init)
                        && let Some(source) = required(init)
                    {
                        let is_sdk = sdk::SDK_PACKAGES.iter().any(|package| source.starts_with(package));
                        found.insert(
                            id.name.as_str(),
                            Imported { source: source.to_owned(), is_sdk, is_sdk_disable_hook: false },
                        );
                    }
                }
            }
            _ => {}
        }
    }
    found
}

/// `require("x")` (or `require("x").default`): `x`.
fn required<'a>(expr: &'a Expression<'a>) -> Option<&'a str> {
    let expr = match expr.get_inner_expression() {
        Expression::StaticMemberExpression(member) if member.property.name == "default" => {
            member.object.get_inner_expression()
        }
        expr => expr,
    };
    let Expression::CallExpression(call) = expr else { return None };
    if !call.callee.is_specific_id("require") || call.arguments.len() != 1 {
        return None;
    }
    match call.arguments[0].as_expression()? {
        Expression::StringLiteral(literal) => Some(literal.value.as_str()),
        _ => None,
    }
}

/// The expression the module exports as its default: `export default …`, `export = …`,
/// or CommonJS's `module.exports = …` when there is no ESM default.
fn default_export<'a>(program: &'a Program<'a>) -> Option<&'a Expression<'a>> {
    let mut commonjs = None;
    for statement in &program.body {
        match statement {
            Statement::ExportDefaultDeclaration(export) => return export.declaration.as_expression(),
            Statement::TSExportAssignment(export) => return Some(&export.expression),
            Statement::ExpressionStatement(statement) => {
                if let Expression::AssignmentExpression(assignment) = &statement.expression
                    && let AssignmentTarget::StaticMemberExpression(member) = &assignment.left
                    && member.object.is_specific_id("module")
                    && member.property.name == "exports"
                {
                    commonjs = Some(&assignment.right);
                }
            }
            _ => {}
        }
    }
    commonjs
}

fn not_a_mount(file: &SourceFile, span: Span, label: String) -> Box<Diagnostic> {
    Box::new(file.diagnostic(
        Code::NotAMount,
        (span.start, span.end),
        label,
        "the default export is not an extension's call, so this file mounts nothing",
        format!("export the call of the factory the extension package exports: `{MOUNT_EXAMPLE}`"),
    ))
}

/// What an expression is, in a few words.
fn describe(expr: &Expression) -> &'static str {
    match expr {
        Expression::ObjectExpression(_) => "an object",
        Expression::ArrayExpression(_) => "an array",
        Expression::StringLiteral(_) | Expression::TemplateLiteral(_) => "a string",
        Expression::NumericLiteral(_) | Expression::BigIntLiteral(_) => "a number",
        Expression::BooleanLiteral(_) => "a boolean",
        Expression::NullLiteral(_) => "null",
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => "a function",
        Expression::ClassExpression(_) => "a class",
        Expression::Identifier(_) => "a name, not a call",
        Expression::NewExpression(_) => "a `new` expression",
        Expression::AwaitExpression(_) => "an `await`",
        _ => "an expression that is not a call",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> Result<MountShape, Box<Diagnostic>> {
        crate::check::analyze::parse_then("bot/extensions/ci.ts", text, |file, _, program| read_shape(file, &program))
            .unwrap()
    }

    #[test]
    fn a_factory_call_through_either_disable_hook() {
        let plain = shape("import ci from \"@acme/ci\";\nexport default ci({ org: \"acme\" });\n").unwrap();
        assert_eq!(plain.factory_source, "@acme/ci");
        assert!(plain.disabled.is_empty());
        let chained =
            shape("import ci from \"@acme/ci\";\nexport default ci({}).disableHook(\"a\").disableHook(`b/c`);\n")
                .unwrap();
        let keys: Vec<&str> = chained.disabled.iter().map(|hook| hook.key.as_str()).collect();
        assert_eq!(keys, ["a", "b/c"]);
        let function = shape(
            "import { disableHook } from \"@cursor/bdk/extensions\";\nimport { ci } from \"./ci.js\";\nexport default disableHook(ci({}) as any, \"x\", \"y\");\n",
        )
        .unwrap();
        assert_eq!(function.factory_source, "./ci.js");
        assert_eq!(function.disabled.len(), 2);
        let required = shape("const ci = require(\"@acme/ci\");\nmodule.exports = ci({});\n").unwrap();
        assert_eq!(required.factory_source, "@acme/ci");
    }

    #[test]
    fn anything_else_is_not_a_mount() {
        for text in [
            "export const x = 1;\n",
            "export default { hooks: {} };\n",
            "const ci = (o) => o;\nexport default ci({});\n",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: {} });\n",
            "import ci from \"@acme/ci\";\nconst name = \"a\";\nexport default ci({}).disableHook(name);\n",
        ] {
            assert_eq!(shape(text).unwrap_err().code, Code::NotAMount, "{text}");
        }
    }
}
