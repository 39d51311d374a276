//! What one walk of a handler learns for the lints about paging and metering: its first
//! outbound call, its first metric recorded, and what it checks (a `"cancelled"`, the
//! event's `status`) or hands to a function that could check it.

use std::collections::HashSet;

use oxc::ast::ast::{Argument, CallExpression, Expression, StringLiteral, TSType, TemplateLiteral, VariableDeclarator};
use oxc::ast_visit::{Visit, walk};
use oxc::span::Span;

use super::instruments::Instruments;
use super::outbound::{Clients, local_client, outbound};
use super::syntax::chain;
use super::{Handler, Lints};

#[derive(Debug, Default)]
pub struct HandlerFacts {
    /// The callee of the first outbound call.
    pub outbound: Option<Span>,
    /// The callee of the first call that records a metric.
    pub metering: Option<Span>,
    /// `"cancelled"` is written in the handler (outside types).
    pub mentions_cancelled: bool,
    /// The handler reads the event's `status` (`event.data.status`, `const { status } = event.data`).
    pub reads_status: bool,
    /// The event (or part of it) is passed to a function, which may check it.
    pub hands_on_event: bool,
    /// `ctx` (or part of it) is passed to a function, which may check it.
    pub hands_on_ctx: bool,
}

impl HandlerFacts {
    pub fn of<'a>(
        lints: &Lints<'_, 'a>,
        handler: &Handler<'a>,
        clients: &Clients<'a>,
        instruments: &Instruments<'a>,
    ) -> Self {
        let mut walk =
            FactsWalk { lints, handler, clients, instruments, local: HashSet::new(), facts: Self::default() };
        walk.facts.reads_status = handler.names().reads_event_property("status");
        handler.body.walk(&mut walk);
        walk.facts
    }
}

struct FactsWalk<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    handler: &'l Handler<'a>,
    clients: &'l Clients<'a>,
    instruments: &'l Instruments<'a>,
    /// The handler's own `const`s built on a client.
    local: HashSet<&'a str>,
    facts: HandlerFacts,
}

impl<'a> Visit<'a> for FactsWalk<'_, '_, 'a> {
    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let Some(name) = local_client(it, self.clients) {
            self.local.insert(name);
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let names = self.handler.names();
        if self.facts.outbound.is_none() {
            self.facts.outbound = outbound(it, self.lints, self.clients, &self.local, names);
        }
        if self.facts.metering.is_none() {
            self.facts.metering = self.instruments.records(it, self.lints, names);
        }
        // `shouldPage(event)`, `isEval(ctx.session)`: a function of the project, which may do
        // the check (a global such as `structuredClone` does not).
        if let Expression::Identifier(callee) = it.callee.get_inner_expression()
            && (self.lints.scope.binding(callee.name.as_str()).is_some() || names.declares(callee.name.as_str()))
        {
            for argument in &it.arguments {
                if let Argument::SpreadElement(_) = argument {
                    // `helper(...arguments)`: what it is given is not known.
                    self.facts.hands_on_event = true;
                    self.facts.hands_on_ctx = true;
                    continue;
                }
                let Some(read) = argument.as_expression().and_then(chain) else { continue };
                self.facts.hands_on_event |= names.under_event(&read).is_some();
                self.facts.hands_on_ctx |= names.under_ctx(&read).is_some();
            }
        }
        walk::walk_call_expression(self, it);
    }

    fn visit_expression(&mut self, it: &Expression<'a>) {
        if let Some(read) = chain(it)
            && let Some(path) = self.handler.names().under_event(&read)
            && path.contains(&Some("status"))
        {
            self.facts.reads_status = true;
        }
        walk::walk_expression(self, it);
    }

    fn visit_string_literal(&mut self, it: &StringLiteral<'a>) {
        self.facts.mentions_cancelled |= it.value == "cancelled";
    }

    fn visit_template_literal(&mut self, it: &TemplateLiteral<'a>) {
        self.facts.mentions_cancelled |= it.single_quasi().is_some_and(|quasi| quasi.as_str() == "cancelled");
        walk::walk_template_literal(self, it);
    }

    fn visit_ts_type(&mut self, _: &TSType<'a>) {}
}
