//! Static analysis of one hook module with the oxc parser: is the default export a
//! `defineHook({ events: { … } })` call, and which events does it handle? No user code runs.

mod events;
mod hook;
mod lints;
pub mod read;
mod scope;

use oxc::allocator::Allocator;
use oxc::ast::ast::Program;
use oxc::diagnostics::Severity as OxcSeverity;
use oxc::parser::Parser;
use oxc::span::SourceType;

use crate::diagnostics::too_big_to_parse;
use crate::diagnostics::{Code, Diagnostic, SourceFile};
use crate::parse::{on_a_big_enough_stack, with_arena};
use scope::ModuleScope;

/// Analyses `text` on a thread whose stack is big enough for any nesting it could hold:
/// the calling thread for ordinary modules, a thread of its own for big ones. The caller's
/// thread must have a stack of [`STACK_BYTES`] (`check::check_statically`'s pool does); then
/// no input can overflow the stack.
pub fn analyze_module(display_path: &str, text: &str) -> HookAnalysis {
    on_a_big_enough_stack(text.len(), || analyze_source(display_path, text)).unwrap_or_else(|| HookAnalysis {
        diagnostics: vec![too_big_to_parse(display_path)],
        ..HookAnalysis::default()
    })
}

/// What the analyser learnt about one hook module.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct HookAnalysis {
    /// The statically known event keys of `events`, in source order, without repeats.
    pub events: Vec<String>,
    /// Some keys may be missing from `events`: they are only known when the module runs
    /// (a re-exported or imported hook or `events`, a spread, a computed key).
    pub keys_unknown: bool,
    pub diagnostics: Vec<Diagnostic>,
}

impl HookAnalysis {
    /// The hook's event keys, `None` when they cannot all be known before the module runs
    /// (a `hooks::dynamic-events` advice says where). A handler that cannot be checked
    /// leaves its key known.
    pub fn known_events(&self) -> Option<Vec<String>> {
        (!self.keys_unknown).then(|| self.events.clone())
    }
}

/// Analyses the hook module `text` on this thread, shown to users as `display_path` (its extension
/// picks the grammar: TypeScript for `.ts`/`.mts`/`.cts`, JavaScript otherwise).
pub fn analyze_source(display_path: &str, text: &str) -> HookAnalysis {
    analyze_then(display_path, text, |_, _, _| ()).0
}

/// [`analyze_source`], then `then` with the parsed module (unless it did not parse), so a
/// caller that goes on to compile it parses it once.
pub fn analyze_then<T>(
    display_path: &str,
    text: &str,
    then: impl for<'a> FnOnce(&HookAnalysis, &'a Allocator, Program<'a>) -> T,
) -> (HookAnalysis, Option<T>) {
    let parsed = parse_then(display_path, text, |file, allocator, program| {
        let mut checker = Checker {
            file,
            scope: ModuleScope::new(&program),
            analysis: HookAnalysis::default(),
            handlers: Vec::new(),
        };
        checker.check_program(&program);
        let linted = lints::check(file, &program, &checker.scope, &checker.handlers);
        let mut analysis = checker.analysis;
        analysis.diagnostics.extend(linted);
        let after = then(&analysis, allocator, program);
        (analysis, after)
    });
    match parsed {
        Ok((analysis, after)) => (analysis, Some(after)),
        Err(diagnostics) => (HookAnalysis { diagnostics, ..HookAnalysis::default() }, None),
    }
}

/// Parses the module `text` (shown as `display_path`, whose extension picks the grammar),
/// then hands `then` the file and the parse; a module that does not parse is its syntax
/// errors, located. Mount files are read with it too.
pub fn parse_then<T>(
    display_path: &str,
    text: &str,
    then: impl for<'a> FnOnce(&SourceFile, &'a Allocator, Program<'a>) -> T,
) -> Result<T, Vec<Diagnostic>> {
    with_arena(|allocator| parse_in(allocator, display_path, text, then))
}

fn parse_in<'a, T>(
    allocator: &'a Allocator,
    display_path: &str,
    text: &'a str,
    then: impl FnOnce(&SourceFile, &'a Allocator, Program<'a>) -> T,
) -> Result<T, Vec<Diagnostic>> {
    let source_type = SourceType::from_path(display_path).unwrap_or_else(|_| SourceType::ts());
    let parsed = Parser::new(allocator, text, source_type).parse();
    let file = SourceFile::new(display_path, text);

    let parse_errors: Vec<Diagnostic> = parsed
        .diagnostics
        .errors()
        .filter(|error| error.severity == OxcSeverity::Error)
        .map(|error| parse_error(&file, error))
        .collect();
    if parsed.panicked || !parse_errors.is_empty() {
        let mut diagnostics = parse_errors;
        if diagnostics.is_empty() {
            diagnostics.push(parse_error_without_location(&file));
        }
        return Err(diagnostics);
    }
    Ok(then(&file, allocator, parsed.program))
}

/// Walks one parsed module, collecting what it finds.
struct Checker<'s, 'a> {
    file: &'s SourceFile<'s>,
    scope: ModuleScope<'a>,
    analysis: HookAnalysis,
    /// Each handler in `events` with its key, for the lints.
    handlers: Vec<lints::HandlerSite<'a>>,
}

impl Checker<'_, '_> {
    fn report(&mut self, diagnostic: Diagnostic) {
        self.analysis.diagnostics.push(diagnostic);
    }
}

/// A syntax error, with oxc's message and location kept.
fn parse_error(file: &SourceFile, error: &oxc::diagnostics::OxcDiagnostic) -> Diagnostic {
    let help = error.help.as_deref().map_or_else(
        || {
            "fix the syntax error; `.ts`, `.mts` and `.cts` files are parsed as TypeScript, the others as JavaScript"
                .to_owned()
        },
        str::to_owned,
    );
    let label = error.labels.iter().find(|label| label.primary()).or_else(|| error.labels.first());
    match label {
        Some(label) => {
            let span = label.span();
            let text = label.label().unwrap_or("here");
            file.diagnostic(Code::ParseError, (span.start, span.end), text, error.message.to_string(), help)
        }
        None => Diagnostic::new(Code::ParseError, error.message.to_string(), help).with_path(file.path),
    }
}

fn parse_error_without_location(file: &SourceFile) -> Diagnostic {
    Diagnostic::new(
        Code::ParseError,
        "the parser gave up on this file",
        "fix the syntax errors; `.ts`, `.mts` and `.cts` files are parsed as TypeScript, the others as JavaScript",
    )
    .with_path(file.path)
}
