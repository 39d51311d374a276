//! The `events` object (SPEC §3.7–3.10): every key an event type or `"*"`, every value a
//! function; what cannot be decided statically is advice, never an error.

use std::collections::HashSet;

use oxc::ast::ast::{Expression, ObjectExpression, ObjectProperty, ObjectPropertyKind, PropertyKey, PropertyKind};
use oxc::span::{GetSpan, Span};

use super::Checker;
use super::hook::{describe, is_plain_value};
use super::lints::HandlerSite;
use super::scope::Binding;
use crate::diagnostics::{Code, Fix};
use crate::vocabulary;

/// An `events` key, when it can be known statically.
enum EventKey<'a> {
    Known(std::borrow::Cow<'a, str>),
    Dynamic,
}

impl<'s, 'a> Checker<'s, 'a> {
    pub(super) fn check_events(&mut self, events: &'a ObjectExpression<'a>) {
        if events.properties.is_empty() {
            self.report(self.file.diagnostic(
                Code::EmptyEvents,
                (events.span.start, events.span.end),
                "no handlers",
                "`events` is empty, so this hook is skipped",
                "add a handler such as `\"turn.completed\"(event, ctx) { … }`, or delete the hook",
            ));
            return;
        }
        let mut seen = HashSet::new();
        for property in &events.properties {
            match property {
                ObjectPropertyKind::SpreadProperty(spread) => self.dynamic_keys(
                    spread.span,
                    "spread",
                    "a spread in `events` could add handlers that cannot be checked statically",
                ),
                ObjectPropertyKind::ObjectProperty(property) => self.check_event_property(property, &mut seen),
            }
        }
    }

    fn check_event_property(&mut self, property: &'a ObjectProperty<'a>, seen: &mut HashSet<String>) {
        let key = self.event_key(property);
        if property.kind == PropertyKind::Init {
            let key = match &key {
                EventKey::Known(key) => Some(key.to_string()),
                EventKey::Dynamic => None,
            };
            self.handlers.push(HandlerSite { key, value: &property.value });
        }
        match key {
            EventKey::Known(key) => {
                let key_span = property.key.span();
                if !vocabulary::is_known_key(&key) {
                    let written = !property.computed || matches!(property.key, PropertyKey::StringLiteral(_));
                    self.unknown_event(&key, key_span, !written);
                }
                if seen.insert(key.to_string()) {
                    self.analysis.events.push(key.into_owned());
                } else {
                    self.report(self.file.diagnostic(
                        Code::DuplicateEvent,
                        (key_span.start, key_span.end),
                        "handled again here",
                        format!("`{key}` has two handlers in `events`; only this last one is kept"),
                        "merge the two handlers into one",
                    ));
                }
            }
            EventKey::Dynamic => self.dynamic_keys(
                property.key.span(),
                "computed key",
                "this computed key could not be resolved statically, so its event type is not checked",
            ),
        }
        if property.method {
            return;
        }
        if property.kind != PropertyKind::Init {
            return self.dynamic_events(
                property.span,
                "accessor",
                "a getter or setter in `events` could not be checked statically",
            );
        }
        self.check_handler(&property.value);
    }

    /// The event type a property subscribes to: a plain or string key, or a computed key
    /// that is a string literal or a same-module `const` bound to one.
    fn event_key(&self, property: &'a ObjectProperty<'a>) -> EventKey<'a> {
        if !property.computed {
            return property.key.static_name().map_or(EventKey::Dynamic, EventKey::Known);
        }
        let Some(expr) = property.key.as_expression() else {
            return EventKey::Dynamic;
        };
        match self.scope.resolve(expr) {
            Expression::StringLiteral(literal) => EventKey::Known(literal.value.as_str().into()),
            Expression::TemplateLiteral(template) => {
                template.single_quasi().map_or(EventKey::Dynamic, |quasi| EventKey::Known(quasi.as_str().into()))
            }
            _ => match &property.key {
                PropertyKey::StringLiteral(literal) => EventKey::Known(literal.value.as_str().into()),
                _ => EventKey::Dynamic,
            },
        }
    }

    /// A handler must be a function: written in place, or a name bound to one.
    fn check_handler(&mut self, value: &'a Expression<'a>) {
        let resolved = self.scope.resolve(value);
        match resolved {
            Expression::ArrowFunctionExpression(_) | Expression::FunctionExpression(_) => {}
            expr if is_plain_value(expr) => self.handler_not_function(value.span(), describe(expr)),
            Expression::Identifier(id) => match self.scope.binding(id.name.as_str()) {
                Some(Binding::Function) => {}
                Some(Binding::Class) => self.handler_not_function(value.span(), "a class"),
                _ => self.dynamic_events(
                    value.span(),
                    "not known until the module runs",
                    &format!("the handler `{}` could not be checked statically", id.name),
                ),
            },
            _ => self.dynamic_events(
                value.span(),
                "not known until the module runs",
                "this handler could not be checked statically",
            ),
        }
    }

    fn handler_not_function(&mut self, span: Span, what: &str) {
        self.report(self.file.diagnostic(
            Code::HandlerNotFunction,
            (span.start, span.end),
            format!("this is {what}"),
            format!("this handler is {what}, not a function"),
            "a handler is a function of `(event, ctx)`: a method `\"turn.completed\"(event, ctx) { … }`, an arrow function, or the name of a function in this module",
        ));
    }

    fn unknown_event(&mut self, key: &str, span: Span, computed: bool) {
        let suggestion = vocabulary::suggest(key);
        let help = match suggestion {
            Some(suggestion) => format!("did you mean `{suggestion}`?"),
            None => format!(
                "use an event type ({}) or \"*\" for every event",
                vocabulary::EVENTS.iter().map(|event| event.name).collect::<Vec<_>>().join(", ")
            ),
        };
        let diagnostic = self.file.diagnostic(
            Code::UnknownEvent,
            (span.start, span.end),
            "not an event type",
            format!("`{key}` is not an event type, so this handler never runs"),
            help,
        );
        // A computed key's text is an expression (a const's name): only a written key is
        // replaced.
        let fix = suggestion.filter(|_| !computed).map(|suggestion| {
            Fix::safe(
                format!("Replace with `{suggestion}`"),
                vec![self.file.string_literal_edit(span.start, span.end, suggestion)],
            )
        });
        self.report(match fix {
            Some(fix) => diagnostic.with_fix(fix),
            None => diagnostic,
        });
    }

    /// [`Self::dynamic_events`], of what may add keys: the hook's events are not all known.
    fn dynamic_keys(&mut self, span: Span, label: &str, message: &str) {
        self.analysis.keys_unknown = true;
        self.dynamic_events(span, label, message);
    }

    fn dynamic_events(&mut self, span: Span, label: &str, message: &str) {
        self.report(self.file.diagnostic(
            Code::DynamicEvents,
            (span.start, span.end),
            label,
            message,
            "nothing to fix if this is intended; write keys and handlers literally to have them checked",
        ));
    }
}
