//! `hooks::floating-host-call`: a `ctx.host` call (or `ctx.artifacts.tag`) whose promise
//! nobody keeps. Its rejection is then nobody's (an unhandled rejection: `run` exits 3), and
//! what it does may come after its handler returned, when a local run has ended. As
//! typescript-eslint's `no-floating-promises`: `void` says it is on purpose.
//!
//! Reported, at the call, for a statement that is nothing but a call of a promise-returning
//! method of `ctx.host` (`kv`, `files`, `reminders`; `otel` returns nothing) or
//! `ctx.artifacts.tag`, reached from the handler's `ctx` (destructured or aliased too),
//! anywhere in the handler's body (a callback it passes included); or that call with
//! `.then(onFulfilled)` or `.finally(…)` after it, which still leave a rejection unhandled.
//! Not reported: `await`, `return`, `void`, a `.catch(…)` or `.then(…, onRejected)`, a
//! promise kept in a variable or passed on, a `ctx` the body declares again.

use oxc::ast::ast::{CallExpression, Expression, ExpressionStatement, UnaryOperator};
use oxc::ast_visit::{Visit, walk};
use oxc::span::Span;

use super::Lints;
use super::names::HandlerNames;
use super::syntax::callee_chain;
use crate::diagnostics::{Code, Diagnostic};

/// The methods under `ctx` that return a promise, by the path to them.
const PROMISED: &[&[&str]] = &[
    &["host", "kv", "get"],
    &["host", "kv", "set"],
    &["host", "kv", "delete"],
    &["host", "kv", "list"],
    &["host", "files", "write"],
    &["host", "files", "append"],
    &["host", "files", "read"],
    &["host", "files", "list"],
    &["host", "reminders", "set"],
    &["host", "reminders", "list"],
    &["artifacts", "tag"],
];

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    // Every path to a host method names `host` or `artifacts` somewhere in the module.
    if !lints.file.text.contains("host") && !lints.file.text.contains("artifacts") {
        return;
    }
    for handler in &lints.handlers {
        let mut statements = Statements { names: handler.names(), calls: Vec::new() };
        handler.body.walk(&mut statements);
        for call in statements.calls {
            found.push(floating_host_call(lints, call));
        }
    }
}

/// Every floating host call of a handler's body.
struct Statements<'h, 'a> {
    names: &'h HandlerNames<'a>,
    calls: Vec<Span>,
}

impl<'a> Statements<'_, 'a> {
    /// The host call `expr` is (or `.then(onFulfilled)`/`.finally(…)` after one), when its
    /// promise is dropped: the span of the call of the host method.
    fn floating(&self, expr: &Expression<'a>) -> Option<Span> {
        let Expression::CallExpression(call) = expr.get_inner_expression() else { return None };
        if self.is_host_call(call) {
            return Some(call.span);
        }
        // `x.then(a)`, `x.finally(a)`: a rejection of `x` still goes unhandled.
        let member = call.callee.get_inner_expression().as_member_expression()?;
        let leaves_rejection = match member.static_property_name()? {
            "then" => call.arguments.len() < 2,
            "finally" => true,
            _ => false,
        };
        if leaves_rejection { self.floating(member.object()) } else { None }
    }

    fn is_host_call(&self, call: &CallExpression<'a>) -> bool {
        let Some(chain) = callee_chain(call) else { return false };
        let Some(path) = self.names.under_ctx(&chain) else { return false };
        PROMISED.iter().any(|promised| {
            promised.len() == path.len() && promised.iter().zip(&path).all(|(want, got)| Some(*want) == *got)
        })
    }
}

impl<'a> Visit<'a> for Statements<'_, 'a> {
    fn visit_expression_statement(&mut self, it: &ExpressionStatement<'a>) {
        // `void ctx.host.kv.set(…)`: on purpose.
        let on_purpose = matches!(
            it.expression.get_inner_expression(),
            Expression::UnaryExpression(unary) if unary.operator == UnaryOperator::Void
        );
        if !on_purpose && let Some(span) = self.floating(&it.expression) {
            self.calls.push(span);
        }
        walk::walk_expression_statement(self, it);
    }
}

fn floating_host_call(lints: &Lints, call: Span) -> Diagnostic {
    let quoted = lints.quote(call);
    lints.file.diagnostic(
        Code::FloatingHostCall,
        Lints::at(call),
        "not awaited",
        format!(
            "`{quoted}` is not awaited: if it fails, nothing handles the rejection (`run` exits 3), and what it does may come after the handler returned"
        ),
        "`await` it (the handler is then done when it is), or write `void` before it to say it runs on by itself on purpose",
    )
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn hook(handler: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\nexport default defineHook({{ events: {{ {handler} }} }});\n"
        )
    }

    #[test]
    fn a_host_call_nobody_keeps_is_reported_at_the_call() {
        for (handler, label) in [
            ("\"turn.completed\"(event, ctx) { ctx.host.kv.set(\"k\", 1); }", "ctx.host.kv.set(\"k\", 1)"),
            ("\"turn.completed\"(e, c) { c.host.files.write(\"a\", \"b\"); }", "c.host.files.write(\"a\", \"b\")"),
            (
                "\"turn.completed\"(e, { host }) { host.reminders.set(\"x\", \"y\"); }",
                "host.reminders.set(\"x\", \"y\")",
            ),
            ("\"turn.completed\"(e, ctx) { const { kv } = ctx.host; kv.delete(\"k\"); }", "kv.delete(\"k\")"),
            ("\"turn.completed\"(e, ctx) { ctx.artifacts.tag(\"n\", 1); }", "ctx.artifacts.tag(\"n\", 1)"),
            ("\"turn.completed\"(e, ctx) { ctx.host.kv.set(\"k\", 1).then(() => {}); }", "ctx.host.kv.set(\"k\", 1)"),
            ("\"turn.completed\"(e, ctx) { ctx.host.kv.list().finally(done); }", "ctx.host.kv.list()"),
            (
                "\"turn.completed\"(e, ctx) { setTimeout(() => { ctx.host.kv.set(\"k\", 1); }, 5); }",
                "ctx.host.kv.set(\"k\", 1)",
            ),
            ("\"*\": (e, ctx) => { ctx.host.kv.set(\"k\", 1); }", "ctx.host.kv.set(\"k\", 1)"),
        ] {
            assert_eq!(labels(&hook(handler), Code::FloatingHostCall), [label], "{handler}");
        }
    }

    #[test]
    fn a_promise_kept_awaited_returned_or_voided_is_not_reported() {
        for handler in [
            "async \"turn.completed\"(e, ctx) { await ctx.host.kv.set(\"k\", 1); }",
            "\"turn.completed\"(e, ctx) { return ctx.host.kv.set(\"k\", 1); }",
            "\"turn.completed\": (e, ctx) => ctx.host.kv.set(\"k\", 1)",
            "\"turn.completed\"(e, ctx) { void ctx.host.kv.set(\"k\", 1); }",
            "\"turn.completed\"(e, ctx) { ctx.host.kv.set(\"k\", 1).catch(console.error); }",
            "\"turn.completed\"(e, ctx) { ctx.host.kv.set(\"k\", 1).then(ok, console.error); }",
            "\"turn.completed\"(e, ctx) { const done = ctx.host.kv.set(\"k\", 1); later(done); }",
            "\"turn.completed\"(e, ctx) { Promise.all([ctx.host.kv.set(\"k\", 1)]); }",
            "\"turn.completed\"(e, ctx) { ctx.host.otel.increment(\"turns\"); }",
            "\"turn.completed\"(e, ctx) { const ctx2 = 1; other.host.kv.set(\"k\", 1); }",
            "\"turn.completed\"(e, ctx) { ctx = make(); ctx.host.kv.set(\"k\", 1); }",
        ] {
            assert!(lint(&hook(handler), Code::FloatingHostCall).is_empty(), "{handler}");
        }
    }
}
