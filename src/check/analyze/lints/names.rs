//! The names a handler binds for its event and its `ctx`: the parameters (whatever they are
//! called, destructured or not) and `const`s read from them, each with the path under the
//! event or `ctx` it stands for. A name the handler's body declares again or assigns to is
//! dropped: what it holds is no longer known.

use std::collections::{HashMap, HashSet};

use oxc::ast::ast::{
    AssignmentTargetPropertyIdentifier, BindingIdentifier, BindingPattern, FormalParameters, SimpleAssignmentTarget,
    VariableDeclaration, VariableDeclarationKind,
};
use oxc::ast_visit::{Visit, walk};

use super::Body;
use super::syntax::{Chain, chain};

/// What a name stands for: a path under the handler's event or `ctx`.
type Paths<'a> = HashMap<&'a str, Vec<&'a str>>;

#[derive(Debug, Default)]
pub struct HandlerNames<'a> {
    event: Paths<'a>,
    ctx: Paths<'a>,
    /// Every name the body declares, however deep, with how many times.
    declared: HashMap<&'a str, usize>,
    /// Every name the body assigns to.
    assigned: HashSet<&'a str>,
}

impl<'a> HandlerNames<'a> {
    pub fn new(params: &FormalParameters<'a>, body: Body<'a>) -> Self {
        let mut names = HandlerNames::default();
        let mut declarations = Declarations { declared: HashMap::new(), assigned: HashSet::new() };
        body.walk(&mut declarations);
        names.declared = declarations.declared;
        names.assigned = declarations.assigned;
        if let Some(event) = params.items.first() {
            bind(&event.pattern, Vec::new(), &mut names.event);
        }
        if let Some(ctx) = params.items.get(1) {
            bind(&ctx.pattern, Vec::new(), &mut names.ctx);
        }
        names.event.retain(|name, _| !names.declared.contains_key(name) && !names.assigned.contains(name));
        names.ctx.retain(|name, _| !names.declared.contains_key(name) && !names.assigned.contains(name));
        body.walk(&mut Aliases { names: &mut names });
        names
    }

    /// The path under the event that `chain` reads (`event.data.items` → `[data, items]`),
    /// when it starts from a name bound to the event or a part of it.
    pub fn under_event(&self, chain: &Chain<'a>) -> Option<Vec<Option<&'a str>>> {
        under(&self.event, chain)
    }

    /// [`Self::under_event`] for `ctx`.
    pub fn under_ctx(&self, chain: &Chain<'a>) -> Option<Vec<Option<&'a str>>> {
        under(&self.ctx, chain)
    }

    /// Whether a name stands for a property `property` under the event, or inside one
    /// (`const { status } = event.data`).
    pub fn reads_event_property(&self, property: &str) -> bool {
        self.event.values().any(|path| path.contains(&property))
    }

    /// Whether the body declares `name` anywhere (so a use of it may not be the module's).
    pub fn declares(&self, name: &str) -> bool {
        self.declared.contains_key(name) || self.assigned.contains(name)
    }
}

fn under<'a>(paths: &Paths<'a>, chain: &Chain<'a>) -> Option<Vec<Option<&'a str>>> {
    let base = paths.get(chain.root)?;
    Some(base.iter().map(|name| Some(*name)).chain(chain.path.iter().copied()).collect())
}

/// Binds the names `pattern` declares to the paths under `path` they read. A default value
/// (`{ data = {} }`), a rest element or an array pattern binds nothing known.
fn bind<'a>(pattern: &BindingPattern<'a>, path: Vec<&'a str>, paths: &mut Paths<'a>) {
    match pattern {
        BindingPattern::BindingIdentifier(id) => {
            paths.insert(id.name.as_str(), path);
        }
        BindingPattern::ObjectPattern(object) => {
            for property in &object.properties {
                if property.computed {
                    continue;
                }
                let Some(key) = property.key.static_name() else { continue };
                let std::borrow::Cow::Borrowed(key) = key else { continue };
                let mut inner = path.clone();
                inner.push(key);
                bind(&property.value, inner, paths);
            }
        }
        _ => {}
    }
}

/// Counts the names a body declares and collects those it assigns to.
struct Declarations<'a> {
    declared: HashMap<&'a str, usize>,
    assigned: HashSet<&'a str>,
}

impl<'a> Visit<'a> for Declarations<'a> {
    fn visit_binding_identifier(&mut self, it: &BindingIdentifier<'a>) {
        *self.declared.entry(it.name.as_str()).or_default() += 1;
    }

    fn visit_simple_assignment_target(&mut self, it: &SimpleAssignmentTarget<'a>) {
        if let SimpleAssignmentTarget::AssignmentTargetIdentifier(id) = it {
            self.assigned.insert(id.name.as_str());
        }
        walk::walk_simple_assignment_target(self, it);
    }

    fn visit_assignment_target_property_identifier(&mut self, it: &AssignmentTargetPropertyIdentifier<'a>) {
        self.assigned.insert(it.binding.name.as_str());
        walk::walk_assignment_target_property_identifier(self, it);
    }
}

/// Adds the `const`s read from the event or `ctx` (`const { data } = event`,
/// `const items = event.data.items`), in source order, each declared once in the body.
struct Aliases<'n, 'a> {
    names: &'n mut HandlerNames<'a>,
}

impl<'a> Visit<'a> for Aliases<'_, 'a> {
    fn visit_variable_declaration(&mut self, it: &VariableDeclaration<'a>) {
        if it.kind == VariableDeclarationKind::Const {
            for declarator in &it.declarations {
                let Some(read) = declarator.init.as_ref().and_then(chain) else { continue };
                for (under, paths) in [(under(&self.names.event, &read), 0), (under(&self.names.ctx, &read), 1)] {
                    let Some(path) = under.and_then(|path| path.into_iter().collect::<Option<Vec<_>>>()) else {
                        continue;
                    };
                    let mut bound = Paths::new();
                    bind(&declarator.id, path, &mut bound);
                    bound.retain(|name, _| self.names.declared.get(name) == Some(&1));
                    let target = if paths == 0 { &mut self.names.event } else { &mut self.names.ctx };
                    target.extend(bound);
                }
            }
        }
        walk::walk_variable_declaration(self, it);
    }
}
