//! `hooks::meters-eval-sessions`: a handler that meters or pages in eval sessions too. The
//! Hooks guide: "The same stream fires; skip metering or paging when
//! ctx.session.purpose === "eval"".
//!
//! A handler meters when it calls `ctx.host.otel.increment`/`ctx.host.otel.histogram`, or
//! `.add(…)`/`.record(…)` on an instrument of `@opentelemetry/api` (`create…` of a meter
//! from `metrics.getMeter(…)`, in a module `const` or inline); it pages when it makes an
//! outbound call (see `outbound`). Reported once per handler, at its first such call, when
//! the module never reads a `purpose` (`ctx.session.purpose`, `const { purpose } = …`)
//! and the handler passes no part of `ctx` to a function (which may check it). The check
//! is the module's, not the handler's: the guide's own usage hook checks `purpose` in
//! `turn.completed` and counts failures in `turn.failed` without it, on purpose.

use std::collections::HashSet;

use oxc::ast::ast::{
    BindingPattern, BindingProperty, CallExpression, Declaration, Expression, Statement, StaticMemberExpression,
};
use oxc::ast_visit::{Visit, walk};
use oxc::span::Span;

use super::facts::HandlerFacts;
use super::names::HandlerNames;
use super::outbound::Clients;
use super::syntax::{built_on, callee_chain, callee_span};
use super::{Handler, Lints};
use crate::check::analyze::scope::Binding;
use crate::diagnostics::{Code, Diagnostic};

/// The OpenTelemetry API package, whose meters make instruments.
const OTEL_API: &str = "@opentelemetry/api";

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if reads_purpose(lints) {
        return;
    }
    let clients = Clients::new(lints);
    let instruments = Instruments::new(lints);
    if !clients.may_go_out(lints) && !lints.file.text.contains("otel") && instruments.names.is_empty() {
        return;
    }
    for handler in &lints.handlers {
        let facts = HandlerFacts::of(lints, handler, &clients, &instruments);
        if facts.hands_on_ctx {
            continue;
        }
        let (at, what) = match (facts.metering, facts.outbound) {
            (Some(metering), Some(outbound)) if outbound.start < metering.start => (outbound, "pages"),
            (Some(metering), _) => (metering, "meters"),
            (None, Some(outbound)) => (outbound, "pages"),
            (None, None) => continue,
        };
        found.push(meters_eval_sessions(lints, handler, at, what));
    }
}

fn meters_eval_sessions(lints: &Lints, handler: &Handler, at: Span, what: &str) -> Diagnostic {
    let ctx = handler.ctx_name().unwrap_or("ctx");
    lints.file.diagnostic(
        Code::MetersEvalSessions,
        Lints::at(at),
        format!("{what} in eval sessions too"),
        format!("this handler {what} in eval sessions too: hooks fire for eval sessions, whose turns are tests, not traffic"),
        format!(
            "return early when `{ctx}.session.purpose === \"eval\"`: the Hooks guide says to skip metering or paging in eval sessions"
        ),
    )
}

/// Whether the module reads a `purpose` anywhere: it has thought about eval sessions.
fn reads_purpose(lints: &Lints) -> bool {
    struct Purpose(bool);
    impl<'a> Visit<'a> for Purpose {
        // Once one is found, the rest of the module need not be read.
        fn visit_statement(&mut self, it: &Statement<'a>) {
            if !self.0 {
                walk::walk_statement(self, it);
            }
        }
        fn visit_expression(&mut self, it: &Expression<'a>) {
            if !self.0 {
                walk::walk_expression(self, it);
            }
        }
        fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
            self.0 |= it.property.name == "purpose";
            walk::walk_static_member_expression(self, it);
        }
        fn visit_binding_property(&mut self, it: &BindingProperty<'a>) {
            self.0 |= it.key.static_name().is_some_and(|name| name == "purpose");
            walk::walk_binding_property(self, it);
        }
        fn visit_string_literal(&mut self, it: &oxc::ast::ast::StringLiteral<'a>) {
            // `ctx.session["purpose"]`
            self.0 |= it.value == "purpose";
        }
    }
    if !lints.file.text.contains("purpose") {
        return false;
    }
    let mut purpose = Purpose(false);
    purpose.visit_program(lints.program);
    purpose.0
}

/// The module's OpenTelemetry instruments: top-level `const`s made by a meter's `create…`.
#[derive(Debug, Default)]
pub struct Instruments<'a> {
    names: HashSet<&'a str>,
}

impl<'a> Instruments<'a> {
    pub fn new(lints: &Lints<'_, 'a>) -> Self {
        let mut instruments = Instruments::default();
        if !lints.file.text.contains(OTEL_API) {
            return instruments;
        }
        for statement in &lints.program.body {
            let declaration = match statement {
                Statement::VariableDeclaration(declaration) => declaration,
                Statement::ExportDeclaration(export) => match &export.declaration {
                    Declaration::VariableDeclaration(declaration) => declaration,
                    _ => continue,
                },
                _ => continue,
            };
            for declarator in &declaration.declarations {
                if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&declarator.id, &declarator.init)
                    && is_instrument(lints, init)
                {
                    instruments.names.insert(id.name.as_str());
                }
            }
        }
        instruments
    }

    /// The callee of `call` when it records a metric.
    pub fn records(&self, call: &CallExpression<'a>, lints: &Lints, names: &HandlerNames<'a>) -> Option<Span> {
        let callee = callee_chain(call);
        if let Some(callee) = &callee
            && let Some(path) = names.under_ctx(callee)
            && matches!(path[..], [Some("host"), Some("otel"), Some("increment" | "histogram")])
        {
            return Some(callee_span(call));
        }
        let member = call.callee.get_inner_expression().as_member_expression()?;
        if !matches!(member.static_property_name(), Some("add" | "record")) {
            return None;
        }
        let instrument = match member.object().get_inner_expression() {
            Expression::Identifier(id) => self.names.contains(id.name.as_str()) && !names.declares(id.name.as_str()),
            object => is_instrument(lints, object),
        };
        instrument.then(|| callee_span(call))
    }
}

/// `<meter>.create…(…)` whose meter is built on `@opentelemetry/api` (through module `const`s).
fn is_instrument(lints: &Lints, init: &Expression) -> bool {
    let Expression::CallExpression(call) = init.get_inner_expression() else { return false };
    let creates = call
        .callee
        .get_inner_expression()
        .as_member_expression()
        .and_then(|member| member.static_property_name())
        .is_some_and(|name| name.starts_with("create"));
    creates && is_built_on_otel(lints, init, 8)
}

fn is_built_on_otel(lints: &Lints, expr: &Expression, steps: usize) -> bool {
    let Some(name) = built_on(expr) else { return false };
    match lints.scope.binding(name) {
        Some(Binding::Import { source, .. } | Binding::Namespace { source, .. }) => source == OTEL_API,
        Some(Binding::Const(init)) if steps > 0 => is_built_on_otel(lints, init, steps - 1),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    const OTEL: &str = "import { metrics } from \"@opentelemetry/api\";\nconst meter = metrics.getMeter(\"acme\");\nconst turns = meter.createCounter(\"acme.turns\");\n";

    fn hook(top: &str, handlers: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\n{top}\nexport default defineHook({{ events: {{ {handlers} }} }});\n"
        )
    }

    #[test]
    fn metering_and_paging_without_a_purpose_check_are_reported_at_the_first_call() {
        let source = hook(
            &format!(
                "{OTEL}import {{ IncomingWebhook }} from \"@slack/webhook\";\nconst hook = process.env.X ? new IncomingWebhook(\"u\") : null;"
            ),
            "\"turn.completed\"(event, ctx) { turns.add(1); ctx.host.otel.increment(\"b\"); },\n\"turn.failed\"(e, c) { c.host.otel.histogram(\"h\", 1); },\n\"message.received\"() { metrics.getMeter(\"a\").createHistogram(\"h\").record(2); },\n\"action.result\": async () => { await hook?.send({ text: \"x\" }); },\n\"actions.completed\": async () => { await fetch(\"https://x\", { signal: AbortSignal.timeout(1) }); },",
        );
        assert_eq!(
            labels(&source, Code::MetersEvalSessions),
            [
                "turns.add",
                "c.host.otel.histogram",
                "metrics.getMeter(\"a\").createHistogram(\"h\").record",
                "hook?.send",
                "fetch"
            ]
        );
    }

    #[test]
    fn a_module_that_reads_purpose_or_hands_ctx_on_is_not_reported() {
        for handlers in [
            "\"turn.completed\"(event, ctx) { if (ctx.session.purpose === \"eval\") return; turns.add(1); }, \"turn.failed\"() { turns.add(1); }",
            "\"turn.completed\"(event, { session }) { const { purpose } = session; if (purpose !== \"live\") return; turns.add(1); }",
            "\"turn.completed\"(event, ctx) { if (isEval(ctx.session)) return; turns.add(1); }",
            "\"turn.completed\"(event, ctx) { const turns = { add() {} }; turns.add(1); }",
            "\"turn.completed\"(event, ctx) { ctx.host.otel.tag(\"k\", \"v\"); ctx.host.kv.set(\"k\", 1); }",
            "\"turn.completed\"(event, ctx) { const list = [1]; list.add?.(1); new Set().add(1); }",
        ] {
            let top = format!("{OTEL}import {{ isEval }} from \"./policy\";");
            assert!(lint(&hook(&top, handlers), Code::MetersEvalSessions).is_empty(), "{handlers}");
        }
    }
}
