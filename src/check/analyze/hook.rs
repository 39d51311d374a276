//! The hook's shape (SPEC §3.6–3.7): the default export is a `defineHook(...)` call whose
//! argument has an `events` object. Each diagnostic's constructor sits next to its check.

use oxc::ast::ast::{
    Argument, AssignmentTarget, CallExpression, ExportDefaultDeclarationKind, Expression, ImportOrExportKind,
    ObjectExpression, ObjectPropertyKind, Program, PropertyKind, Statement,
};
use oxc::span::{GetSpan, Span};

use super::Checker;
use super::scope::{Binding, export_name};
use crate::diagnostics::{Code, Diagnostic, Fix};
use crate::sdk;

/// What the module exports as its default, as written.
enum DefaultExport<'a> {
    Expression(&'a Expression<'a>),
    /// `export default function …` / `export default class …` / `export default interface …`.
    Declaration {
        kind: &'static str,
        span: Span,
    },
    /// `export { name as default }`.
    Local {
        name: &'a str,
        span: Span,
    },
    /// `export { x as default } from "./other"`.
    ReExport {
        source: &'a str,
        span: Span,
    },
}

/// Whether a checked expression is a hook, is not, or cannot be known without running code.
enum Verdict {
    Done,
    Dynamic,
}

const DEFINE_HOOK_EXAMPLE: &str = "export default defineHook({ events: { \"turn.completed\"(event, ctx) { … } } })";

impl<'s, 'a> Checker<'s, 'a> {
    pub(super) fn check_program(&mut self, program: &'a Program<'a>) {
        match self.default_export(program) {
            None => self.report(
                Diagnostic::new(
                    Code::NoDefaultExport,
                    "this module has no default export, so it is not a hook",
                    format!(
                        "export the hook as the module's default: `{DEFINE_HOOK_EXAMPLE}`; move shared helpers out of `hooks/`"
                    ),
                )
                .with_path(self.file.path),
            ),
            Some(DefaultExport::Declaration { kind, span }) => self.report(self.file.diagnostic(
                Code::NotDefineHook,
                (span.start, span.end),
                format!("this is a {kind}"),
                format!("the default export is a {kind}, not a call of `defineHook(...)`"),
                format!("wrap the hook in defineHook: `{DEFINE_HOOK_EXAMPLE}`"),
            )),
            Some(DefaultExport::ReExport { source, span }) => self.report_unknown_keys(self.file.diagnostic(
                Code::DynamicEvents,
                (span.start, span.end),
                "re-exported from another module",
                format!("the default export comes from `{source}`, so this hook could not be checked statically"),
                "define the hook in this module with `export default defineHook({ … })` to have it checked",
            )),
            Some(export @ (DefaultExport::Expression(_) | DefaultExport::Local { .. })) => {
                let (verdict, span) = match export {
                    DefaultExport::Local { name, span } => (self.check_hook_name(name, span), (span.start, span.end)),
                    DefaultExport::Expression(expr) => (self.check_hook_expression(expr), span_of(expr)),
                    _ => unreachable!("matched above"),
                };
                if let Verdict::Dynamic = verdict {
                    self.report_unknown_keys(self.file.diagnostic(
                        Code::DynamicEvents,
                        span,
                        "not known until the module runs",
                        "the default export could not be checked statically",
                        format!("export a `defineHook(...)` call directly: `{DEFINE_HOOK_EXAMPLE}`"),
                    ));
                }
            }
        }
    }

    /// The module's default export: ESM forms, TypeScript's `export =`, then CommonJS's
    /// `module.exports =` / `exports.default =` when there is no ESM default.
    fn default_export(&self, program: &'a Program<'a>) -> Option<DefaultExport<'a>> {
        let mut commonjs = None;
        for statement in &program.body {
            match statement {
                Statement::ExportDefaultDeclaration(export) => {
                    return Some(match &export.declaration {
                        ExportDefaultDeclarationKind::FunctionDeclaration(function) => {
                            DefaultExport::Declaration { kind: "function", span: function.span }
                        }
                        ExportDefaultDeclarationKind::ClassDeclaration(class) => {
                            DefaultExport::Declaration { kind: "class", span: class.span }
                        }
                        ExportDefaultDeclarationKind::TSInterfaceDeclaration(interface) => {
                            DefaultExport::Declaration { kind: "type (an interface)", span: interface.span }
                        }
                        kind => DefaultExport::Expression(kind.as_expression()?),
                    });
                }
                Statement::ExportNamedDeclaration(export) if export.export_kind == ImportOrExportKind::Value => {
                    for specifier in &export.specifiers {
                        if export_name(&specifier.exported) == "default"
                            && specifier.export_kind == ImportOrExportKind::Value
                            && let oxc::ast::ast::ModuleExportName::IdentifierReference(local) = &specifier.local
                        {
                            return Some(DefaultExport::Local { name: local.name.as_str(), span: local.span });
                        }
                    }
                }
                Statement::ExportFromDeclaration(export) if export.export_kind == ImportOrExportKind::Value => {
                    if let Some(specifier) =
                        export.specifiers.iter().find(|specifier| export_name(&specifier.exported) == "default")
                    {
                        return Some(DefaultExport::ReExport {
                            source: export.source.value.as_str(),
                            span: specifier.span,
                        });
                    }
                }
                Statement::TSExportAssignment(export) => {
                    return Some(DefaultExport::Expression(&export.expression));
                }
                Statement::ExpressionStatement(statement) => {
                    if let Expression::AssignmentExpression(assignment) = &statement.expression
                        && is_commonjs_default(&assignment.left)
                    {
                        commonjs = Some(DefaultExport::Expression(&assignment.right));
                    }
                }
                _ => {}
            }
        }
        commonjs
    }

    /// Checks that `expr` (the default export) is a `defineHook(...)` call and checks its argument.
    fn check_hook_expression(&mut self, expr: &'a Expression<'a>) -> Verdict {
        let resolved = self.scope.resolve(expr);
        match resolved {
            Expression::CallExpression(call) => self.check_define_hook_call(call),
            // Still a `const` after resolving means a cycle (`const a = b; const b = a;`).
            Expression::Identifier(id) if matches!(self.scope.binding(id.name.as_str()), Some(Binding::Const(_))) => {
                Verdict::Dynamic
            }
            Expression::Identifier(id) => self.check_hook_name(id.name.as_str(), id.span),
            expr if is_plain_value(expr) => self.not_define_hook(expr, format!("this is {}", describe(expr))),
            _ => Verdict::Dynamic,
        }
    }

    /// The default export is the name `name`, which no `const` binds.
    fn check_hook_name(&mut self, name: &'a str, span: Span) -> Verdict {
        match self.scope.binding(name) {
            Some(Binding::Const(init)) => self.check_hook_expression(init),
            Some(Binding::Function) => self.not_define_hook_at(span, format!("`{name}` is a function")),
            Some(Binding::Class) => self.not_define_hook_at(span, format!("`{name}` is a class")),
            Some(Binding::Import { source, .. } | Binding::Namespace { source, .. }) => {
                self.report_unknown_keys(self.file.diagnostic(
                    Code::DynamicEvents,
                    (span.start, span.end),
                    format!("imported from `{source}`"),
                    format!("the default export `{name}` is imported from `{source}`, so this hook could not be checked statically"),
                    "define the hook in this module with `export default defineHook({ … })` to have it checked",
                ));
                Verdict::Done
            }
            Some(Binding::Opaque) => Verdict::Dynamic,
            None => self.not_define_hook_at(span, format!("`{name}` is not defined in this module")),
        }
    }

    fn not_define_hook(&mut self, expr: &Expression, what: String) -> Verdict {
        self.not_define_hook_at(expr.span(), what)
    }

    fn not_define_hook_at(&mut self, span: Span, what: String) -> Verdict {
        self.report(self.file.diagnostic(
            Code::NotDefineHook,
            (span.start, span.end),
            what,
            "the default export is not a call of `defineHook(...)`",
            format!("wrap the hook in defineHook: `{DEFINE_HOOK_EXAMPLE}`"),
        ));
        Verdict::Done
    }

    /// `callee(...)` must be `defineHook` imported (as a value) from the SDK's hooks module.
    fn check_define_hook_call(&mut self, call: &'a CallExpression<'a>) -> Verdict {
        let callee = self.scope.resolve(&call.callee);
        if self.is_memory_hook(callee) {
            self.analysis.events.extend(sdk::MEMORY_HOOK_EVENTS.iter().map(|event| (*event).to_owned()));
            return Verdict::Done;
        }
        let imported_from = match callee {
            Expression::Identifier(id) => match self.scope.binding(id.name.as_str()) {
                Some(Binding::Import { source, source_span, imported, type_only }) if imported == sdk::DEFINE_HOOK => {
                    if type_only {
                        return self.type_only_import(callee, source);
                    }
                    Some((source, source_span))
                }
                None if id.name == sdk::DEFINE_HOOK => {
                    return self.define_hook_not_imported(callee);
                }
                _ => None,
            },
            Expression::StaticMemberExpression(member) if member.property.name == sdk::DEFINE_HOOK => {
                match member.object.get_inner_expression() {
                    Expression::Identifier(id) => match self.scope.binding(id.name.as_str()) {
                        Some(Binding::Namespace { source, source_span }) => Some((source, source_span)),
                        _ => None,
                    },
                    _ => None,
                }
            }
            _ => None,
        };
        let Some((source, source_span)) = imported_from else {
            let callee_text = self.file.text.get(span_range(call.callee.span())).unwrap_or("this function");
            let what = if callee_text == sdk::DEFINE_HOOK {
                "this `defineHook` is not imported from the SDK".to_owned()
            } else {
                format!("`{callee_text}` is not `defineHook`")
            };
            return self.not_define_hook(callee, what);
        };
        if !sdk::is_hooks_module(source) {
            let suggestion = sdk::suggest_hooks_module(source);
            let diagnostic = self.file.diagnostic(
                Code::UnknownSdkModule,
                source_span,
                "not the SDK's hooks module",
                format!("`defineHook` is imported from `{source}`, which is not the SDK's hooks module"),
                format!(
                    "import it from `{suggestion}` (the hooks module is one of {})",
                    crate::printer::code_list(&sdk::HOOKS_MODULES)
                ),
            );
            let fix = self.hooks_module_fix(source_span, source, suggestion);
            self.report(diagnostic.with_fix(fix));
            return Verdict::Done;
        }
        self.check_options(call)
    }

    /// Imports from `suggestion` instead of `source`, whose string literal is at `span`:
    /// safe from another module of an SDK package (`@cursor/bdk` for `@cursor/bdk/hooks`),
    /// unsafe from anything else, which may be the project's own wrapper of `defineHook`.
    fn hooks_module_fix(&self, span: (u32, u32), source: &str, suggestion: &str) -> Fix {
        let edits = vec![self.file.string_literal_edit(span.0, span.1, suggestion)];
        let title = format!("Import from `{suggestion}`");
        if sdk::SDK_PACKAGES.iter().any(|package| source.starts_with(package)) {
            Fix::safe(title, edits)
        } else {
            Fix::unsafe_(title, edits)
        }
    }

    /// `memoryHook()` imported from an SDK memory module: a ready-made hook (SPEC §7).
    fn is_memory_hook(&self, callee: &Expression) -> bool {
        match callee {
            Expression::Identifier(id) => matches!(
                self.scope.binding(id.name.as_str()),
                Some(Binding::Import { source, imported, type_only: false, .. })
                    if imported == sdk::MEMORY_HOOK && sdk::is_memory_module(source)
            ),
            Expression::StaticMemberExpression(member) if member.property.name == sdk::MEMORY_HOOK => {
                matches!(member.object.get_inner_expression(), Expression::Identifier(id)
                    if matches!(self.scope.binding(id.name.as_str()), Some(Binding::Namespace { source, .. }) if sdk::is_memory_module(source)))
            }
            _ => false,
        }
    }

    fn type_only_import(&mut self, callee: &Expression, source: &str) -> Verdict {
        self.report(self.file.diagnostic(
            Code::NotDefineHook,
            span_of(callee),
            "imported with `import type`",
            "`defineHook` is imported with `import type`, which is erased when the module runs",
            format!("import it as a value: `import {{ defineHook }} from \"{source}\"`"),
        ));
        Verdict::Done
    }

    fn define_hook_not_imported(&mut self, callee: &Expression) -> Verdict {
        self.report(self.file.diagnostic(
            Code::NotDefineHook,
            span_of(callee),
            "never imported",
            "`defineHook` is called but never imported, so it is not the SDK's",
            format!("add `import {{ defineHook }} from \"{}\";` at the top of the module", sdk::HOOKS_MODULES[0]),
        ));
        Verdict::Done
    }

    /// `defineHook`'s argument must be an object with an `events` object.
    fn check_options(&mut self, call: &'a CallExpression<'a>) -> Verdict {
        let argument = match call.arguments.first() {
            None => {
                return self.events_missing(call.span, "no argument", "`defineHook()` is called without an argument");
            }
            Some(Argument::SpreadElement(_)) => return Verdict::Dynamic,
            Some(argument) => match argument.as_expression() {
                Some(expr) => expr,
                None => return Verdict::Dynamic,
            },
        };
        let options = match self.scope.resolve(argument) {
            Expression::ObjectExpression(object) => object,
            expr if is_plain_value(expr) => {
                let what = format!("this is {}", describe(expr));
                return self.events_missing(expr.span(), &what, "`defineHook`'s argument is not an object");
            }
            _ => return Verdict::Dynamic,
        };
        match events_property(options) {
            EventsProperty::Found(events, kind) => self.check_events_value(events, kind),
            EventsProperty::MaybeInSpread => self.dynamic(
                options.span,
                "spread",
                "`events` may come from a spread, so it could not be checked statically",
            ),
            EventsProperty::Missing => self.events_missing(
                options.span,
                "no `events` here",
                "the object passed to `defineHook` has no `events`",
            ),
        }
    }

    /// `events: …` must be an object literal (or a `const` bound to one).
    fn check_events_value(&mut self, value: &'a Expression<'a>, kind: PropertyKind) -> Verdict {
        if kind != PropertyKind::Init {
            return Verdict::Dynamic;
        }
        match self.scope.resolve(value) {
            Expression::ObjectExpression(events) => {
                self.check_events(events);
                Verdict::Done
            }
            expr if is_plain_value(expr) => {
                let what = format!("this is {}", describe(expr));
                self.events_missing(expr.span(), &what, "`events` is not an object")
            }
            Expression::Identifier(id) => match self.scope.binding(id.name.as_str()) {
                Some(Binding::Function) => {
                    self.events_missing(id.span, &format!("`{}` is a function", id.name), "`events` is not an object")
                }
                Some(Binding::Import { source, .. } | Binding::Namespace { source, .. }) => self.dynamic(
                    id.span,
                    &format!("imported from `{source}`"),
                    "`events` is imported from another module, so its handlers could not be checked statically",
                ),
                _ => Verdict::Dynamic,
            },
            _ => Verdict::Dynamic,
        }
    }

    /// A `hooks::dynamic-events` advice of the hook itself: its events are not all known.
    fn report_unknown_keys(&mut self, diagnostic: Diagnostic) {
        self.analysis.keys_unknown = true;
        self.report(diagnostic);
    }

    /// Advice that part of the hook is only known when the module runs.
    fn dynamic(&mut self, span: Span, label: &str, message: &str) -> Verdict {
        self.report_unknown_keys(self.file.diagnostic(
            Code::DynamicEvents,
            (span.start, span.end),
            label,
            message,
            "nothing to fix if this is intended; write `events` literally in this module to have it checked",
        ));
        Verdict::Done
    }

    fn events_missing(&mut self, span: Span, label: &str, message: &str) -> Verdict {
        self.report(self.file.diagnostic(
            Code::EventsMissing,
            (span.start, span.end),
            label,
            message,
            "pass an object whose `events` maps event types to handlers: `defineHook({ events: { \"turn.completed\"(event, ctx) { … } } })`",
        ));
        Verdict::Done
    }
}

/// Where `events` is in the options object.
enum EventsProperty<'a> {
    Found(&'a Expression<'a>, PropertyKind),
    /// Not written, but a spread could supply it.
    MaybeInSpread,
    Missing,
}

fn events_property<'a>(options: &'a ObjectExpression<'a>) -> EventsProperty<'a> {
    let mut found = EventsProperty::Missing;
    // Later properties win, as in JavaScript.
    for property in &options.properties {
        match property {
            ObjectPropertyKind::SpreadProperty(_) => found = EventsProperty::MaybeInSpread,
            ObjectPropertyKind::ObjectProperty(property) => {
                if property.key.static_name().is_some_and(|name| name == "events") {
                    let kind = if property.method { PropertyKind::Get } else { property.kind };
                    found = EventsProperty::Found(&property.value, kind);
                } else if property.computed && property.key.static_name().is_none() {
                    found = EventsProperty::MaybeInSpread;
                }
            }
        }
    }
    found
}

/// `module.exports` or `exports.default`.
fn is_commonjs_default(target: &AssignmentTarget) -> bool {
    let AssignmentTarget::StaticMemberExpression(member) = target else {
        return false;
    };
    let object = member.object.get_inner_expression();
    (object.is_specific_id("module") && member.property.name == "exports")
        || (object.is_specific_id("exports") && member.property.name == "default")
}

/// A value whose kind is plain from its syntax: never a function call's result.
pub(super) fn is_plain_value(expr: &Expression) -> bool {
    matches!(
        expr,
        Expression::BooleanLiteral(_)
            | Expression::NullLiteral(_)
            | Expression::NumericLiteral(_)
            | Expression::BigIntLiteral(_)
            | Expression::RegExpLiteral(_)
            | Expression::StringLiteral(_)
            | Expression::TemplateLiteral(_)
            | Expression::ArrayExpression(_)
            | Expression::ObjectExpression(_)
            | Expression::ArrowFunctionExpression(_)
            | Expression::FunctionExpression(_)
            | Expression::ClassExpression(_)
    ) || expr.is_specific_id("undefined")
}

/// What a plain value is, in words.
pub(super) fn describe(expr: &Expression) -> &'static str {
    match expr {
        Expression::BooleanLiteral(_) => "a boolean",
        Expression::NullLiteral(_) => "`null`",
        Expression::NumericLiteral(_) | Expression::BigIntLiteral(_) => "a number",
        Expression::RegExpLiteral(_) => "a regular expression",
        Expression::StringLiteral(_) | Expression::TemplateLiteral(_) => "a string",
        Expression::ArrayExpression(_) => "an array",
        Expression::ObjectExpression(_) => "an object",
        Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => "a function",
        Expression::ClassExpression(_) => "a class",
        _ if expr.is_specific_id("undefined") => "`undefined`",
        _ => "an expression",
    }
}

pub(super) fn span_of(expr: &Expression) -> (u32, u32) {
    let span = expr.span();
    (span.start, span.end)
}

fn span_range(span: Span) -> std::ops::Range<usize> {
    span.start as usize..span.end as usize
}
