//! Outbound calls, what the guide calls paging: a handler's call that leaves the process.
//! Exactly these count: the global `fetch(…)`; a call on `ctx.host.slack` or
//! `ctx.host.github`; and a call on something built from a package of [`CLIENT_PACKAGES`]
//! (`new IncomingWebhook(url).send(…)`, `axios.post(…)`, a module `const` made from one,
//! such as `const webhook = url ? new IncomingWebhook(url) : null`). A call of a function
//! from another module of the project is not one: what it does is not known here.

use std::collections::HashSet;

use oxc::ast::ast::{BindingPattern, CallExpression, Expression, ImportDeclarationSpecifier, Statement};
use oxc::span::Span;

use super::Lints;
use super::names::HandlerNames;
use super::syntax::{built_on, callee_chain, callee_span, module_declarators};
use crate::check::analyze::scope::Binding;

/// npm packages whose calls send something out: webhooks, chat and HTTP clients, mail.
pub const CLIENT_PACKAGES: &[&str] = &[
    "@slack/webhook",
    "@slack/web-api",
    "@octokit/rest",
    "@octokit/core",
    "octokit",
    "@pagerduty/pdjs",
    "axios",
    "got",
    "ky",
    "node-fetch",
    "undici",
    "superagent",
    "nodemailer",
    "@sendgrid/mail",
    "twilio",
];

/// The module's names that stand for an outbound client.
#[derive(Debug, Default)]
pub struct Clients<'a> {
    names: HashSet<&'a str>,
}

impl<'a> Clients<'a> {
    /// Imports from [`CLIENT_PACKAGES`] and the top-level `const`s built on them.
    pub fn new(lints: &Lints<'_, 'a>) -> Self {
        let mut clients = Clients::default();
        for statement in &lints.program.body {
            if let Statement::ImportDeclaration(import) = statement
                && CLIENT_PACKAGES.contains(&import.source.value.as_str())
            {
                for specifier in import.specifiers.iter().flatten() {
                    clients.names.insert(match specifier {
                        ImportDeclarationSpecifier::ImportSpecifier(specifier) => specifier.local.name.as_str(),
                        ImportDeclarationSpecifier::ImportDefaultSpecifier(specifier) => specifier.local.name.as_str(),
                        ImportDeclarationSpecifier::ImportNamespaceSpecifier(specifier) => {
                            specifier.local.name.as_str()
                        }
                    });
                }
            }
        }
        for declarator in module_declarators(lints.program) {
            let BindingPattern::BindingIdentifier(id) = &declarator.id else { continue };
            let name = id.name.as_str();
            let required = matches!(lints.scope.binding(name),
                Some(Binding::Import { source, .. } | Binding::Namespace { source, .. }) if CLIENT_PACKAGES.contains(&source));
            let built = declarator.init.as_ref().and_then(built_on).is_some_and(|on| clients.names.contains(on));
            if required || built {
                clients.names.insert(name);
            }
        }
        clients
    }

    /// Whether the module may make an outbound call at all: it names `fetch`, a client, or
    /// `ctx.host`'s Slack or GitHub client. Saves reading handlers that cannot.
    pub fn may_go_out(&self, lints: &Lints) -> bool {
        let text = lints.file.text;
        !self.names.is_empty() || text.contains("fetch") || text.contains("slack") || text.contains("github")
    }

    /// Whether `name` is a module-level client here (the handler does not declare its own).
    fn contains(&self, name: &str, names: &HandlerNames) -> bool {
        self.names.contains(name) && !names.declares(name)
    }
}

/// The callee of `call` when the call goes out (see the module's comment), in a handler
/// with these `names`; `local` are the handler's own `const`s built on a client.
pub fn outbound(
    call: &CallExpression,
    lints: &Lints,
    clients: &Clients,
    local: &HashSet<&str>,
    names: &HandlerNames,
) -> Option<Span> {
    let found = Some(callee_span(call));
    if is_global_fetch(&call.callee, lints, names) {
        return found;
    }
    if let Some(chain) = callee_chain(call)
        && let Some(path) = names.under_ctx(&chain)
        && path.len() >= 3
        && path[0] == Some("host")
        && matches!(path[1], Some("slack" | "github"))
    {
        return found;
    }
    let on = built_on(&call.callee)?;
    (local.contains(on) || clients.contains(on, names)).then(|| callee_span(call))
}

/// `fetch` (or `globalThis.fetch`) when it is the global one.
pub fn is_global_fetch(callee: &Expression, lints: &Lints, names: &HandlerNames) -> bool {
    match callee.get_inner_expression() {
        Expression::Identifier(id) => id.name == "fetch" && lints.is_global("fetch") && !names.declares("fetch"),
        Expression::StaticMemberExpression(member) => {
            member.property.name == "fetch"
                && member.object.is_specific_id("globalThis")
                && lints.is_global("globalThis")
                && !names.declares("globalThis")
        }
        _ => false,
    }
}

/// A handler's own `const x = <built on a client>` declarations.
pub fn local_client<'a>(declarator: &oxc::ast::ast::VariableDeclarator<'a>, clients: &Clients) -> Option<&'a str> {
    let BindingPattern::BindingIdentifier(id) = &declarator.id else { return None };
    let on = built_on(declarator.init.as_ref()?)?;
    clients.names.contains(on).then_some(id.name.as_str())
}
