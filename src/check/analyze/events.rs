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
        let keys = self.keys_of(events);
        let mut seen = HashSet::new();
        for property in &events.properties {
            match property {
                ObjectPropertyKind::SpreadProperty(spread) => self.dynamic_keys(
                    spread.span,
                    "spread",
                    "a spread in `events` could add handlers that cannot be checked statically",
                ),
                ObjectPropertyKind::ObjectProperty(property) => self.check_event_property(property, &mut seen, &keys),
            }
        }
    }

    /// The keys of `events` as far as they can be known before the module runs.
    fn keys_of(&self, events: &'a ObjectExpression<'a>) -> KeysOfEvents {
        let mut keys = KeysOfEvents::default();
        for property in &events.properties {
            match property {
                ObjectPropertyKind::ObjectProperty(property) => match self.event_key(property) {
                    EventKey::Known(key) => keys.known.push(key.into_owned()),
                    EventKey::Dynamic => keys.all_known = false,
                },
                ObjectPropertyKind::SpreadProperty(_) => keys.all_known = false,
            }
        }
        keys
    }

    fn check_event_property(
        &mut self,
        property: &'a ObjectProperty<'a>,
        seen: &mut HashSet<String>,
        keys: &KeysOfEvents,
    ) {
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
                    self.unknown_event(&key, key_span, !written, keys);
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

    fn unknown_event(&mut self, key: &str, span: Span, computed: bool, keys: &KeysOfEvents) {
        let suggestion = vocabulary::suggest(key);
        let rename = suggestion.map(|suggestion| (suggestion, keys.rename(key, suggestion)));
        let help = match &rename {
            Some((suggestion, rename)) => format!("did you mean `{suggestion}`?{}", rename.says(suggestion)),
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
        let fix = rename.filter(|_| !computed).and_then(|(suggestion, rename)| {
            let title = format!("Replace with `{suggestion}`");
            let edits = vec![self.file.string_literal_edit(span.start, span.end, suggestion)];
            match rename {
                Rename::Safe => Some(Fix::safe(title, edits)),
                Rename::BesideWildcard | Rename::KeysUnknown => Some(Fix::unsafe_(title, edits)),
                Rename::AlreadyHandled | Rename::AlsoSuggested(_) => None,
            }
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

/// The keys of one `events` object, for the fix of a misspelt one.
#[derive(Debug)]
struct KeysOfEvents {
    /// Every key known before the module runs, in source order.
    known: Vec<String>,
    /// No spread or computed key could add others.
    all_known: bool,
}

impl Default for KeysOfEvents {
    fn default() -> Self {
        Self { known: Vec::new(), all_known: true }
    }
}

/// What renaming a misspelt key to the event type it suggests would do to its object.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Rename {
    /// Nothing else handles that event: the handler starts to run, as plainly meant.
    Safe,
    /// The object already has that key: JavaScript keeps the last of two equal keys, so
    /// one of the two handlers would be lost. No fix.
    AlreadyHandled,
    /// Another misspelt key (this one) suggests the same event: both renamed would be one
    /// key again. No fix.
    AlsoSuggested(String),
    /// `"*"` already sees that event: the handler would run beside it (an unsafe fix).
    BesideWildcard,
    /// A spread or computed key may hold that key already (an unsafe fix).
    KeysUnknown,
}

impl KeysOfEvents {
    /// What renaming `key` to `suggestion` would do.
    fn rename(&self, key: &str, suggestion: &str) -> Rename {
        if self.known.iter().any(|known| known == suggestion) {
            return Rename::AlreadyHandled;
        }
        let near = |other: &&String| {
            other.as_str() != key && !vocabulary::is_known_key(other) && vocabulary::suggest(other) == Some(suggestion)
        };
        if let Some(other) = self.known.iter().find(near) {
            return Rename::AlsoSuggested(other.clone());
        }
        if self.known.iter().any(|known| known == vocabulary::WILDCARD) {
            return Rename::BesideWildcard;
        }
        if !self.all_known {
            return Rename::KeysUnknown;
        }
        Rename::Safe
    }
}

impl Rename {
    /// What the help adds after "did you mean `<suggestion>`?".
    fn says(&self, suggestion: &str) -> String {
        match self {
            Rename::Safe => String::new(),
            Rename::AlreadyHandled => format!(
                " This object already handles `{suggestion}`, so it is not renamed (JavaScript keeps only the last of two equal keys, and the handler that runs would be lost): merge the two handlers, or delete this one"
            ),
            Rename::AlsoSuggested(other) => format!(
                " `{other}` is near it too, so neither is renamed (the two would be one key, and one handler would be lost): keep the one you meant and delete the other"
            ),
            Rename::BesideWildcard => format!(
                " `\"*\"` already handles every event here: renamed, this handler runs beside it for `{suggestion}` (a fix only with --unsafe-fixes)"
            ),
            Rename::KeysUnknown => format!(
                " A spread or computed key in this object may already handle `{suggestion}`, which the renamed key would replace or be replaced by (a fix only with --unsafe-fixes)"
            ),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn keys(known: &[&str], all_known: bool) -> KeysOfEvents {
        KeysOfEvents { known: known.iter().map(|key| key.to_string()).collect(), all_known }
    }

    #[test]
    fn a_misspelt_key_is_renamed_safely_only_when_nothing_else_handles_its_event() {
        let rename = |known: &[&str], all_known| keys(known, all_known).rename("turn.complete", "turn.completed");
        assert_eq!(rename(&["turn.complete", "turn.failed"], true), Rename::Safe);
        assert_eq!(rename(&["turn.completed", "turn.complete"], true), Rename::AlreadyHandled);
        assert_eq!(rename(&["turn.complete", "turn.complet"], true), Rename::AlsoSuggested("turn.complet".into()));
        assert_eq!(rename(&["*", "turn.complete"], true), Rename::BesideWildcard);
        assert_eq!(rename(&["turn.complete"], false), Rename::KeysUnknown);
    }
}
