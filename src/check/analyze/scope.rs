//! The module's top-level bindings, and following a name to what it is bound to.
//!
//! Only what can be known without running code: `const` initialisers, function and class
//! declarations, and imports (ESM, CommonJS `require`, and TypeScript's `import x = require(…)`
//! with the aliases `import y = x.member` made from it).

use std::collections::HashMap;

use oxc::ast::ast::{
    BindingPattern, Declaration, Expression, ImportDeclarationSpecifier, ImportOrExportKind, ModuleExportName, Program,
    Statement, TSImportEqualsDeclaration, TSModuleReference, TSTypeName, VariableDeclarationKind,
};

/// What a top-level name is bound to.
#[derive(Debug, Clone, Copy)]
pub enum Binding<'a> {
    /// `const name = init`.
    Const(&'a Expression<'a>),
    /// `function name() {}`.
    Function,
    /// `class Name {}`.
    Class,
    /// `import { imported as name } from "source"`, `const { imported: name } = require("source")`
    /// or `import name = namespace.imported` of such a namespace.
    Import { source: &'a str, source_span: (u32, u32), imported: &'a str, type_only: bool },
    /// `import * as name from "source"`, `import name from "source"`, `const name = require("source")`
    /// or `import name = require("source")`.
    Namespace { source: &'a str, source_span: (u32, u32) },
    /// `let`/`var`, destructuring, enums, namespaces: bound, but not to anything knowable.
    Opaque,
}

/// Every top-level binding of one module.
#[derive(Debug, Default)]
pub struct ModuleScope<'a> {
    bindings: HashMap<&'a str, Binding<'a>>,
}

/// How many `const` indirections are followed before giving up (`const a = b; const b = a;`).
const MAX_STEPS: usize = 32;

impl<'a> ModuleScope<'a> {
    pub fn new(program: &'a Program<'a>) -> Self {
        let mut scope = Self::default();
        for statement in &program.body {
            match statement {
                Statement::ImportDeclaration(import) => {
                    let source = import.source.value.as_str();
                    let source_span = (import.source.span.start, import.source.span.end);
                    let declaration_type_only = import.import_kind == ImportOrExportKind::Type;
                    for specifier in import.specifiers.iter().flatten() {
                        let (local, binding) = match specifier {
                            ImportDeclarationSpecifier::ImportSpecifier(specifier) => (
                                specifier.local.name.as_str(),
                                Binding::Import {
                                    source,
                                    source_span,
                                    imported: export_name(&specifier.imported),
                                    type_only: declaration_type_only
                                        || specifier.import_kind == ImportOrExportKind::Type,
                                },
                            ),
                            ImportDeclarationSpecifier::ImportDefaultSpecifier(specifier) => {
                                (specifier.local.name.as_str(), Binding::Namespace { source, source_span })
                            }
                            ImportDeclarationSpecifier::ImportNamespaceSpecifier(specifier) => {
                                (specifier.local.name.as_str(), Binding::Namespace { source, source_span })
                            }
                        };
                        // A type-only namespace import is still only a type.
                        let binding = match binding {
                            Binding::Namespace { .. } if declaration_type_only => Binding::Opaque,
                            binding => binding,
                        };
                        scope.bindings.insert(local, binding);
                    }
                }
                Statement::ExportDeclaration(export) => scope.declare(&export.declaration),
                Statement::ExportDefaultDeclaration(export) => {
                    use oxc::ast::ast::ExportDefaultDeclarationKind as Kind;
                    match &export.declaration {
                        Kind::FunctionDeclaration(function) => {
                            if let Some(id) = &function.id {
                                scope.bindings.insert(id.name.as_str(), Binding::Function);
                            }
                        }
                        Kind::ClassDeclaration(class) => {
                            if let Some(id) = &class.id {
                                scope.bindings.insert(id.name.as_str(), Binding::Class);
                            }
                        }
                        _ => {}
                    }
                }
                statement => {
                    if let Some(declaration) = statement.as_declaration() {
                        scope.declare(declaration);
                    }
                }
            }
        }
        scope
    }

    fn declare(&mut self, declaration: &'a Declaration<'a>) {
        match declaration {
            Declaration::VariableDeclaration(variables) => {
                for declarator in &variables.declarations {
                    let init = declarator.init.as_ref();
                    if let Some(source) = init.and_then(required_module) {
                        self.declare_require(&declarator.id, source);
                        continue;
                    }
                    match (&declarator.id, init) {
                        (BindingPattern::BindingIdentifier(id), Some(init))
                            if variables.kind == VariableDeclarationKind::Const =>
                        {
                            self.bindings.insert(id.name.as_str(), Binding::Const(init));
                        }
                        (pattern, _) => self.declare_opaque(pattern),
                    }
                }
            }
            Declaration::FunctionDeclaration(function) => {
                if let Some(id) = &function.id {
                    self.bindings.insert(id.name.as_str(), Binding::Function);
                }
            }
            Declaration::ClassDeclaration(class) => {
                if let Some(id) = &class.id {
                    self.bindings.insert(id.name.as_str(), Binding::Class);
                }
            }
            Declaration::TSEnumDeclaration(declaration) => {
                self.bindings.insert(declaration.id.name.as_str(), Binding::Opaque);
            }
            Declaration::TSImportEqualsDeclaration(declaration) => self.declare_import_equals(declaration),
            _ => {}
        }
    }

    /// `import x = require("m")` (what tsc compiles to `const x = require("m")`), and the
    /// aliases `import y = x` / `import y = x.member` of a namespace bound before it. A
    /// type-only one (`import type x = …`) is erased, so it binds nothing knowable.
    fn declare_import_equals(&mut self, declaration: &'a TSImportEqualsDeclaration<'a>) {
        let binding = match &declaration.module_reference {
            _ if declaration.import_kind == ImportOrExportKind::Type => Binding::Opaque,
            TSModuleReference::ExternalModuleReference(reference) => {
                let source = &reference.expression;
                Binding::Namespace { source: source.value.as_str(), source_span: (source.span.start, source.span.end) }
            }
            TSModuleReference::IdentifierReference(namespace) => match self.binding(namespace.name.as_str()) {
                Some(namespace @ Binding::Namespace { .. }) => namespace,
                _ => Binding::Opaque,
            },
            TSModuleReference::QualifiedName(name) => match &name.left {
                TSTypeName::IdentifierReference(namespace) => match self.binding(namespace.name.as_str()) {
                    Some(Binding::Namespace { source, source_span }) => {
                        Binding::Import { source, source_span, imported: name.right.name.as_str(), type_only: false }
                    }
                    _ => Binding::Opaque,
                },
                _ => Binding::Opaque,
            },
        };
        self.bindings.insert(declaration.id.name.as_str(), binding);
    }

    /// `const x = require("m")` and `const { a, b: c } = require("m")`.
    fn declare_require(&mut self, pattern: &'a BindingPattern<'a>, source: (&'a str, (u32, u32))) {
        let (source, source_span) = source;
        match pattern {
            BindingPattern::BindingIdentifier(id) => {
                self.bindings.insert(id.name.as_str(), Binding::Namespace { source, source_span });
            }
            BindingPattern::ObjectPattern(object) => {
                for property in &object.properties {
                    let imported = property.key.static_name();
                    match (&property.value, imported) {
                        (BindingPattern::BindingIdentifier(id), Some(imported)) if !property.computed => {
                            let imported = match imported {
                                std::borrow::Cow::Borrowed(name) => name,
                                std::borrow::Cow::Owned(_) => "",
                            };
                            let binding = Binding::Import { source, source_span, imported, type_only: false };
                            self.bindings.insert(id.name.as_str(), binding);
                        }
                        (value, _) => self.declare_opaque(value),
                    }
                }
                if let Some(rest) = &object.rest {
                    self.declare_opaque(&rest.argument);
                }
            }
            pattern => self.declare_opaque(pattern),
        }
    }

    fn declare_opaque(&mut self, pattern: &'a BindingPattern<'a>) {
        for id in pattern.get_binding_identifiers() {
            self.bindings.insert(id.name.as_str(), Binding::Opaque);
        }
    }

    pub fn binding(&self, name: &str) -> Option<Binding<'a>> {
        self.bindings.get(name).copied()
    }

    /// `expr` without parentheses and type assertions, with `const` names followed to
    /// their initialiser. Stops at anything else, including a name bound by an import.
    pub fn resolve(&self, expr: &'a Expression<'a>) -> &'a Expression<'a> {
        let mut expr = expr.get_inner_expression();
        for _ in 0..MAX_STEPS {
            let Expression::Identifier(id) = expr else {
                break;
            };
            let Some(Binding::Const(init)) = self.binding(id.name.as_str()) else {
                break;
            };
            expr = init.get_inner_expression();
        }
        expr
    }
}

/// `require("m")`: the module and the span of its string.
fn required_module<'a>(init: &'a Expression<'a>) -> Option<(&'a str, (u32, u32))> {
    let Expression::CallExpression(call) = init.get_inner_expression() else {
        return None;
    };
    if !call.callee.is_specific_id("require") || call.arguments.len() != 1 {
        return None;
    }
    match call.arguments[0].as_expression()? {
        Expression::StringLiteral(source) => Some((source.value.as_str(), (source.span.start, source.span.end))),
        _ => None,
    }
}

pub(super) fn export_name<'a>(name: &'a ModuleExportName<'a>) -> &'a str {
    match name {
        ModuleExportName::IdentifierName(name) => name.name.as_str(),
        ModuleExportName::IdentifierReference(name) => name.name.as_str(),
        ModuleExportName::StringLiteral(name) => name.value.as_str(),
    }
}
