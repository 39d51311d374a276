//! The module's OpenTelemetry instruments (top-level `const`s made by a meter's `create…`
//! from `@opentelemetry/api`), and whether a call records a metric: what the paging and
//! metering lints share (`meters_eval_sessions`, `pages_cancelled_turns`, and the walk of
//! a handler in `facts`).

use std::collections::HashSet;

use oxc::ast::ast::{BindingPattern, CallExpression, Expression};
use oxc::span::Span;

use super::Lints;
use super::names::HandlerNames;
use super::syntax::{built_on, callee_chain, callee_span, module_declarators};
use crate::check::analyze::scope::Binding;

/// The OpenTelemetry API package, whose meters make instruments.
const OTEL_API: &str = "@opentelemetry/api";

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
        for declarator in module_declarators(lints.program) {
            if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&declarator.id, &declarator.init)
                && is_instrument(lints, init)
            {
                instruments.names.insert(id.name.as_str());
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

    /// Whether the module makes no instrument of its own.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
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
