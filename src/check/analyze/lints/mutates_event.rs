//! `hooks::mutates-event`: a handler that changes its event or `ctx`. Both are deep-frozen
//! (SPEC §7), so in a module the change throws and the handler is skipped; the Hooks
//! guide: "Treat the event as read-only. Later subscribers see the same object."
//!
//! Reported, where `event` and `ctx` are the handler's first and second parameters (any
//! names, destructured too: `({ data }, ctx)`) or `const`s read from them
//! (`const items = event.data.items`): an assignment (`=`, `+=`, …, `++`, `--`) to a
//! property under either, `delete` of one, `Object.assign`/`Object.defineProperty`/
//! `Object.defineProperties`/`Object.setPrototypeOf` with one as the target, and
//! [`MUTATING_METHODS`] called on something under the event (`event.data.calls.sort()`).
//! Not reported: a copy (`const copy = { ...event.data }; copy.x = 1`), reassigning the
//! name itself (`event = other`), and any name the handler declares again (shadowed) or
//! assigns to: what it holds is not known.

use oxc::ast::ast::{
    AssignmentExpression, AssignmentTarget, CallExpression, SimpleAssignmentTarget, UnaryExpression, UnaryOperator,
    UpdateExpression,
};
use oxc::ast_visit::{Visit, walk};
use oxc::span::{GetSpan, Span};

use super::names::HandlerNames;
use super::syntax::{Chain, argument, chain, member_chain};
use super::{Handler, Lints};
use crate::diagnostics::{Code, Diagnostic};

/// The array methods that change the array they are called on.
pub const MUTATING_METHODS: &[&str] =
    &["push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin"];

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    for handler in &lints.handlers {
        let mut changes = Changes { lints, handler, found };
        handler.body.walk(&mut changes);
    }
}

struct Changes<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    handler: &'l Handler<'a>,
    found: &'l mut Vec<Diagnostic>,
}

/// Which frozen object a chain reads.
#[derive(Clone, Copy)]
enum Frozen {
    Event,
    Ctx,
}

impl<'a> Changes<'_, '_, 'a> {
    fn names(&self) -> &HandlerNames<'a> {
        self.handler.names()
    }

    /// Whether `chain` is a property under the event or `ctx` (not the name alone).
    fn frozen_property(&self, chain: &Chain<'a>) -> Option<Frozen> {
        if let Some(path) = self.names().under_event(chain) {
            return (!path.is_empty()).then_some(Frozen::Event);
        }
        let path = self.names().under_ctx(chain)?;
        (!path.is_empty()).then_some(Frozen::Ctx)
    }

    fn target(&mut self, target: &SimpleAssignmentTarget<'a>, span: Span, how: &str) {
        let Some(member) = target.as_member_expression() else { return };
        if let Some(frozen) = member_chain(member).and_then(|chain| self.frozen_property(&chain)) {
            let quoted = self.lints.quote(span);
            self.report(span, quoted, frozen, how);
        }
    }

    /// A change at `span`, shown as `quoted`.
    fn report(&mut self, span: Span, quoted: String, frozen: Frozen, how: &str) {
        let (what, guide) = match frozen {
            Frozen::Event => (
                "the event",
                "later subscribers see the same object: keep what you derive in a local (`const copy = { ...event.data }`), in `ctx.host.kv` or in `ctx.host.files`",
            ),
            Frozen::Ctx => ("`ctx`", "keep what you derive in a local, in `ctx.host.kv` or in `ctx.host.files`"),
        };
        self.found.push(self.lints.file.diagnostic(
            Code::MutatesEvent,
            Lints::at(span),
            format!("{how} {what}"),
            format!(
                "`{quoted}` changes {what}, which is frozen: the change throws (outside strict mode, it is ignored)"
            ),
            format!("treat {what} as read-only, as the Hooks guide says; {guide}"),
        ));
    }
}

impl<'a> Visit<'a> for Changes<'_, '_, 'a> {
    fn visit_assignment_expression(&mut self, it: &AssignmentExpression<'a>) {
        if let Some(target) = it.left.as_simple_assignment_target() {
            self.target(target, it.left.span(), "assigns to");
        } else if let AssignmentTarget::ArrayAssignmentTarget(_) | AssignmentTarget::ObjectAssignmentTarget(_) =
            &it.left
        {
            // A destructuring assignment into the event is rare enough to leave to the runtime.
        }
        walk::walk_assignment_expression(self, it);
    }

    fn visit_update_expression(&mut self, it: &UpdateExpression<'a>) {
        self.target(&it.argument, it.span, "changes");
        walk::walk_update_expression(self, it);
    }

    fn visit_unary_expression(&mut self, it: &UnaryExpression<'a>) {
        if it.operator == UnaryOperator::Delete
            && let Some(frozen) = chain(&it.argument).and_then(|chain| self.frozen_property(&chain))
        {
            let quoted = self.lints.quote(it.span);
            self.report(it.span, quoted, frozen, "deletes from");
        }
        walk::walk_unary_expression(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Some(callee) = chain(&it.callee) {
            let object_method = callee.root == "Object"
                && self.lints.is_global("Object")
                && !self.names().declares("Object")
                && matches!(
                    callee.path[..],
                    [Some("assign" | "defineProperty" | "defineProperties" | "setPrototypeOf")]
                );
            let target = argument(it, 0).and_then(chain);
            if object_method && let Some(target) = target {
                // `Object.assign(event, …)` changes the event itself, not only a property.
                let frozen = match (self.names().under_event(&target), self.names().under_ctx(&target)) {
                    (Some(_), _) => Some(Frozen::Event),
                    (None, Some(_)) => Some(Frozen::Ctx),
                    _ => None,
                };
                if let Some(frozen) = frozen {
                    let function = self.lints.text(it.callee.span());
                    let target = self.lints.quote(argument(it, 0).map_or(it.span, GetSpan::span));
                    self.report(it.span, format!("{function}({target}, …)"), frozen, "changes");
                }
            } else if let [.., Some(method)] = callee.path[..]
                && MUTATING_METHODS.contains(&method)
            {
                let array = Chain { root: callee.root, path: callee.path[..callee.path.len() - 1].to_vec() };
                if self.names().under_event(&array).is_some() {
                    let callee = it.callee.span();
                    let quoted = format!("{}(…)", self.lints.quote(callee));
                    self.report(callee, quoted, Frozen::Event, "changes");
                }
            }
        }
        walk::walk_call_expression(self, it);
    }
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn hook(params: &str, body: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\nexport default defineHook({{ events: {{ \"actions.requested\"({params}) {{\n{body}\n}} }} }});\n"
        )
    }

    #[test]
    fn every_kind_of_change_is_reported_at_the_change() {
        let body = "event.data.seen = true;\nevent.data.count += 1;\nevent.index++;\ndelete event.data.calls;\nevent.data.calls.push(1);\nevent.data[\"calls\"].sort();\nObject.assign(event.data, { a: 1 });\nctx.session.title = \"x\";\nconst calls = event.data.calls; calls.reverse();\nevent?.data.calls.splice(0, 1);";
        assert_eq!(
            labels(&hook("event, ctx", body), Code::MutatesEvent),
            [
                "event.data.seen",
                "event.data.count",
                "event.index++",
                "delete event.data.calls",
                "event.data.calls.push",
                "event.data[\"calls\"].sort",
                "Object.assign(event.data, { a: 1 })",
                "ctx.session.title",
                "calls.reverse",
                "event?.data.calls.splice",
            ]
        );
    }

    #[test]
    fn any_parameter_names_and_destructuring_are_followed() {
        let found = labels(&hook("e, c", "e.data.x = 1; c.agent.name = \"y\";"), Code::MutatesEvent);
        assert_eq!(found, ["e.data.x", "c.agent.name"]);
        let found =
            labels(&hook("{ data }, { session }", "data.calls.push(1); session.id = \"z\";"), Code::MutatesEvent);
        assert_eq!(found, ["data.calls.push", "session.id"]);
    }

    #[test]
    fn copies_locals_and_shadowed_names_are_not_reported() {
        for (params, body) in [
            (
                "event, ctx",
                "const copy = { ...event.data }; copy.x = 1; copy.calls = [...event.data.calls]; copy.calls.push(1);",
            ),
            ("event, ctx", "const calls = event.data.calls.slice(); calls.sort();"),
            ("event, ctx", "let total = 0; total += event.data.calls.length; const list = []; list.push(event.type);"),
            ("event, ctx", "event = { ...event, seen: true }; event.data = {};"),
            ("event, ctx", "[1].map((event) => { event.x = 1; });"),
            ("event, ctx", "{ const ctx = { a: 1 }; ctx.a = 2; }"),
            (
                "event, ctx",
                "const items = new Map(); items.set(event.type, 1); ctx.host.kv.set(\"k\", 1); ctx.host.kv.delete(\"k\");",
            ),
            ("event, ctx", "ctx.host.files.list().sort(); Object.assign({}, event.data);"),
            ("{ data = {} }", "data.x = 1;"),
            ("event, ctx", "const Object = { assign() {} }; Object.assign(event.data, {});"),
        ] {
            assert!(lint(&hook(params, body), Code::MutatesEvent).is_empty(), "{params}: {body}");
        }
    }
}
