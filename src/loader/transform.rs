//! One module as Node will run it: TypeScript compiled by the oxc transformer for Node 20
//! (types stripped, `using` and legacy decorators lowered, CommonJS where Node runs the file
//! as CommonJS), with an inline source map so stack traces name the `.ts` lines; and the
//! imports the compiled code really makes (type-only ones are gone), for the resolver.

use std::path::Path;

use oxc::allocator::Allocator;
use oxc::ast::ast::{
    Argument, ArrowFunctionExpression, CallExpression, Decorator, ExportAllDeclaration, ExportFromDeclaration,
    Expression, Function, ImportDeclaration, ImportExpression, Program, TryStatement,
};
use oxc::ast_visit::{Visit, walk};
use oxc::codegen::{Codegen, CodegenOptions};
use oxc::parser::Parser;
use oxc::semantic::{ScopeFlags, SemanticBuilder};
use oxc::span::{GetSpan, SourceType};
use oxc::transformer::{TransformOptions, Transformer};

use super::commonjs::{check_commonjs, to_commonjs};
use super::compiled::{Compiled, Import, ImportedName, Output, Problem, ProblemKind};
use super::exports::{Language, own_exports};
use super::resolver::{HELPERS_PACKAGE, ImportKind, ModuleFormat, TsOptions, is_typescript};

/// Compiles (TypeScript) or scans (JavaScript) the module at `path`, which Node runs as `format`.
pub fn compile(
    path: &Path,
    source: &str,
    format: ModuleFormat,
    options: &TsOptions,
    output: Output,
) -> Result<Compiled, Vec<Problem>> {
    let allocator = Allocator::default();
    let source_type = SourceType::from_path(path).unwrap_or_else(|_| SourceType::ts());
    let parsed = Parser::new(&allocator, source, source_type).parse();
    let syntax: Vec<Problem> = parsed.diagnostics.errors().map(syntax_problem).collect();
    if parsed.panicked || !syntax.is_empty() {
        return Err(syntax);
    }
    compile_program(&allocator, parsed.program, path, format, options, output)
}

/// [`compile`] of a module already parsed (without errors) into `allocator`.
pub fn compile_program<'a>(
    allocator: &'a Allocator,
    mut program: Program<'a>,
    path: &Path,
    format: ModuleFormat,
    options: &TsOptions,
    output: Output,
) -> Result<Compiled, Vec<Problem>> {
    if !is_typescript(path) {
        let exports = own_exports(&program, format, Language::of(path));
        return Ok(Compiled { code: None, imports: collect_imports(&program), exports });
    }
    if !options.experimental_decorators
        && let Some(problem) = standard_decorator(&program, options)
    {
        return Err(vec![problem]);
    }
    if format == ModuleFormat::Esm
        && let Some(problem) = super::commonjs_only::in_an_es_module(&program, path)
    {
        return Err(vec![problem]);
    }
    if output == Output::Check
        && let Some(checked) = quick_check(&program, path, format)
    {
        return checked;
    }
    let scoping = SemanticBuilder::new().with_enum_eval(true).build(&program).semantic.into_scoping();
    let transformed =
        Transformer::new(allocator, path, &transform_options(options)).build_with_scoping(scoping, &mut program);
    if let Some(error) = transformed.diagnostics.errors().next() {
        return Err(vec![unsupported(error)]);
    }
    let imports = collect_imports(&program);
    let exports = own_exports(&program, format, Language::of(path));
    if format == ModuleFormat::CommonJs {
        let lowered = match output {
            Output::Code => to_commonjs(allocator, &mut program),
            Output::Check => check_commonjs(allocator, &mut program, &transformed.scoping),
        };
        lowered.map_err(|message| {
            vec![Problem { kind: ProblemKind::Unsupported, span: None, message, help: commonjs_help(path) }]
        })?;
    }
    if output == Output::Check {
        return Ok(Compiled { code: None, imports, exports });
    }
    let codegen = CodegenOptions { source_map_path: Some(path.to_path_buf()), ..CodegenOptions::default() };
    let generated = Codegen::new().with_options(codegen).build(&program);
    let mut code = generated.code;
    if let Some(map) = generated.map {
        code.push_str("\n//# sourceMappingURL=");
        code.push_str(&super::line_starts::with_line_starts(map).to_data_url());
        code.push('\n');
    }
    Ok(Compiled { code: Some(code), imports, exports })
}

/// `validate`'s verdict on a module that imports nothing but the SDK and Node's built-ins
/// (most hooks), without compiling it: compiling could only drop some of those imports,
/// which changes nothing, so only what could fail is looked at (namespaces, which the
/// compiler may refuse, send a module the whole way). `None`: compile it.
fn quick_check(program: &Program, path: &Path, format: ModuleFormat) -> Option<Result<Compiled, Vec<Problem>>> {
    let imports = collect_imports(program);
    let settled =
        |specifier: &str| specifier.starts_with("node:") || super::resolver::SdkModule::of(specifier).is_some();
    if !imports.iter().all(|import| settled(&import.specifier)) || has_namespace(program) {
        return None;
    }
    // A name the SDK does not export at run time may be a type the compiler drops (or not):
    // only compiling says whether Node will be asked for it.
    let links = |import: &Import| {
        let Some(module) = super::resolver::SdkModule::of(&import.specifier) else { return true };
        let exports = super::link::sdk_exports(module);
        import.names.iter().all(|name| exports.links(&name.name))
    };
    if !imports.iter().all(links) {
        return None;
    }
    if format == ModuleFormat::CommonJs {
        if binds_a_name_the_lowering_needs(program) {
            return None;
        }
        if let Some(message) = super::commonjs::esm_only_syntax(program) {
            let help = commonjs_help(path);
            return Some(Err(vec![Problem { kind: ProblemKind::Unsupported, span: None, message, help }]));
        }
    }
    Some(Ok(Compiled { code: None, imports, exports: own_exports(program, format, Language::of(path)) }))
}

/// Whether the module declares a TypeScript namespace or module at its top.
fn has_namespace(program: &Program) -> bool {
    use oxc::ast::ast::{Declaration, Statement};
    let namespace = |declaration: &Declaration| {
        matches!(
            declaration,
            Declaration::TSNamespaceDeclaration(_)
                | Declaration::TSExternalModuleDeclaration(_)
                | Declaration::TSGlobalDeclaration(_)
        )
    };
    program.body.iter().any(|statement| match statement {
        Statement::ExportDeclaration(export) => namespace(&export.declaration),
        statement => statement.as_declaration().is_some_and(namespace),
    })
}

/// Whether a top-level binding takes one of [`NAMES_THE_LOWERING_NEEDS`] (a destructuring
/// pattern counts, to be safe).
///
/// [`NAMES_THE_LOWERING_NEEDS`]: super::commonjs::NAMES_THE_LOWERING_NEEDS
fn binds_a_name_the_lowering_needs(program: &Program) -> bool {
    use oxc::ast::ast::{BindingPattern, Declaration, Statement};
    let needed = |name: &str| super::commonjs::NAMES_THE_LOWERING_NEEDS.contains(&name);
    let declares = |declaration: &Declaration| match declaration {
        Declaration::VariableDeclaration(variables) => variables
            .declarations
            .iter()
            .any(|declarator| !matches!(&declarator.id, BindingPattern::BindingIdentifier(id) if !needed(&id.name))),
        declaration => declaration.id().is_some_and(|id| needed(&id.name)),
    };
    program.body.iter().any(|statement| match statement {
        Statement::ImportDeclaration(import) => {
            import.specifiers.iter().flatten().any(|specifier| needed(&specifier.local().name))
        }
        Statement::ExportDeclaration(export) => declares(&export.declaration),
        statement => statement.as_declaration().is_some_and(declares),
    })
}

fn transform_options(options: &TsOptions) -> TransformOptions {
    // Lower exactly what Node 20 lacks (`using`, …); the target is always valid. Parsed
    // once: it costs as much as compiling a small module.
    static NODE_20: std::sync::OnceLock<TransformOptions> = std::sync::OnceLock::new();
    let mut transform = NODE_20.get_or_init(|| TransformOptions::from_target("node20").unwrap_or_default()).clone();
    transform.decorator.legacy = options.experimental_decorators;
    transform.decorator.emit_decorator_metadata = options.emit_decorator_metadata;
    transform.typescript.only_remove_type_imports = options.verbatim_module_syntax;
    transform.helper_loader.module_name = HELPERS_PACKAGE.into();
    transform
}

fn commonjs_help(path: &Path) -> String {
    let name = path.file_name().unwrap_or_default().to_string_lossy();
    format!(
        "Node runs `{name}` as CommonJS (a `.cts` file, or a `.ts` file whose nearest package.json has no `\"type\": \"module\"`): rename it to `.mts`, or set `\"type\": \"module\"`"
    )
}

fn syntax_problem(error: &oxc::diagnostics::OxcDiagnostic) -> Problem {
    let span = error.labels.iter().find(|label| label.primary()).or_else(|| error.labels.first());
    Problem {
        kind: ProblemKind::Syntax,
        span: span.map(|label| (label.span().start, label.span().end)),
        message: error.message.to_string(),
        help: error.help.as_deref().map_or_else(|| "fix the syntax error".to_owned(), str::to_owned),
    }
}

fn unsupported(error: &oxc::diagnostics::OxcDiagnostic) -> Problem {
    let span = error.labels.first().map(|label| (label.span().start, label.span().end));
    Problem {
        kind: ProblemKind::Unsupported,
        span,
        message: error.message.to_string(),
        help: error.help.as_deref().map_or_else(|| "rewrite it in syntax Node 20 runs".to_owned(), str::to_owned),
    }
}

/// The first TC39 decorator of a module compiled without `experimentalDecorators`: Node 20
/// cannot run it and the compiler cannot lower it.
fn standard_decorator(program: &Program, options: &TsOptions) -> Option<Problem> {
    struct FirstDecorator(Option<(u32, u32)>);
    impl<'a> Visit<'a> for FirstDecorator {
        fn visit_decorator(&mut self, it: &Decorator<'a>) {
            if self.0.is_none() {
                self.0 = Some((it.span.start, it.span.end));
            }
        }
    }
    let mut first = FirstDecorator(None);
    first.visit_program(program);
    let tsconfig = options.tsconfig.as_ref().map_or_else(|| "a tsconfig.json".to_owned(), |path| format!("`{path}`"));
    first.0.map(|span| Problem {
        kind: ProblemKind::Unsupported,
        span: Some(span),
        message: "standard (TC39) decorators cannot run in Node 20, and agent-sdk's compiler cannot lower them (tsc and esbuild can; agent-sdk does not yet)".to_owned(),
        help: format!(
            "set `\"experimentalDecorators\": true` in the compilerOptions of {tsconfig} to use TypeScript's decorators, or apply the function by hand"
        ),
    })
}

/// Every import the (compiled) module makes, in source order.
fn collect_imports(program: &Program) -> Vec<Import> {
    let mut collector = ImportCollector::default();
    collector.visit_program(program);
    collector.imports
}

/// Walks a module noting its imports; `require` counts as made at load time only at the top.
#[derive(Default)]
struct ImportCollector {
    imports: Vec<Import>,
    /// Functions and `try` blocks we are inside.
    nesting: u32,
}

impl ImportCollector {
    fn push(&mut self, literal: &oxc::ast::ast::StringLiteral, kind: ImportKind) {
        self.push_with_names(literal, kind, Vec::new());
    }

    fn push_with_names(&mut self, literal: &oxc::ast::ast::StringLiteral, kind: ImportKind, names: Vec<ImportedName>) {
        self.imports.push(Import {
            specifier: literal.value.to_string(),
            kind,
            span: (literal.span.start, literal.span.end),
            names,
        });
    }
}

fn imported_name(name: &str, span: oxc::span::Span) -> ImportedName {
    ImportedName { name: name.to_owned(), span: (span.start, span.end) }
}

impl<'a> Visit<'a> for ImportCollector {
    fn visit_import_declaration(&mut self, it: &ImportDeclaration<'a>) {
        use oxc::ast::ast::ImportDeclarationSpecifier;
        if it.import_kind.is_value() {
            let names = it
                .specifiers
                .iter()
                .flatten()
                .filter_map(|specifier| match specifier {
                    ImportDeclarationSpecifier::ImportSpecifier(named) if named.import_kind.is_value() => {
                        Some(imported_name(named.imported.name().as_str(), named.imported.span()))
                    }
                    ImportDeclarationSpecifier::ImportDefaultSpecifier(default) => {
                        Some(imported_name("default", default.local.span))
                    }
                    _ => None,
                })
                .collect();
            self.push_with_names(&it.source, ImportKind::Static, names);
        }
    }

    fn visit_export_from_declaration(&mut self, it: &ExportFromDeclaration<'a>) {
        if it.export_kind.is_value() {
            let names = it
                .specifiers
                .iter()
                .filter(|specifier| specifier.export_kind.is_value())
                .map(|specifier| imported_name(specifier.local.name().as_str(), specifier.local.span()))
                .collect();
            self.push_with_names(&it.source, ImportKind::Static, names);
        }
    }

    fn visit_export_all_declaration(&mut self, it: &ExportAllDeclaration<'a>) {
        if it.export_kind.is_value() {
            self.push(&it.source, ImportKind::Static);
        }
    }

    fn visit_import_expression(&mut self, it: &ImportExpression<'a>) {
        if let Expression::StringLiteral(literal) = &it.source {
            self.push(literal, ImportKind::Dynamic);
        }
        walk::walk_import_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Expression::Identifier(callee) = &it.callee
            && callee.name == "require"
            && let [Argument::StringLiteral(literal)] = it.arguments.as_slice()
        {
            let kind = if self.nesting == 0 { ImportKind::Require } else { ImportKind::LazyRequire };
            self.push(literal, kind);
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.nesting += 1;
        walk::walk_function(self, it, flags);
        self.nesting -= 1;
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.nesting += 1;
        walk::walk_arrow_function_expression(self, it);
        self.nesting -= 1;
    }

    fn visit_try_statement(&mut self, it: &TryStatement<'a>) {
        self.nesting += 1;
        walk::walk_try_statement(self, it);
        self.nesting -= 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn esm(path: &str, source: &str) -> Compiled {
        compile(Path::new(path), source, ModuleFormat::Esm, &TsOptions::default(), Output::Code).unwrap()
    }

    #[test]
    fn strips_types_keeps_esm_and_maps_the_source() {
        let compiled = esm(
            "/p/bot/hooks/x.ts",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nimport type { T } from \"./t\";\nimport { U } from \"./types-only\";\nenum E { A }\nconst n: number = 1;\nlet u: U;\nexport default defineHook({ events: {} }) as const;\n",
        );
        let code = compiled.code.unwrap();
        assert!(code.contains("from \"@cursor/bdk/hooks\""), "{code}");
        assert!(!code.contains(": number"), "{code}");
        assert!(code.contains("sourceMappingURL=data:application/json"), "{code}");
        let specifiers: Vec<&str> = compiled.imports.iter().map(|import| import.specifier.as_str()).collect();
        assert_eq!(specifiers, ["@cursor/bdk/hooks"], "type-only imports are not made at run time");
    }

    #[test]
    fn commonjs_output_lists_its_export_names() {
        let source = "export const a = 1, { b } = { b: 2 };\nexport function f() {}\nexport class C {}\nconst d = 4;\nexport { d as e };\nexport default 5;\nexport type T = string;\n";
        let compiled =
            compile(Path::new("/p/x.cts"), source, ModuleFormat::CommonJs, &TsOptions::default(), Output::Code)
                .unwrap();
        assert_eq!(compiled.exports.names, ["a", "b", "f", "C", "e"]);
        assert!(compiled.code.unwrap().contains("exports"));
    }

    #[test]
    fn javascript_is_scanned_not_compiled() {
        let compiled = esm("/p/x.js", "const a = require('a');\nfunction f() { return require('b'); }\nimport('c');\n");
        assert_eq!(compiled.code, None);
        let kinds: Vec<(&str, ImportKind)> =
            compiled.imports.iter().map(|import| (import.specifier.as_str(), import.kind)).collect();
        assert_eq!(kinds, [("a", ImportKind::Require), ("b", ImportKind::LazyRequire), ("c", ImportKind::Dynamic)]);
    }

    #[test]
    fn using_is_lowered_for_node_20() {
        let code =
            esm("/p/x.ts", "export function f() { using r = { [Symbol.dispose]() {} }; return 1; }\n").code.unwrap();
        assert!(!code.contains("using r"), "{code}");
    }

    #[test]
    fn standard_decorators_are_a_located_problem_legacy_ones_compile() {
        let source = "function d(x: any, _c?: any) { return x; }\n@d\nexport class A {}\n";
        let problems =
            compile(Path::new("/p/x.ts"), source, ModuleFormat::Esm, &TsOptions::default(), Output::Code).unwrap_err();
        assert_eq!(problems[0].kind, ProblemKind::Unsupported);
        assert_eq!(problems[0].span, Some((43, 45)));
        let legacy = TsOptions { experimental_decorators: true, ..TsOptions::default() };
        let code =
            compile(Path::new("/p/x.ts"), source, ModuleFormat::Esm, &legacy, Output::Code).unwrap().code.unwrap();
        assert!(!code.contains("@d"), "{code}");
    }

    #[test]
    fn the_quick_check_gives_the_verdict_compiling_gives() {
        let sources = [
            "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { x } from \"node:fs\";\nexport default defineHook({ events: {} });\n",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nconst url = import.meta.url;\nexport default defineHook({ events: {} });\n",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nawait Promise.resolve();\nexport default defineHook({ events: {} });\n",
            "import { defineHook as require } from \"@cursor/bdk/hooks\";\nexport default require({ events: {} });\n",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nconst exports = 1;\nexport default defineHook({ events: {} });\n",
            "import { defineHook } from \"@cursor/bdk/hooks\";\nexport namespace N { export let a = 1; }\nexport default defineHook({ events: {} });\n",
            "import { helper } from \"./helper\";\nexport default helper;\n",
        ];
        for source in sources {
            for format in [ModuleFormat::Esm, ModuleFormat::CommonJs] {
                let path = Path::new("/p/bot/hooks/x.ts");
                let check = compile(path, source, format, &TsOptions::default(), Output::Check);
                let code = compile(path, source, format, &TsOptions::default(), Output::Code);
                // Imports of the SDK and of Node's built-ins always resolve and are never
                // walked: whether compiling drops one changes nothing.
                let specifiers = |compiled: &Compiled| -> Vec<String> {
                    let settled = |specifier: &str| {
                        specifier.starts_with("node:") || super::super::resolver::SdkModule::of(specifier).is_some()
                    };
                    compiled.imports.iter().map(|import| import.specifier.clone()).filter(|s| !settled(s)).collect()
                };
                match (&check, &code) {
                    (Ok(check), Ok(code)) => assert_eq!(specifiers(check), specifiers(code), "{format:?} {source}"),
                    (Err(check), Err(code)) => assert_eq!(check[0].message, code[0].message, "{format:?} {source}"),
                    _ => panic!("{format:?} {source}: check {check:?} but code {code:?}"),
                }
            }
        }
    }

    #[test]
    fn syntax_errors_are_located() {
        let problems =
            compile(Path::new("/p/x.ts"), "const = 1;", ModuleFormat::Esm, &TsOptions::default(), Output::Code)
                .unwrap_err();
        assert_eq!(problems[0].kind, ProblemKind::Syntax);
        assert!(problems[0].span.is_some());
    }
}
