//! Lints: the Hooks guide's advice, checked on a hook module the analyser has already
//! parsed. A lint reads what a handler plainly does (a `fetch` without a `signal`, an
//! assignment into the frozen event, …) and reports it with the guide's reason; it never
//! guesses: when the code could mean something else (a spread, a shadowed name, a value
//! from another module), it says nothing. Each lint is a file with its check and the one
//! constructor of its finding; this module finds the handlers they read.
//!
//! ```text
//!  Checker (hook.rs, events.rs) ── handler sites: each `events` key and its value
//!        │
//!        ▼
//!  handlers() ── each handler's code (a function in `events`, or one the module declares)
//!        │        and the names it binds for the event and `ctx` (names::HandlerNames)
//!        ▼
//!  module_scope_secret · fetch_without_timeout · pages_cancelled_turns ·
//!  meters_eval_sessions · mutates_event · state_in_state_root · rebuilds_reply_from_deltas ·
//!  floating_host_call
//!        │
//!        ▼
//!  diagnostics (one per code and span)
//! ```

mod facts;
mod fetch_without_timeout;
mod floating_host_call;
mod instruments;
mod meters_eval_sessions;
mod module_scope_secret;
mod mutates_event;
mod names;
mod outbound;
mod pages_cancelled_turns;
mod rebuilds_reply_from_deltas;
mod state_in_state_root;
mod syntax;

use std::cell::OnceCell;
use std::collections::{HashMap, HashSet};

use oxc::ast::ast::{
    ArrowFunctionBody, Declaration, ExportDefaultDeclarationKind, Expression, FormalParameters, Function, FunctionBody,
    Program, Statement,
};
use oxc::ast_visit::Visit;
use oxc::span::Span;

use super::scope::{Binding, ModuleScope};
use crate::diagnostics::{Diagnostic, SourceFile};
use names::HandlerNames;

/// A value in `events` under its key, as the analyser found it.
pub(super) struct HandlerSite<'a> {
    /// The event type (or `"*"`) when it is known statically.
    pub key: Option<String>,
    pub value: &'a Expression<'a>,
}

/// A handler whose code is in this module.
struct Handler<'a> {
    key: Option<String>,
    params: &'a FormalParameters<'a>,
    body: Body<'a>,
    /// The names it binds for the event and `ctx`, read when a lint first needs them: most
    /// handlers give no lint a reason to.
    names: OnceCell<HandlerNames<'a>>,
}

impl<'a> Handler<'a> {
    fn names(&self) -> &HandlerNames<'a> {
        self.names.get_or_init(|| HandlerNames::new(self.params, self.body))
    }

    fn handles(&self, event_type: &str) -> bool {
        self.key.as_deref() == Some(event_type)
    }

    /// The name of its first parameter, the event, when it is a plain name.
    fn event_name(&self) -> Option<&'a str> {
        self.params.items.first()?.pattern.get_binding_identifier().map(|id| id.name.as_str())
    }

    /// The name of its second parameter, `ctx`, when it is a plain name.
    fn ctx_name(&self) -> Option<&'a str> {
        self.params.items.get(1)?.pattern.get_binding_identifier().map(|id| id.name.as_str())
    }
}

/// A handler's body: a block, or an arrow function's expression.
#[derive(Clone, Copy)]
enum Body<'a> {
    Block(&'a FunctionBody<'a>),
    Arrow(&'a ArrowFunctionBody<'a>),
}

impl<'a> Body<'a> {
    /// Walks the body with `visitor`.
    fn walk(self, visitor: &mut impl Visit<'a>) {
        match self {
            Body::Block(body) => visitor.visit_function_body(body),
            Body::Arrow(body) => visitor.visit_arrow_function_body(body),
        }
    }
}

/// One hook module as the lints read it.
struct Lints<'s, 'a> {
    file: &'s SourceFile<'s>,
    program: &'a Program<'a>,
    scope: &'s ModuleScope<'a>,
    handlers: Vec<Handler<'a>>,
}

/// Every lint's findings in the module `program`, whose handlers are `sites`.
pub(super) fn check<'a>(
    file: &SourceFile,
    program: &'a Program<'a>,
    scope: &ModuleScope<'a>,
    sites: &[HandlerSite<'a>],
) -> Vec<Diagnostic> {
    let lints = Lints { file, program, scope, handlers: handlers(program, scope, sites) };
    let mut found = Vec::new();
    module_scope_secret::check(&lints, &mut found);
    state_in_state_root::check(&lints, &mut found);
    if !lints.handlers.is_empty() {
        fetch_without_timeout::check(&lints, &mut found);
        pages_cancelled_turns::check(&lints, &mut found);
        meters_eval_sessions::check(&lints, &mut found);
        mutates_event::check(&lints, &mut found);
        rebuilds_reply_from_deltas::check(&lints, &mut found);
        floating_host_call::check(&lints, &mut found);
    }
    // A function that handles two keys is read twice; it is one finding.
    let mut seen = HashSet::new();
    found.retain(|diagnostic| {
        seen.insert((diagnostic.code, diagnostic.label.as_ref().map(|label| (label.start, label.end))))
    });
    found
}

/// The handlers whose code is in this module: a function written in `events`, a `const`
/// bound to one, or a function declared in the module and named there.
fn handlers<'a>(program: &'a Program<'a>, scope: &ModuleScope<'a>, sites: &[HandlerSite<'a>]) -> Vec<Handler<'a>> {
    let mut declared: Option<HashMap<&'a str, &'a Function<'a>>> = None;
    let mut found = Vec::new();
    for site in sites {
        let (params, body) = match scope.resolve(site.value) {
            Expression::FunctionExpression(function) => match &function.body {
                Some(body) => (&*function.params, Body::Block(body)),
                None => continue,
            },
            Expression::ArrowFunctionExpression(arrow) => (&*arrow.params, Body::Arrow(&arrow.body)),
            Expression::Identifier(id) if matches!(scope.binding(id.name.as_str()), Some(Binding::Function)) => {
                let functions = declared.get_or_insert_with(|| declared_functions(program));
                match functions.get(id.name.as_str()).and_then(|function| Some((function, function.body.as_ref()?))) {
                    Some((function, body)) => (&*function.params, Body::Block(body)),
                    None => continue,
                }
            }
            _ => continue,
        };
        found.push(Handler { key: site.key.clone(), params, body, names: OnceCell::new() });
    }
    found
}

/// The functions declared at the top of the module, by name.
fn declared_functions<'a>(program: &'a Program<'a>) -> HashMap<&'a str, &'a Function<'a>> {
    let mut functions = HashMap::new();
    for statement in &program.body {
        let function = match statement {
            Statement::FunctionDeclaration(function) => Some(&**function),
            Statement::ExportDeclaration(export) => match &export.declaration {
                Declaration::FunctionDeclaration(function) => Some(&**function),
                _ => None,
            },
            Statement::ExportDefaultDeclaration(export) => match &export.declaration {
                ExportDefaultDeclarationKind::FunctionDeclaration(function) => Some(&**function),
                _ => None,
            },
            _ => None,
        };
        if let Some(function) = function
            && let Some(id) = &function.id
        {
            functions.insert(id.name.as_str(), function);
        }
    }
    functions
}

impl Lints<'_, '_> {
    /// `span` as the `(start, end)` a diagnostic is labelled at.
    fn at(span: Span) -> (u32, u32) {
        (span.start, span.end)
    }

    /// The source text of `span`.
    fn text(&self, span: Span) -> &str {
        self.file.text.get(span.start as usize..span.end as usize).unwrap_or("")
    }

    /// The source text of `span`, shortened for a message.
    fn quote(&self, span: Span) -> String {
        let text = self.text(span);
        let line = text.lines().next().unwrap_or("");
        if line.len() == text.len() && text.chars().count() <= 60 {
            text.to_owned()
        } else {
            let short: String = line.chars().take(40).collect();
            format!("{short}…")
        }
    }

    /// Whether `name` is a global here: the module binds no top-level name `name`.
    fn is_global(&self, name: &str) -> bool {
        self.scope.binding(name).is_none()
    }
}

#[cfg(test)]
mod tests;
