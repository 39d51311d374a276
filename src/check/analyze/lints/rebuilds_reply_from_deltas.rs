//! `hooks::rebuilds-reply-from-deltas`: a `message.appended` handler that pieces the reply
//! together from its deltas. `message.completed` carries the whole reply (`{ text }`,
//! SPEC §5); the Hooks guide: "Skip *.appended deltas when you want the final text;
//! message.completed already has it."
//!
//! Reported, in a handler of the key `"message.appended"`, where its delta
//! (`event.data.delta`, `data.delta`, a destructured `delta`, a `const` read from one) is
//! added to something that outlives the call: `x += delta` (or an expression holding it),
//! `x = x + delta` and `` x = `${x}${delta}` ``, and `.push(…)`, `.unshift(…)`,
//! `.concat(…)` or `.append(…)` (`ctx.host.files.append`) with the delta among the
//! arguments. Not reported: a delta logged, streamed on (`process.stdout.write`), or
//! measured (`delta.length`), and `reasoning.appended`, which has no completed event.

use oxc::ast::ast::{AssignmentExpression, AssignmentOperator, BinaryOperator, CallExpression, Expression};
use oxc::ast_visit::{Visit, walk};
use oxc::span::{GetSpan, Span};

use super::Lints;
use super::names::HandlerNames;
use super::syntax::chain;
use crate::diagnostics::{Code, Diagnostic};

/// The methods that add their arguments to what they are called on.
const ADDING_METHODS: &[&str] = &["push", "unshift", "concat", "append"];

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if !lints.file.text.contains("delta") {
        return;
    }
    for handler in lints.handlers.iter().filter(|handler| handler.handles("message.appended")) {
        let mut pieces = Pieces { lints, names: handler.names(), first: None };
        handler.body.walk(&mut pieces);
        if let Some(span) = pieces.first {
            found.push(rebuilds_reply_from_deltas(lints, span));
        }
    }
}

fn rebuilds_reply_from_deltas(lints: &Lints, span: Span) -> Diagnostic {
    let quoted = lints.quote(span);
    lints.file.diagnostic(
        Code::RebuildsReplyFromDeltas,
        Lints::at(span),
        "pieces the reply together",
        format!("`{quoted}` rebuilds the reply from its deltas, which `message.completed` already carries whole"),
        "handle `\"message.completed\"` instead and read `event.data.text`, as the Hooks guide says: \"Skip *.appended deltas when you want the final text; message.completed already has it\"",
    )
}

struct Pieces<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    names: &'l HandlerNames<'a>,
    /// The first place the delta is added to something.
    first: Option<Span>,
}

impl<'a> Pieces<'_, '_, 'a> {
    /// Whether `expr` holds the handler's delta.
    fn holds_delta(&self, expr: &Expression<'a>) -> bool {
        struct Holds<'n, 'a> {
            names: &'n HandlerNames<'a>,
            found: bool,
        }
        impl<'a> Visit<'a> for Holds<'_, 'a> {
            fn visit_expression(&mut self, it: &Expression<'a>) {
                // `delta`, `delta.trim()`, `delta.slice(1)` hold it; `delta.length` does not.
                if let Some(read) = chain(it)
                    && let Some(path) = self.names.under_event(&read)
                    && path.starts_with(&[Some("data"), Some("delta")])
                {
                    self.found |= path.get(2) != Some(&Some("length"));
                    return;
                }
                walk::walk_expression(self, it);
            }
        }
        let mut holds = Holds { names: self.names, found: false };
        holds.visit_expression(expr);
        holds.found
    }

    fn found(&mut self, span: Span) {
        self.first.get_or_insert(span);
    }
}

impl<'a> Visit<'a> for Pieces<'_, '_, 'a> {
    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        let target = self.lints.text(it.left.span());
        let adds = match it.operator {
            AssignmentOperator::Addition => self.holds_delta(&it.right),
            AssignmentOperator::Assign => match it.right.get_inner_expression() {
                Expression::BinaryExpression(sum) if sum.operator == BinaryOperator::Addition => {
                    self.holds_delta(&it.right) && self.lints.text(sum.left.span()) == target
                }
                Expression::TemplateLiteral(template) => {
                    self.holds_delta(&it.right)
                        && template.expressions.first().is_some_and(|first| self.lints.text(first.span()) == target)
                }
                _ => false,
            },
            _ => false,
        };
        if adds {
            self.found(it.span);
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        let adding = it
            .callee
            .get_inner_expression()
            .as_member_expression()
            .and_then(|member| member.static_property_name())
            .is_some_and(|method| ADDING_METHODS.contains(&method));
        if adding
            && it.arguments.iter().any(|argument| argument.as_expression().is_some_and(|arg| self.holds_delta(arg)))
        {
            self.found(it.span);
        }
        walk::walk_call_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn hook(handler: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\nlet reply = \"\";\nconst parts = [];\nexport default defineHook({{ events: {{ {handler} }} }});\n"
        )
    }

    #[test]
    fn each_way_of_adding_up_deltas_is_reported_once_per_handler() {
        for (handler, label) in [
            ("\"message.appended\"(event) { reply += event.data.delta; }", "reply += event.data.delta"),
            ("\"message.appended\"({ data }) { reply = reply + data.delta; }", "reply = reply + data.delta"),
            ("\"message.appended\"({ data: { delta } }) { reply = `${reply}${delta}`; }", "reply = `${reply}${delta}`"),
            (
                "\"message.appended\"(e) { const piece = e.data.delta; parts.push(piece.trim()); parts.push(piece); }",
                "parts.push(piece.trim())",
            ),
            (
                "async \"message.appended\"(event, ctx) { await ctx.host.files.append(`t/${event.turnId}.md`, event.data.delta); }",
                "ctx.host.files.append(`t/${event.turnId}.md`, event.data.delta)",
            ),
        ] {
            assert_eq!(labels(&hook(handler), Code::RebuildsReplyFromDeltas), [label], "{handler}");
        }
    }

    #[test]
    fn deltas_streamed_measured_or_of_other_events_are_not_reported() {
        for handler in [
            "\"message.appended\"(event) { process.stdout.write(event.data.delta); console.log(event.data.delta); }",
            "\"message.appended\"(event) { let n = 0; n += event.data.delta.length; }",
            "\"reasoning.appended\"(event) { reply += event.data.delta; }",
            "\"message.completed\"(event) { reply += event.data.text; }",
            "\"message.appended\"(event) { const delta = \"x\"; reply += delta; }",
            "\"*\"(event) { if (event.type === \"message.appended\") reply += event.data.delta; }",
        ] {
            assert!(lint(&hook(handler), Code::RebuildsReplyFromDeltas).is_empty(), "{handler}");
        }
    }
}
