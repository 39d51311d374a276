//! `hooks::fetch-without-timeout`: a handler's `fetch` without a `signal` never times out,
//! and "a stalled request holds later handlers on that session" (the Hooks guide).
//!
//! Reported: a call of the global `fetch` anywhere in a handler's code (callbacks
//! included) with one argument, or with an object literal as its second whose properties
//! are all written out and none is `signal`. Not reported: an init that is not an object
//! literal (a variable, a call), one with a spread or a computed key (it may hold a
//! `signal`), `fetch(new Request(…))`, and a `fetch` raced in `Promise.race`/`Promise.any`.
//!
//! The fix adds `signal: AbortSignal.timeout(5_000)`, as the guide's example does. It is
//! unsafe: a request that took longer than five seconds now fails, which changes what
//! the handler does.

use oxc::ast::ast::{CallExpression, Expression, ObjectExpression, ObjectPropertyKind};
use oxc::ast_visit::{Visit, walk};
use oxc::span::{GetSpan, Span};

use super::outbound::is_global_fetch;
use super::syntax::callee_span;
use super::{Handler, Lints};
use crate::diagnostics::{Code, Diagnostic, Edit, Fix, SourceFile};

/// What the fix adds to an init object.
const SIGNAL: &str = "signal: AbortSignal.timeout(5_000)";

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if !lints.file.text.contains("fetch") {
        return;
    }
    for handler in &lints.handlers {
        let mut calls = FetchCalls { lints, handler, raced: 0, found };
        calls.visit_handler(handler);
    }
}

struct FetchCalls<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    handler: &'l Handler<'a>,
    /// How many `Promise.race(…)`/`Promise.any(…)` calls the walk is inside.
    raced: usize,
    found: &'l mut Vec<Diagnostic>,
}

impl<'a> FetchCalls<'_, '_, 'a> {
    fn visit_handler(&mut self, handler: &Handler<'a>) {
        handler.body.walk(self);
    }

    fn check_call(&mut self, call: &CallExpression<'a>) {
        let named_fetch = match call.callee.get_inner_expression() {
            Expression::Identifier(id) => id.name == "fetch",
            Expression::StaticMemberExpression(member) => member.property.name == "fetch",
            _ => false,
        };
        // The handler's names are read only for what may be a `fetch`.
        if self.raced > 0 || !named_fetch || !is_global_fetch(&call.callee, self.lints, self.handler.names()) {
            return;
        }
        if call.arguments.iter().any(|argument| argument.is_spread()) {
            return;
        }
        let fix = match call.arguments.as_slice() {
            [only] => {
                let Some(resource) = only.as_expression() else { return };
                if matches!(resource.get_inner_expression(), Expression::NewExpression(_)) {
                    return;
                }
                let end = only.span().end;
                Some(self.lints.file.edit(end, end, format!(", {{ {SIGNAL} }}")))
            }
            [_, init, ..] => {
                let Some(Expression::ObjectExpression(init)) =
                    init.as_expression().map(Expression::get_inner_expression)
                else {
                    return;
                };
                if !lacks_signal(init) {
                    return;
                }
                add_signal(self.lints.file, init)
            }
            [] => return,
        };
        self.found.push(fetch_without_timeout(self.lints.file, callee_span(call), fix));
    }
}

impl<'a> Visit<'a> for FetchCalls<'_, '_, 'a> {
    fn visit_call_expression(&mut self, call: &CallExpression<'a>) {
        self.check_call(call);
        let raced = call.callee.get_inner_expression().as_member_expression().is_some_and(|member| {
            member.object().is_specific_id("Promise")
                && matches!(member.static_property_name(), Some("race" | "any"))
                && self.lints.is_global("Promise")
        });
        self.raced += usize::from(raced);
        walk::walk_call_expression(self, call);
        self.raced -= usize::from(raced);
    }
}

/// Whether `init` is written out in full and has no `signal`.
fn lacks_signal(init: &ObjectExpression) -> bool {
    init.properties.iter().all(|property| match property {
        ObjectPropertyKind::SpreadProperty(_) => false,
        ObjectPropertyKind::ObjectProperty(property) => property.key.static_name().is_some_and(|name| name != "signal"),
    })
}

/// The edit adding `signal` to the object literal `init`, laid out like its other
/// properties: on a line of its own in a multi-line object, after a comma that trails.
/// `None` when a comment sits where it would go.
fn add_signal(file: &SourceFile, init: &ObjectExpression) -> Option<Edit> {
    let text = file.text;
    let close = init.span.end.checked_sub(1)?;
    let Some(last) = init.properties.last() else {
        let inside = text.get(init.span.start as usize + 1..close as usize)?;
        return inside.trim().is_empty().then(|| file.edit(init.span.start, init.span.end, format!("{{ {SIGNAL} }}")));
    };
    let last_end = last.span().end;
    let gap = text.get(last_end as usize..close as usize)?;
    if gap.contains('/') {
        return None;
    }
    let first_start = init.properties.first().map_or(last_end, |first| first.span().start);
    let multi_line = text.get(init.span.start as usize..first_start as usize)?.contains('\n');
    let trailing_comma = gap.find(',').map(|at| last_end + at as u32 + 1);
    let edit = match (multi_line, trailing_comma) {
        (true, Some(after)) => file.edit(after, after, format!("\n{}{SIGNAL},", indent_of(text, last.span()))),
        (true, None) => file.edit(last_end, last_end, format!(",\n{}{SIGNAL}", indent_of(text, last.span()))),
        (false, Some(after)) => file.edit(after, after, format!(" {SIGNAL},")),
        (false, None) => file.edit(last_end, last_end, format!(", {SIGNAL}")),
    };
    Some(edit)
}

/// The spaces and tabs that start the line `span` starts on.
fn indent_of(text: &str, span: Span) -> &str {
    let start = span.start as usize;
    let line_start = text[..start].rfind('\n').map_or(0, |newline| newline + 1);
    let line = &text[line_start..start];
    &line[..line.len() - line.trim_start_matches([' ', '\t']).len()]
}

fn fetch_without_timeout(file: &SourceFile, callee: Span, fix: Option<Edit>) -> Diagnostic {
    let diagnostic = file.diagnostic(
        Code::FetchWithoutTimeout,
        Lints::at(callee),
        "no `signal`, so no timeout",
        "this `fetch` has no timeout: a stalled request holds up later handlers on that session",
        format!(
            "give the call a timeout, as the Hooks guide says (\"Give outbound calls a timeout\"): add `{SIGNAL}` to its options"
        ),
    );
    match fix {
        Some(edit) => diagnostic.with_fix(Fix::unsafe_(format!("Add `{SIGNAL}`"), vec![edit])),
        None => diagnostic,
    }
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{apply_fixes, lint};
    use crate::diagnostics::{Applicability, Code};

    /// The hook module with `body` as the body of a `turn.failed` handler.
    fn hook(body: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\nexport default defineHook({{\n  events: {{\n    async \"turn.failed\"(event, ctx) {{\n{body}\n    }},\n  }},\n}});\n"
        )
    }

    fn fixed(body: &str) -> String {
        let source = hook(body);
        let found = lint(&source, Code::FetchWithoutTimeout);
        assert_eq!(found.len(), 1, "{found:#?}");
        let fix = found[0].fix.as_ref().expect("a fix");
        assert_eq!(fix.applicability, Applicability::Unsafe);
        let fixed = apply_fixes(&source, &found);
        let marker = "async \"turn.failed\"(event, ctx) {\n";
        let start = fixed.find(marker).unwrap() + marker.len();
        let end = fixed.rfind("\n    },\n  },").unwrap();
        fixed[start..end].to_owned()
    }

    #[test]
    fn a_timeout_is_added_in_the_layout_of_the_call() {
        assert_eq!(fixed("await fetch(url);"), "await fetch(url, { signal: AbortSignal.timeout(5_000) });");
        assert_eq!(fixed("await fetch(url,);"), "await fetch(url, { signal: AbortSignal.timeout(5_000) },);");
        assert_eq!(fixed("await fetch(url, {});"), "await fetch(url, { signal: AbortSignal.timeout(5_000) });");
        assert_eq!(fixed("await fetch(url, {   });"), "await fetch(url, { signal: AbortSignal.timeout(5_000) });");
        assert_eq!(
            fixed("await fetch(url, { method: \"POST\" });"),
            "await fetch(url, { method: \"POST\", signal: AbortSignal.timeout(5_000) });"
        );
        assert_eq!(
            fixed("await fetch(url, { method: \"POST\", });"),
            "await fetch(url, { method: \"POST\", signal: AbortSignal.timeout(5_000), });"
        );
        assert_eq!(
            fixed("      await fetch(url, {\n        method: \"POST\",\n        body,\n      });"),
            "      await fetch(url, {\n        method: \"POST\",\n        body,\n        signal: AbortSignal.timeout(5_000),\n      });"
        );
        assert_eq!(
            fixed("      await fetch(url, {\n\tmethod: \"POST\"\n      });"),
            "      await fetch(url, {\n\tmethod: \"POST\",\n\tsignal: AbortSignal.timeout(5_000)\n      });"
        );
    }

    #[test]
    fn no_fix_where_a_comment_would_be_split() {
        let source = hook("await fetch(url, { method: \"POST\" /* why */ });");
        let found = lint(&source, Code::FetchWithoutTimeout);
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].fix, None);
        let source = hook("await fetch(url, { /* nothing yet */ });");
        assert_eq!(lint(&source, Code::FetchWithoutTimeout)[0].fix, None);
    }

    #[test]
    fn what_may_hold_a_signal_is_not_reported() {
        for body in [
            "await fetch(url, { signal });",
            "await fetch(url, { signal: controller.signal, method: \"POST\" });",
            "await fetch(url, { \"signal\": s });",
            "await fetch(url, init);",
            "await fetch(url, { ...defaults });",
            "await fetch(url, { [key]: value });",
            "await fetch(...args);",
            "await fetch(new Request(url, { signal }));",
            "await Promise.race([fetch(url), sleep(1000)]);",
            "const fetch = (u) => u; fetch(url);",
            "function later(fetch) { return fetch(url); }",
        ] {
            assert!(lint(&hook(body), Code::FetchWithoutTimeout).is_empty(), "{body}");
        }
    }

    #[test]
    fn a_fetch_in_a_callback_or_a_named_handler_is_reported() {
        assert_eq!(lint(&hook("await Promise.all(urls.map((u) => fetch(u)));"), Code::FetchWithoutTimeout).len(), 1);
        assert_eq!(
            lint(&hook("await globalThis.fetch(url, { method: \"POST\" });"), Code::FetchWithoutTimeout).len(),
            1
        );
        let named = "import { defineHook } from \"@cursor/bdk/hooks\";\nasync function page(event) { await fetch(\"https://x\"); }\nconst done = async () => { await fetch(\"https://y\"); };\nexport default defineHook({ events: { \"turn.failed\": page, \"turn.completed\": done, \"*\": page } });\n";
        assert_eq!(lint(named, Code::FetchWithoutTimeout).len(), 2);
    }

    #[test]
    fn a_fetch_outside_handlers_or_of_another_module_is_not_reported() {
        let source = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport fetch from \"./my-fetch\";\nexport default defineHook({ events: { async \"turn.failed\"() { await fetch(url); } } });\n";
        assert!(lint(source, Code::FetchWithoutTimeout).is_empty());
        let source = "import { defineHook } from \"@cursor/bdk/hooks\";\nconst warm = fetch(\"https://x\");\nfunction unused() { return fetch(\"https://y\"); }\nexport default defineHook({ events: { \"turn.failed\"() {} } });\n";
        assert!(lint(source, Code::FetchWithoutTimeout).is_empty());
    }
}
