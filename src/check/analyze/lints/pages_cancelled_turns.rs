//! `hooks::pages-cancelled-turns`: a `turn.failed` handler that pages for cancelled turns
//! too. `turn.failed` ends a turn interrupted with Ctrl-C as well (`status: "cancelled"`,
//! SPEC §5); the Hooks guide: "Skip cancelled turns when paging; they record interrupted
//! work."
//!
//! Reported, at the first outbound call (see `outbound`), for a handler of the key
//! `"turn.failed"` that neither writes `"cancelled"` (in `=== "cancelled"`, a `case`, an
//! array of statuses …) nor reads the event's `status` (`event.data.status`, `data.status`,
//! `const { status } = event.data`), nor passes the event or a part of it to a function
//! (which may check it). Not reported: a `"*"` handler (it may page on other events), and
//! calls in functions the handler calls.

use oxc::span::Span;

use super::facts::HandlerFacts;
use super::instruments::Instruments;
use super::outbound::Clients;
use super::{Handler, Lints};
use crate::diagnostics::{Code, Diagnostic};

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    let mut failed = lints.handlers.iter().filter(|handler| handler.handles("turn.failed")).peekable();
    if failed.peek().is_none() {
        return;
    }
    let clients = Clients::new(lints);
    if !clients.may_go_out(lints) {
        return;
    }
    let instruments = Instruments::default();
    for handler in failed {
        let facts = HandlerFacts::of(lints, handler, &clients, &instruments);
        if facts.mentions_cancelled || facts.reads_status || facts.hands_on_event {
            continue;
        }
        if let Some(outbound) = facts.outbound {
            found.push(pages_cancelled_turns(lints, handler, outbound));
        }
    }
}

fn pages_cancelled_turns(lints: &Lints, handler: &Handler, outbound: Span) -> Diagnostic {
    let event = handler.event_name().unwrap_or("event");
    lints.file.diagnostic(
        Code::PagesCancelledTurns,
        Lints::at(outbound),
        "also runs for cancelled turns",
        "this `turn.failed` handler pages for cancelled turns too: a turn interrupted on purpose ends with `turn.failed` and `status: \"cancelled\"`",
        format!(
            "return early when `{event}.data.status === \"cancelled\"`, as the Hooks guide says: \"Skip cancelled turns when paging; they record interrupted work\""
        ),
    )
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn hook(top: &str, handler: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\n{top}\nexport default defineHook({{ events: {{ {handler} }} }});\n"
        )
    }

    #[test]
    fn a_page_without_a_cancelled_check_is_reported_at_the_call() {
        let webhook =
            "import { IncomingWebhook } from \"@slack/webhook\";\nconst webhook = new IncomingWebhook(\"u\");";
        for (handler, label) in [
            (
                "async \"turn.failed\"(event, ctx) { await fetch(\"https://x\", { signal: AbortSignal.timeout(1) }); }",
                "fetch",
            ),
            ("\"turn.failed\": async (e) => { await webhook.send({ text: e.data.message }); }", "webhook.send"),
            (
                "async \"turn.failed\"(_e, ctx) { await ctx.host.slack.chat.postMessage({}); }",
                "ctx.host.slack.chat.postMessage",
            ),
            ("async \"turn.failed\"() { const w = new IncomingWebhook(\"u\"); await w.send({}); }", "w.send"),
            (
                "async \"turn.failed\"(event) { const copy = structuredClone(event.data); await fetch(copy.message); }",
                "fetch",
            ),
        ] {
            assert_eq!(labels(&hook(webhook, handler), Code::PagesCancelledTurns), [label], "{handler}");
        }
    }

    #[test]
    fn a_check_in_any_form_or_no_page_is_not_reported() {
        for handler in [
            "async \"turn.failed\"(event) { if (event.data.status === \"cancelled\") return; await fetch(\"u\"); }",
            "async \"turn.failed\"(e) { if (e.data.status !== \"error\") return; await fetch(\"u\"); }",
            "async \"turn.failed\"({ data }) { switch (data.status) { case \"cancelled\": return; } await fetch(\"u\"); }",
            "async \"turn.failed\"(event) { const { status } = event.data; if (status) return; await fetch(\"u\"); }",
            "async \"turn.failed\"(event) { if ([`cancelled`].includes(x)) return; await fetch(\"u\"); }",
            "async \"turn.failed\"(event) { if (!shouldPage(event)) return; await fetch(\"u\"); }",
            "async \"turn.failed\"(event, ctx) { await ctx.host.kv.set(\"last\", event.data.message); }",
            "async \"*\"(event) { await fetch(\"u\"); }",
            "async \"turn.completed\"(event) { await fetch(\"u\"); }",
            "async \"turn.failed\"(event) { const fetch = (u) => u; await fetch(\"u\"); }",
        ] {
            let top = "import { shouldPage } from \"./policy\";";
            assert!(lint(&hook(top, handler), Code::PagesCancelledTurns).is_empty(), "{handler}");
        }
    }
}
