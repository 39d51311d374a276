//! Lowers the ES module syntax the oxc transformer leaves in a type-stripped program to
//! CommonJS, as `tsc --module commonjs --esModuleInterop` emits it, so a hook that must
//! run as CommonJS (a `.cts`, or a `.ts` in a package without `"type": "module"`) loads
//! under Node's `require`.
//!
//! Over ~600 lines: every import and export form needs its own small lowering (the
//! first ~740 lines, one short function each), and the tests (~270) run the output
//! with `node`. Split across files, one feature would be read in pieces.
//!
//! Two choices differ from tsc: the `__esModule` marker is written only when the module
//! exports something with ESM syntax (tsc also marks import-only modules), and an
//! anonymous default export is named `_default` (tsc: `default_1`). Bindings exported
//! with `export let/const/var` are live the way tsc makes them (every use reads and
//! writes `exports.x`); a binding exported through a list (`let a; export { a }`) is
//! copied to `exports` once, after its declaration, and later assignments to it are not
//! propagated.

use std::collections::{HashMap, HashSet, VecDeque};

use oxc::allocator::{Allocator, ArenaBox, ArenaVec, TakeIn};
use oxc::ast::ast::*;
use oxc::ast::builder::AstBuilder;
use oxc::ast_visit::{Visit, VisitMut, walk, walk_mut};
use oxc::parser::Parser;
use oxc::semantic::{Scoping, SemanticBuilder, SymbolId};
use oxc::span::{GetSpan, GetSpanMut, SPAN, SourceType, Span};
use oxc::syntax::identifier::is_identifier_name;
use oxc::syntax::scope::ScopeFlags;

/// Rewrites the ES module syntax left in `program` (already type-stripped by the oxc
/// transformer) into CommonJS, as tsc emits it with `esModuleInterop`. Rebuilds the
/// semantic model itself, so it needs no `Scoping` from the caller. Import specifiers
/// are copied into `require(…)` as they are: resolve them before calling this. On `Err`
/// the program is left half-lowered and should be dropped.
pub fn to_commonjs<'a>(allocator: &'a Allocator, program: &mut Program<'a>) -> Result<(), String> {
    let mut esm_only = EsmOnlySyntax::default();
    esm_only.visit_program(program);
    if let Some(message) = esm_only.found {
        return Err(message);
    }
    let scoping = SemanticBuilder::new().build(program).semantic.into_scoping();
    // tsc reserves these names too: the lowered code needs the ones CommonJS provides.
    for reserved in ["exports", "require"] {
        if let Some(symbol) = scoping.get_root_binding(reserved.into()) {
            let at = scoping.symbol_span(symbol).start;
            return Err(format!("a top-level `{reserved}` (at byte {at}) hides the one a CommonJS module is given"));
        }
    }
    let builder = AstBuilder::new(allocator);
    let mut lowering = Lowering::new(allocator, &builder, &scoping);
    let body = program.body.take_in(&builder);
    lowering.declare_bindings(&body);
    let lowered = lowering.lower(body)?;
    program.body = lowering.prologue()?;
    program.body.extend(lowered);
    RewriteReferences { builder: &builder, scoping: &scoping, replacements: &lowering.replacements }
        .visit_program(program);
    if !program.directives.iter().any(Directive::is_use_strict) {
        program.directives.insert(0, Directive::new_use_strict(&builder));
    }
    Ok(())
}

/// Whether [`to_commonjs`] would accept `program`, without lowering it (for `validate`):
/// the same verdict, at a fraction of the cost. `scoping` is the program's, as the
/// transformer returned it.
pub fn check_commonjs<'a>(
    allocator: &'a Allocator,
    program: &mut Program<'a>,
    scoping: &Scoping,
) -> Result<(), String> {
    if let Some(message) = esm_only_syntax(program) {
        return Err(message);
    }
    // Only a top-level binding with one of the names the lowered code needs can make the
    // lowering itself fail: then it runs, for its exact answer.
    if NAMES_THE_LOWERING_NEEDS.iter().any(|name| scoping.get_root_binding((*name).into()).is_some()) {
        return to_commonjs(allocator, program);
    }
    Ok(())
}

/// The first construct of `program` that only exists in an ES module (`import.meta`,
/// top-level `await`), as [`to_commonjs`] would refuse it.
pub fn esm_only_syntax(program: &Program) -> Option<String> {
    let mut esm_only = EsmOnlySyntax::default();
    esm_only.visit_program(program);
    esm_only.found
}

/// The names a CommonJS module's own top-level bindings may not take (the lowered code
/// needs them); a module binding one goes through the whole lowering for its verdict.
pub const NAMES_THE_LOWERING_NEEDS: [&str; 5] =
    ["exports", "require", "__importDefault", "__importStar", "__exportStar"];

/// Finds the first construct that only exists in an ES module.
#[derive(Default)]
struct EsmOnlySyntax {
    function_depth: u32,
    found: Option<String>,
}

impl EsmOnlySyntax {
    fn report(&mut self, construct: &str, span: Span) {
        if self.found.is_none() {
            let at = span.start;
            self.found = Some(format!("{construct} (at byte {at}) is not available in a CommonJS module"));
        }
    }
}

impl<'a> Visit<'a> for EsmOnlySyntax {
    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.function_depth += 1;
        walk::walk_function(self, it, flags);
        self.function_depth -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.function_depth += 1;
        walk::walk_arrow_function_expression(self, it);
        self.function_depth -= 1;
    }

    fn visit_await_expression(&mut self, it: &AwaitExpression<'a>) {
        if self.function_depth == 0 {
            self.report("top-level `await`", it.span);
        }
        walk::walk_await_expression(self, it);
    }

    fn visit_for_of_statement(&mut self, it: &ForOfStatement<'a>) {
        if it.r#await && self.function_depth == 0 {
            self.report("top-level `for await`", it.span);
        }
        walk::walk_for_of_statement(self, it);
    }

    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind == VariableDeclarationKind::AwaitUsing && self.function_depth == 0 {
            self.report("top-level `await using`", it.span);
        }
        walk::walk_variable_declaration(self, it);
    }

    fn visit_import_meta(&mut self, it: &ImportMeta) {
        self.report("`import.meta`", it.span);
    }
}

/// `object.property`: what a use of an imported or exported binding reads instead.
#[derive(Clone, Copy)]
struct Member<'a> {
    object: &'a str,
    property: &'a str,
}

impl<'a> Member<'a> {
    fn text(self) -> String {
        let Member { object, property } = self;
        if is_identifier_name(property) {
            format!("{object}.{property}")
        } else {
            format!("{object}[{}]", quoted(property))
        }
    }

    fn target(self, builder: &AstBuilder<'a>) -> AssignmentTarget<'a> {
        AssignmentTarget::from(SimpleAssignmentTarget::from(self.member(builder)))
    }

    fn member(self, builder: &AstBuilder<'a>) -> MemberExpression<'a> {
        let object = Expression::new_identifier(SPAN, self.object, builder);
        if is_identifier_name(self.property) {
            let property = IdentifierName::new(SPAN, self.property, builder);
            MemberExpression::new_static_member_expression(SPAN, object, property, false, builder)
        } else {
            let property = Expression::new_string_literal(SPAN, self.property, None, builder);
            MemberExpression::new_computed_member_expression(SPAN, object, property, false, builder)
        }
    }
}

/// A JavaScript string literal for `text`.
fn quoted(text: &str) -> String {
    serde_json::to_string(text).unwrap_or_else(|_| String::from("\"\""))
}

const IMPORT_DEFAULT: usize = 0;
const IMPORT_STAR: usize = 1;
const EXPORT_STAR: usize = 2;

/// The interop helpers, written once at the top of a module that uses them.
const HELPERS: [(&str, &str); 3] = [
    (
        "__importDefault",
        "var __importDefault = function (mod) {
            return mod && mod.__esModule ? mod : { default: mod };
        };",
    ),
    (
        // Getters keep the namespace live, like an ES module namespace object.
        "__importStar",
        "var __importStar = function (mod) {
            if (mod && mod.__esModule) return mod;
            var namespace = {};
            if (mod != null) for (const key of Object.getOwnPropertyNames(mod)) if (key !== \"default\")
                Object.defineProperty(namespace, key, { enumerable: true, get: function () { return mod[key]; } });
            Object.defineProperty(namespace, \"default\", { enumerable: true, value: mod });
            return namespace;
        };",
    ),
    (
        "__exportStar",
        "var __exportStar = function (mod, exports) {
            for (const key in mod) if (key !== \"default\" && !Object.prototype.hasOwnProperty.call(exports, key))
                Object.defineProperty(exports, key, { enumerable: true, get: function () { return mod[key]; } });
        };",
    ),
];

/// The state of one lowering: what was chosen in the first pass over the top-level
/// statements, and what the second pass gathers for the top of the module.
struct Lowering<'a, 's> {
    allocator: &'a Allocator,
    builder: &'s AstBuilder<'a>,
    scoping: &'s Scoping,
    /// Every name bound or read in the module, so a new variable shadows nothing.
    taken: HashSet<String>,
    /// Module variables of the import declarations, in source order.
    module_variables: VecDeque<Option<&'a str>>,
    replacements: HashMap<SymbolId, Member<'a>>,
    helpers_used: [bool; HELPERS.len()],
    has_esm_export: bool,
    /// Names assigned `void 0` up front, so they exist while the module is still running.
    declared_exports: Vec<String>,
    /// `(exported, local)` of exported functions, assigned before the body runs like
    /// the functions are declared.
    hoisted: Vec<(String, String)>,
    statement_spans: Vec<Span>,
    /// Statements to write after the top-level statement of the same index.
    after: Vec<Vec<Statement<'a>>>,
}

impl<'a, 's> Lowering<'a, 's> {
    fn new(allocator: &'a Allocator, builder: &'s AstBuilder<'a>, scoping: &'s Scoping) -> Self {
        let mut taken: HashSet<String> = scoping.symbol_names().map(String::from).collect();
        taken.extend(scoping.root_unresolved_references().keys().map(|name| name.to_string()));
        Self {
            allocator,
            builder,
            scoping,
            taken,
            module_variables: VecDeque::new(),
            replacements: HashMap::new(),
            helpers_used: [false; HELPERS.len()],
            has_esm_export: false,
            declared_exports: Vec::new(),
            hoisted: Vec::new(),
            statement_spans: Vec::new(),
            after: Vec::new(),
        }
    }

    /// A fresh variable for the module at `source`, named like tsc: `./data.json` → `data_json_1`.
    fn module_variable(&mut self, source: &str) -> &'a str {
        let base = source.rsplit('/').next().unwrap_or(source);
        let mut base: String = base.chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect();
        if base.starts_with(|c: char| c.is_ascii_digit()) {
            base.insert(0, '_');
        }
        self.unique(format!("{base}_1"), &format!("{base}_"))
    }

    /// The first of `first`, `{prefix}2`, `{prefix}3`, … that the module does not use.
    fn unique(&mut self, first: String, prefix: &str) -> &'a str {
        let mut name = first;
        let mut counter = 1;
        while self.taken.contains(&name) {
            counter += 1;
            name = format!("{prefix}{counter}");
        }
        self.taken.insert(name.clone());
        self.allocator.alloc_str(&name)
    }

    /// The name of the helper at `index` (one of the constants above), which is now used.
    fn helper(&mut self, index: usize) -> &'static str {
        self.helpers_used[index] = true;
        HELPERS[index].0
    }

    /// First pass: picks the module variables and records what every use of an import
    /// or of an `export let/const/var` binding becomes, before any export list needs it.
    fn declare_bindings(&mut self, body: &[Statement<'a>]) {
        for statement in body {
            match statement {
                Statement::ImportDeclaration(import) => self.declare_import(import),
                Statement::ExportDeclaration(export) => {
                    if let Declaration::VariableDeclaration(variables) = &export.declaration {
                        for declarator in &variables.declarations {
                            for binding in declarator.id.get_binding_identifiers() {
                                let property = self.allocator.alloc_str(binding.name.as_str());
                                if let Some(symbol) = binding.symbol_id.get() {
                                    self.replacements.insert(symbol, Member { object: "exports", property });
                                }
                            }
                        }
                    }
                }
                _ => {}
            }
        }
    }

    fn declare_import(&mut self, import: &ImportDeclaration<'a>) {
        let specifiers = import.specifiers.as_ref().map_or(&[][..], |specifiers| &specifiers[..]);
        if specifiers.is_empty() {
            self.module_variables.push_back(None);
            return;
        }
        let namespace = specifiers.iter().find_map(|specifier| match specifier {
            ImportDeclarationSpecifier::ImportNamespaceSpecifier(namespace) => Some(namespace.local.name.as_str()),
            _ => None,
        });
        let object = match namespace {
            Some(name) => name,
            None => self.module_variable(import.source.value.as_str()),
        };
        self.module_variables.push_back(Some(object));
        for specifier in specifiers {
            let (local, property) = match specifier {
                ImportDeclarationSpecifier::ImportSpecifier(named) => (&named.local, named.imported.name().as_str()),
                ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => (&default.local, "default"),
                ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => continue,
            };
            if let Some(symbol) = local.symbol_id.get() {
                self.replacements.insert(symbol, Member { object, property });
            }
        }
    }

    /// Second pass: each top-level module declaration becomes its CommonJS statements.
    fn lower(&mut self, body: ArenaVec<'a, Statement<'a>>) -> Result<Vec<Statement<'a>>, String> {
        self.statement_spans = body.iter().map(GetSpan::span).collect();
        self.after = body.iter().map(|_| Vec::new()).collect();
        let mut lowered = Vec::with_capacity(body.len());
        for statement in body {
            let span = statement.span();
            let mut statements = match statement {
                Statement::ImportDeclaration(import) => self.lower_import(&import)?,
                Statement::ExportDeclaration(export) => self.lower_export_declaration(export.unbox().declaration)?,
                Statement::ExportNamedDeclaration(list) => self.lower_export_list(&list)?,
                Statement::ExportFromDeclaration(from) => self.lower_export_from(&from)?,
                Statement::ExportAllDeclaration(all) => self.lower_export_all(&all)?,
                Statement::ExportDefaultDeclaration(default) => {
                    self.lower_export_default(default.unbox().declaration)?
                }
                statement => vec![statement],
            };
            // The first statement stands where the declaration stood, so its comments and
            // source map position stay with it.
            if let Some(first) = statements.first_mut() {
                *first.span_mut() = span;
            }
            lowered.push(statements);
        }
        let after = std::mem::take(&mut self.after);
        Ok(lowered.into_iter().zip(after).flat_map(|(statements, after)| statements.into_iter().chain(after)).collect())
    }

    /// What goes before the body: helpers, the `__esModule` marker, the exported names
    /// and the hoisted function exports, in tsc's order.
    fn prologue(&mut self) -> Result<ArenaVec<'a, Statement<'a>>, String> {
        let mut text = String::new();
        for ((name, helper), used) in HELPERS.iter().zip(self.helpers_used) {
            if used && self.taken.contains(*name) {
                return Err(format!("`{name}` is a name this module cannot use when it runs as CommonJS"));
            }
            if used {
                text.push_str(helper);
            }
        }
        if self.has_esm_export {
            text.push_str("Object.defineProperty(exports, \"__esModule\", { value: true });");
        }
        let mut declared: Vec<String> = Vec::new();
        for name in &self.declared_exports {
            let member = exports_member(name);
            let hoisted = self.hoisted.iter().any(|(exported, _)| exported == name);
            if !hoisted && !declared.contains(&member) {
                declared.push(member);
            }
        }
        if !declared.is_empty() {
            text.push_str(&format!("{} = void 0;", declared.join(" = ")));
        }
        for (exported, local) in &self.hoisted {
            text.push_str(&format!("{} = {local};", exports_member(exported)));
        }
        Ok(ArenaVec::from_iter_in(self.parse(&text)?, self.builder))
    }

    /// Generated statements are written as text and parsed into the module's arena.
    fn parse(&self, text: &str) -> Result<Vec<Statement<'a>>, String> {
        let text = self.allocator.alloc_str(text);
        let parsed = Parser::new(self.allocator, text, SourceType::cjs()).parse();
        if parsed.panicked || parsed.diagnostics.errors().next().is_some() {
            return Err(format!("internal error: the CommonJS lowering wrote invalid JavaScript: {text}"));
        }
        let mut program = parsed.program;
        // Spans of generated code point into `text`, not the module; drop them so
        // source maps and comments do not attach to the wrong place.
        ClearSpans.visit_program(&mut program);
        Ok(program.body.into_iter().collect())
    }

    fn lower_import(&mut self, import: &ImportDeclaration<'a>) -> Result<Vec<Statement<'a>>, String> {
        let require = format!("require({})", quoted(import.source.value.as_str()));
        let Some(Some(variable)) = self.module_variables.pop_front() else {
            return self.parse(&format!("{require};"));
        };
        let specifiers = import.specifiers.as_ref().map_or(&[][..], |specifiers| &specifiers[..]);
        let is_default = |specifier: &ImportDeclarationSpecifier| match specifier {
            ImportDeclarationSpecifier::ImportSpecifier(named) => named.imported.name().as_str() == "default",
            ImportDeclarationSpecifier::ImportDefaultSpecifier(_) => true,
            ImportDeclarationSpecifier::ImportNamespaceSpecifier(_) => false,
        };
        let has_namespace =
            specifiers.iter().any(|s| matches!(s, ImportDeclarationSpecifier::ImportNamespaceSpecifier(_)));
        let has_default = specifiers.iter().any(is_default);
        let has_named = specifiers.iter().any(|specifier| !is_default(specifier));
        let init = if has_namespace || (has_default && has_named) {
            format!("{}({require})", self.helper(IMPORT_STAR))
        } else if has_default {
            format!("{}({require})", self.helper(IMPORT_DEFAULT))
        } else {
            require
        };
        self.parse(&format!("const {variable} = {init};"))
    }

    fn lower_export_declaration(&mut self, declaration: Declaration<'a>) -> Result<Vec<Statement<'a>>, String> {
        self.has_esm_export = true;
        match declaration {
            Declaration::VariableDeclaration(variables) => Ok(self.assign_exported_variables(variables.unbox())),
            Declaration::FunctionDeclaration(function) => {
                if let Some(name) = function.name() {
                    self.hoisted.push((name.to_string(), name.to_string()));
                }
                Ok(vec![Statement::FunctionDeclaration(function)])
            }
            Declaration::ClassDeclaration(class) => {
                let name = class.name();
                let mut statements = vec![Statement::ClassDeclaration(class)];
                if let Some(name) = name {
                    self.declared_exports.push(name.to_string());
                    statements.extend(self.parse(&format!("{} = {name};", exports_member(&name)))?);
                }
                Ok(statements)
            }
            // What the transformer left of a TypeScript-only declaration.
            declaration => Ok(vec![Statement::from(declaration)]),
        }
    }

    /// `export const { a, b: [c] } = v` → `({ a: exports.a, b: [exports.c] } = v)`; the
    /// local bindings are gone, every use reads `exports.a` (see [`RewriteReferences`]).
    fn assign_exported_variables(&mut self, variables: VariableDeclaration<'a>) -> Vec<Statement<'a>> {
        let mut statements = Vec::new();
        for declarator in variables.declarations {
            for binding in declarator.id.get_binding_identifiers() {
                self.declared_exports.push(binding.name.to_string());
            }
            let Some(init) = declarator.init else { continue };
            statements.push(self.assignment(self.pattern_target(declarator.id), init));
        }
        statements
    }

    fn assignment(&self, target: AssignmentTarget<'a>, value: Expression<'a>) -> Statement<'a> {
        let assignment =
            Expression::new_assignment_expression(SPAN, AssignmentOperator::Assign, target, value, self.builder);
        Statement::new_expression_statement(SPAN, assignment, self.builder)
    }

    fn pattern_target(&self, pattern: BindingPattern<'a>) -> AssignmentTarget<'a> {
        let builder = self.builder;
        match pattern {
            BindingPattern::BindingIdentifier(binding) => {
                let property = self.allocator.alloc_str(binding.name.as_str());
                Member { object: "exports", property }.target(builder)
            }
            BindingPattern::ObjectPattern(object) => {
                let object = object.unbox();
                let properties = object.properties.into_iter().map(|property| {
                    let binding = self.pattern_target_with_default(property.value);
                    AssignmentTargetProperty::new_assignment_target_property_property(
                        property.span,
                        property.key,
                        binding,
                        property.computed,
                        builder,
                    )
                });
                let properties = ArenaVec::from_iter_in(properties, builder);
                let rest = object.rest.map(|rest| self.rest_target(rest.unbox()));
                AssignmentTarget::new_object_assignment_target(object.span, properties, rest, builder)
            }
            BindingPattern::ArrayPattern(array) => {
                let array = array.unbox();
                let elements = array
                    .elements
                    .into_iter()
                    .map(|element| element.map(|element| self.pattern_target_with_default(element)));
                let elements = ArenaVec::from_iter_in(elements, builder);
                let rest = array.rest.map(|rest| self.rest_target(rest.unbox()));
                AssignmentTarget::new_array_assignment_target(array.span, elements, rest, builder)
            }
            BindingPattern::AssignmentPattern(pattern) => self.pattern_target(pattern.unbox().left),
        }
    }

    fn pattern_target_with_default(&self, pattern: BindingPattern<'a>) -> AssignmentTargetMaybeDefault<'a> {
        match pattern {
            BindingPattern::AssignmentPattern(pattern) => {
                let AssignmentPattern { span, left, right, .. } = pattern.unbox();
                let binding = self.pattern_target(left);
                AssignmentTargetMaybeDefault::new_assignment_target_with_default(span, binding, right, self.builder)
            }
            pattern => AssignmentTargetMaybeDefault::from(self.pattern_target(pattern)),
        }
    }

    fn rest_target(&self, rest: BindingRestElement<'a>) -> ArenaBox<'a, AssignmentTargetRest<'a>> {
        AssignmentTargetRest::boxed(rest.span, self.pattern_target(rest.argument), self.builder)
    }

    /// `export { a, b as c }` of the module's own bindings.
    fn lower_export_list(&mut self, list: &ExportNamedDeclaration<'a>) -> Result<Vec<Statement<'a>>, String> {
        self.has_esm_export = true;
        let mut here = Vec::new();
        for specifier in list.specifiers.iter().filter(|specifier| specifier.export_kind.is_value()) {
            let exported = specifier.exported.name().to_string();
            let local = specifier.local.name().to_string();
            self.declared_exports.push(exported.clone());
            let symbol = match &specifier.local {
                ModuleExportName::IdentifierReference(reference) => {
                    reference.reference_id.get().and_then(|reference| self.scoping.get_reference(reference).symbol_id())
                }
                _ => None,
            };
            let Some(symbol) = symbol else {
                here.extend(self.parse(&format!("{} = {local};", exports_member(&exported)))?);
                continue;
            };
            let value = self.replacements.get(&symbol).map_or(local.clone(), |member| member.text());
            let flags = self.scoping.symbol_flags(symbol);
            let statement = if flags.is_import() {
                // An import's value can change in its own module: re-export it live.
                getter(&exported, &value)
            } else if flags.is_function() {
                self.hoisted.push((exported, local));
                continue;
            } else {
                format!("{} = {value};", exports_member(&exported))
            };
            let statements = self.parse(&statement)?;
            match self.declaring_statement(symbol).and_then(|index| self.after.get_mut(index)) {
                Some(after) => after.extend(statements),
                None => here.extend(statements),
            }
        }
        Ok(here)
    }

    /// The index of the top-level statement that declares `symbol`.
    fn declaring_statement(&self, symbol: SymbolId) -> Option<usize> {
        let span = self.scoping.symbol_span(symbol);
        self.statement_spans
            .iter()
            .position(|statement| !statement.is_empty() && statement.start <= span.start && span.end <= statement.end)
    }

    /// `export { a, default as d } from "x"`: one require, a live getter per name.
    fn lower_export_from(&mut self, from: &ExportFromDeclaration<'a>) -> Result<Vec<Statement<'a>>, String> {
        self.has_esm_export = true;
        let source = from.source.value.as_str();
        let variable = self.module_variable(source);
        let mut text = format!("const {variable} = require({});", quoted(source));
        for specifier in from.specifiers.iter().filter(|specifier| specifier.export_kind.is_value()) {
            let exported = specifier.exported.name().to_string();
            let imported = specifier.local.name();
            let value = if imported.as_str() == "default" {
                format!("{}({variable}).default", self.helper(IMPORT_DEFAULT))
            } else {
                Member { object: variable, property: imported.as_str() }.text()
            };
            text.push_str(&getter(&exported, &value));
            self.declared_exports.push(exported);
        }
        self.parse(&text)
    }

    fn lower_export_all(&mut self, all: &ExportAllDeclaration<'a>) -> Result<Vec<Statement<'a>>, String> {
        self.has_esm_export = true;
        let require = format!("require({})", quoted(all.source.value.as_str()));
        let text = match &all.exported {
            Some(exported) => {
                let exported = exported.name().to_string();
                let text = format!("{} = {}({require});", exports_member(&exported), self.helper(IMPORT_STAR));
                self.declared_exports.push(exported);
                text
            }
            None => format!("{}({require}, exports);", self.helper(EXPORT_STAR)),
        };
        self.parse(&text)
    }

    fn lower_export_default(
        &mut self,
        declaration: ExportDefaultDeclarationKind<'a>,
    ) -> Result<Vec<Statement<'a>>, String> {
        self.has_esm_export = true;
        match declaration {
            ExportDefaultDeclarationKind::FunctionDeclaration(mut function) => {
                let name = self.name_default(&mut function.id);
                self.hoisted.push((String::from("default"), name.to_string()));
                Ok(vec![Statement::FunctionDeclaration(function)])
            }
            ExportDefaultDeclarationKind::ClassDeclaration(mut class) => {
                let name = self.name_default(&mut class.id);
                let mut statements = vec![Statement::ClassDeclaration(class)];
                statements.extend(self.parse(&format!("exports.default = {name};"))?);
                Ok(statements)
            }
            ExportDefaultDeclarationKind::TSInterfaceDeclaration(_) => Ok(Vec::new()),
            declaration => {
                let target = Member { object: "exports", property: "default" }.target(self.builder);
                Ok(vec![self.assignment(target, declaration.into_expression())])
            }
        }
    }

    /// The name of a default-exported function or class, `_default` if it has none.
    fn name_default(&mut self, id: &mut Option<BindingIdentifier<'a>>) -> &'a str {
        if let Some(id) = id {
            return id.name.as_str();
        }
        let name = self.unique(String::from("_default"), "_default_");
        *id = Some(BindingIdentifier::new(SPAN, name, self.builder));
        name
    }
}

fn exports_member(name: &str) -> String {
    Member { object: "exports", property: name }.text()
}

fn getter(exported: &str, value: &str) -> String {
    let name = quoted(exported);
    format!("Object.defineProperty(exports, {name}, {{ enumerable: true, get: function () {{ return {value}; }} }});")
}

struct ClearSpans;

impl<'a> VisitMut<'a> for ClearSpans {
    fn visit_span(&mut self, it: &mut Span) {
        *it = SPAN;
    }
}

/// Points every use of an imported or `export let` binding at its [`Member`], found by
/// symbol so a shadowing local of the same name is left alone.
struct RewriteReferences<'a, 's> {
    builder: &'s AstBuilder<'a>,
    scoping: &'s Scoping,
    replacements: &'s HashMap<SymbolId, Member<'a>>,
}

impl<'a> RewriteReferences<'a, '_> {
    fn replacement(&self, reference: &IdentifierReference<'a>) -> Option<Member<'a>> {
        let symbol = self.scoping.get_reference(reference.reference_id.get()?).symbol_id()?;
        self.replacements.get(&symbol).copied()
    }

    fn is_replaced(&self, expression: &Expression<'a>) -> bool {
        matches!(expression, Expression::Identifier(reference) if self.replacement(reference).is_some())
    }

    /// `(0, x_1.f)`: a call through an import has no `this`, as in the ES module.
    fn without_this(&self, callee: &mut Expression<'a>) {
        let member = callee.take_in(self.builder);
        let zero = Expression::new_number_0(self.builder);
        *callee = Expression::new_sequence_expression(
            SPAN,
            ArenaVec::from_array_in([zero, member], self.builder),
            self.builder,
        );
    }
}

impl<'a> VisitMut<'a> for RewriteReferences<'a, '_> {
    fn visit_expression(&mut self, it: &mut Expression<'a>) {
        if let Expression::Identifier(reference) = it
            && let Some(member) = self.replacement(reference)
        {
            *it = Expression::from(member.member(self.builder));
            return;
        }
        walk_mut::walk_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &mut CallExpression<'a>) {
        let replaced = self.is_replaced(&it.callee);
        walk_mut::walk_call_expression(self, it);
        if replaced {
            self.without_this(&mut it.callee);
        }
    }

    fn visit_tagged_template_expression(&mut self, it: &mut TaggedTemplateExpression<'a>) {
        let replaced = self.is_replaced(&it.tag);
        walk_mut::walk_tagged_template_expression(self, it);
        if replaced {
            self.without_this(&mut it.tag);
        }
    }

    /// `{ a }` → `{ a: x_1.a }`.
    fn visit_object_property(&mut self, it: &mut ObjectProperty<'a>) {
        walk_mut::walk_object_property(self, it);
        it.shorthand &= matches!(it.value, Expression::Identifier(_));
    }

    fn visit_simple_assignment_target(&mut self, it: &mut SimpleAssignmentTarget<'a>) {
        if let SimpleAssignmentTarget::AssignmentTargetIdentifier(reference) = it
            && let Some(member) = self.replacement(reference)
        {
            *it = SimpleAssignmentTarget::from(member.member(self.builder));
            return;
        }
        walk_mut::walk_simple_assignment_target(self, it);
    }

    /// `({ a } = v)` → `({ a: exports.a } = v)`.
    fn visit_assignment_target_property(&mut self, it: &mut AssignmentTargetProperty<'a>) {
        if let AssignmentTargetProperty::AssignmentTargetPropertyIdentifier(shorthand) = it
            && let Some(member) = self.replacement(&shorthand.binding)
        {
            let name = PropertyKey::new_static_identifier(SPAN, shorthand.binding.name, self.builder);
            let target = member.target(self.builder);
            let binding = match shorthand.init.take() {
                Some(init) => {
                    AssignmentTargetMaybeDefault::new_assignment_target_with_default(SPAN, target, init, self.builder)
                }
                None => AssignmentTargetMaybeDefault::from(target),
            };
            let span = shorthand.span;
            *it = AssignmentTargetProperty::new_assignment_target_property_property(
                span,
                name,
                binding,
                false,
                self.builder,
            );
        }
        walk_mut::walk_assignment_target_property(self, it);
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use oxc::codegen::Codegen;
    use oxc::transformer::{TransformOptions, Transformer};

    use super::*;

    /// TypeScript → CommonJS through the product's pipeline, with `path` giving the source type.
    fn compile_as(path: &str, source: &str) -> Result<String, String> {
        let allocator = Allocator::default();
        let path = Path::new(path);
        let source_type = SourceType::from_path(path).map_err(|error| error.to_string())?;
        let parsed = Parser::new(&allocator, source, source_type).parse();
        if let Some(error) = parsed.diagnostics.errors().next() {
            return Err(format!("parse: {}", error.message));
        }
        let mut program = parsed.program;
        let scoping = SemanticBuilder::new().with_enum_eval(true).build(&program).semantic.into_scoping();
        let transformed =
            Transformer::new(&allocator, path, &TransformOptions::default()).build_with_scoping(scoping, &mut program);
        if let Some(error) = transformed.diagnostics.errors().next() {
            return Err(format!("transform: {}", error.message));
        }
        to_commonjs(&allocator, &mut program)?;
        Ok(Codegen::new().build(&program).code)
    }

    fn compile(source: &str) -> String {
        compile_as("hook.cts", source).unwrap_or_else(|error| panic!("{error}\n{source}"))
    }

    /// Siblings every program can import: plain CommonJS, CommonJS compiled from an ES
    /// module (with `__esModule`), JSON, a module with a side effect.
    const SIBLINGS: &[(&str, &str)] = &[
        ("package.json", r#"{ "type": "commonjs" }"#),
        (
            "plain.js",
            "module.exports = function plain() { return 'plain called'; };\nmodule.exports.named = 'plain named';\n",
        ),
        (
            "esm.js",
            "'use strict';\nObject.defineProperty(exports, '__esModule', { value: true });\nexports.default = 'esm default';\n\
             exports.count = 0;\nexports.increment = function () { exports.count += 1; };\n\
             exports.thisIs = function () { return this === undefined ? 'undefined' : 'the module'; };\n",
        ),
        ("more.js", "exports.extra = 'extra';\nexports.default = 'not re-exported';\n"),
        ("data.json", r#"{ "name": "data", "version": 2 }"#),
        ("side.js", "console.log('side effect');\n"),
    ];

    /// Writes the siblings and `modules` (TypeScript, each compiled to `<name>.js`; or
    /// JavaScript, written as is), runs `main.js` with node and returns what it printed.
    fn run(modules: &[(&str, &str)]) -> String {
        let folder = tempfile::tempdir().expect("temporary folder");
        for (name, text) in SIBLINGS {
            std::fs::write(folder.path().join(name), text).expect("sibling written");
        }
        for (name, source) in modules {
            let (stem, code) = match name.strip_suffix(".cts") {
                Some(stem) => (stem, compile(source)),
                None => (name.trim_end_matches(".js"), source.to_string()),
            };
            std::fs::write(folder.path().join(format!("{stem}.js")), code).expect("module written");
        }
        let output =
            std::process::Command::new("node").arg("main.js").current_dir(folder.path()).output().expect("node");
        let stdout = String::from_utf8_lossy(&output.stdout).into_owned();
        assert!(output.status.success(), "node failed:\n{}\n{stdout}", String::from_utf8_lossy(&output.stderr));
        stdout
    }

    #[test]
    fn default_named_and_namespace_imports_interoperate() {
        let main = r#"
            import plain, { named } from "./plain";
            import * as plainNs from "./plain";
            import esm, { count } from "./esm";
            import * as esmNs from "./esm";
            import data from "./data.json";
            import { version } from "./data.json";
            import "./side";
            const label: string = "plain:";
            console.log(label, typeof plain, plain(), named, typeof plainNs.default, plainNs.named);
            console.log(esm, count, esmNs.default, esmNs.count);
            console.log(data.name, version);
        "#;
        let expected = "side effect\nplain: function plain called plain named function plain named\n\
                        esm default 0 esm default 0\ndata 2\n";
        assert_eq!(run(&[("main.cts", main)]), expected);
        let code = compile(main);
        assert!(code.contains("const plain_1 = __importStar(require(\"./plain\"));"), "{code}");
        assert!(code.contains("const plainNs = __importStar(require(\"./plain\"));"), "{code}");
        assert!(code.contains("const data_json_2 = require(\"./data.json\");"), "{code}");
        assert!(code.contains("\nrequire(\"./side\");"), "{code}");
    }

    #[test]
    fn imported_bindings_are_live_and_called_without_this() {
        let main = r#"
            import { count, increment, thisIs } from "./esm";
            import * as esm from "./esm";
            console.log(count);
            increment();
            console.log(count, thisIs(), esm.thisIs());
        "#;
        assert_eq!(run(&[("main.cts", main)]), "0\n1 undefined the module\n");
        assert!(compile(main).contains("(0, esm_1.thisIs)()"));
    }

    #[test]
    fn uses_are_rewritten_everywhere_except_where_shadowed() {
        let main = r#"
            import { count as n, increment } from "./esm";
            function later(fallback = n) { return fallback; }
            class Counter { get value() { return n; } static make() { return { n }; } }
            const arrow = () => `n=${n}`;
            function shadowed(n: number) { return n * 10; }
            { const n = "block"; console.log(n); }
            increment();
            console.log(later(), new Counter().value, Counter.make().n, arrow(), typeof n, shadowed(7));
        "#;
        assert_eq!(run(&[("main.cts", main)]), "block\n1 1 1 n=1 number 70\n");
    }

    #[test]
    fn exported_declarations_stay_live_for_importers() {
        let lib = r#"
            export let count = 0;
            export const { first, rest: [second = "two", ...others] } = { first: "one", rest: [undefined, "three"] };
            export function increment(): void { count++; }
            export class Greeter { hello() { return "hello"; } }
            export enum Color { Red, Green }
            let local = "local";
            export { local as renamed, local as "kebab-name" };
            export default function () { return "default fn"; }
        "#;
        let main = r#"
            import makeDefault, { count, first, second, others, increment, Greeter, Color, renamed } from "./lib";
            import * as lib from "./lib";
            console.log(count);
            increment();
            increment();
            console.log(count, first, second, others.join(), new Greeter().hello(), Color.Green, Color[1]);
            console.log(renamed, lib["kebab-name"], makeDefault());
            const raw = require("./lib");
            console.log(raw.__esModule, Object.keys(raw).sort().join());
        "#;
        let expected = "0\n2 one two three hello 1 Green\nlocal local default fn\n\
                        true Color,Greeter,count,default,first,increment,kebab-name,others,renamed,second\n";
        assert_eq!(run(&[("lib.cts", lib), ("main.cts", main)]), expected);
        let code = compile(lib);
        assert!(code.contains("function increment() {\n\texports.count++;\n}"), "{code}");
        assert!(code.contains("\t}\n}\nexports.Greeter = Greeter;"), "{code}");
    }

    #[test]
    fn exported_functions_are_assigned_before_the_body_runs() {
        // `main` and `b` import each other: `b` runs while `main` has only run its
        // prologue, which must already export the functions.
        let main = r#"
            import { fromB } from "./b";
            export function helper() { return "helper"; }
            export default function () { return "default"; }
            console.log(fromB);
        "#;
        let b = r#"
            import makeDefault, { helper } from "./main";
            export const fromB = `${helper()} and ${makeDefault()} from b`;
        "#;
        assert_eq!(run(&[("main.cts", main), ("b.cts", b)]), "helper and default from b\n");
        assert!(compile(main).contains("exports.helper = helper;\nexports.default = _default;\nconst b_1"));
    }

    #[test]
    fn re_exports_stay_live() {
        let reexports = r#"
            import { count as c } from "./esm";
            export { c as viaImport };
            export { count, increment, default as esmDefault } from "./esm";
            export { default as plainDefault, named } from "./plain";
            export * from "./more";
            export * as plainNs from "./plain";
        "#;
        let main = r#"
            import * as r from "./reexports";
            import { increment, count, viaImport } from "./reexports";
            increment();
            console.log(count, viaImport, r.count, r.esmDefault, typeof r.plainDefault, r.named, r.extra);
            console.log("default" in r, typeof r.plainNs.default, r.plainNs.named);
        "#;
        let expected = "1 1 1 esm default function plain named extra\nfalse function plain named\n";
        assert_eq!(run(&[("reexports.cts", reexports), ("main.cts", main)]), expected);
    }

    #[test]
    fn export_equals_and_import_only_modules_have_no_marker() {
        let equals = r#"
            import { named } from "./plain";
            const api = { named, answer: 42 };
            export = api;
        "#;
        let importer = r#"import plain from "./plain"; console.log(plain());"#;
        let main = r#"const api = require("./equals"); console.log(api.answer, api.named, "__esModule" in api); require("./importer");"#;
        let expected = "42 plain named false\nplain called\n";
        assert_eq!(run(&[("equals.cts", equals), ("importer.cts", importer), ("main.js", main)]), expected);
        let marker = "Object.defineProperty(exports, \"__esModule\"";
        assert!(!compile(equals).contains(marker));
        assert!(!compile(importer).contains(marker));
    }

    #[test]
    fn use_strict_and_helpers_are_written_once_and_only_when_used() {
        let code = compile(
            "\"use strict\";\nimport a from \"./plain\";\nimport b from \"./esm\";\nimport { named } from \"./plain\";\nconsole.log(a, b, named);",
        );
        assert_eq!(code.matches("\"use strict\"").count(), 1, "{code}");
        assert_eq!(code.matches("__importDefault = ").count(), 1, "{code}");
        assert!(!code.contains("__importStar") && !code.contains("__exportStar"), "{code}");
        let code = compile("import { named } from \"./plain\";\nconsole.log(named);");
        assert!(code.starts_with("\"use strict\";\nconst plain_1 = require(\"./plain\");"), "{code}");
    }

    #[test]
    fn module_variables_are_named_like_tsc_without_collisions() {
        let code = compile(
            r#"
            import data from "./data.json";
            import hooks from "@cursor/bdk/hooks";
            import { x } from "1st-party";
            const data_json_1 = "taken", _default = "taken too";
            console.log(data, hooks, x, data_json_1, _default);
            export default class {}
        "#,
        );
        assert!(code.contains("const data_json_2 = __importDefault(require(\"./data.json\"));"), "{code}");
        assert!(code.contains("const hooks_1 = __importDefault(require(\"@cursor/bdk/hooks\"));"), "{code}");
        assert!(code.contains("const _1st_party_1 = require(\"1st-party\");"), "{code}");
        assert!(code.contains("class _default_2 {}\nexports.default = _default_2;"), "{code}");
    }

    #[test]
    fn dynamic_import_is_left_for_node() {
        let main = r#"import plain from "./plain"; import("./esm.js").then((m) => console.log(m.default.default, typeof plain));"#;
        assert_eq!(run(&[("main.cts", main)]), "esm default function\n");
        assert!(compile(main).contains("import(\"./esm.js\")"));
    }

    #[test]
    fn comments_stay_with_lowered_statements() {
        let code = compile(
            "// the config\nimport config from \"./data.json\";\n/** Says hello. */\nexport function hello() { return config; }",
        );
        assert!(code.contains("// the config\nconst data_json_1 = "), "{code}");
        assert!(code.contains("/** Says hello. */\nfunction hello() {"), "{code}");
    }

    #[test]
    fn what_commonjs_cannot_express_is_rejected() {
        let error = compile_as("hook.ts", "console.log(import.meta.url);").unwrap_err();
        assert_eq!(error, "`import.meta` (at byte 12) is not available in a CommonJS module");
        let error = compile_as("hook.ts", "const a = 1;\nawait Promise.resolve(a);").unwrap_err();
        assert_eq!(error, "top-level `await` (at byte 13) is not available in a CommonJS module");
        let error = compile_as("hook.ts", "export {};\nfor await (const x of []) {}").unwrap_err();
        assert!(error.starts_with("top-level `for await` (at byte 11)"), "{error}");
        let nested = "async function f() { await 1; for await (const x of []) {} }\nconst g = async () => await f();";
        assert!(compile_as("hook.ts", nested).is_ok());
        let error = compile_as("hook.cts", "import * as exports from \"./esm\";\nconsole.log(exports);").unwrap_err();
        assert_eq!(error, "a top-level `exports` (at byte 12) hides the one a CommonJS module is given");
        let error = compile_as("hook.cts", "export const require = 1;").unwrap_err();
        assert!(error.starts_with("a top-level `require` (at byte 13)"), "{error}");
    }
}
