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

use oxc::ast::ast::{BindingProperty, Expression, Statement, StaticMemberExpression};
use oxc::ast_visit::{Visit, walk};
use oxc::span::Span;

use super::facts::HandlerFacts;
use super::instruments::Instruments;
use super::outbound::Clients;
use super::{Handler, Lints};
use crate::diagnostics::{Code, Diagnostic};

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if reads_purpose(lints) {
        return;
    }
    let clients = Clients::new(lints);
    let instruments = Instruments::new(lints);
    if !clients.may_go_out(lints) && !lints.file.text.contains("otel") && instruments.is_empty() {
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
