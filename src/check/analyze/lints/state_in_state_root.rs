//! `hooks::state-in-state-root`: a hook that writes files under `ctx.stateRoot`. The Hooks
//! guide: "It resets when a hosted deployment is replaced; keep derived state in kv or
//! files" (`ctx.host.kv`, `ctx.host.files`).
//!
//! Reported, anywhere in the module, at the path: a call of a writing function of `fs`,
//! `node:fs`, `fs/promises` or `node:fs/promises` ([`WRITES`]: `fs.writeFile(…)`,
//! `fs.promises.appendFile(…)`, an imported `mkdir(…)`, …) whose path (the destination of a
//! copy or a rename) is built from a `.stateRoot` read: `ctx.stateRoot` itself,
//! `path.join(ctx.stateRoot, …)`, a template or a sum holding it, or a variable of the same
//! function (or one around it) whose initialiser holds it, destructured `{ stateRoot }`
//! included. Not reported: reads, a path from elsewhere, a write through another module.

use std::collections::HashSet;

use oxc::ast::ast::{
    ArrowFunctionExpression, BindingPattern, BindingProperty, CallExpression, Expression, Function, VariableDeclarator,
};
use oxc::ast_visit::{Visit, walk};
use oxc::span::GetSpan;
use oxc::syntax::scope::ScopeFlags;

use super::Lints;
use super::syntax::{argument, chain};
use crate::check::analyze::scope::Binding;
use crate::diagnostics::{Code, Diagnostic};

/// The writing functions of `fs`, with the argument that is the path written.
const WRITES: &[(&str, usize)] = &[
    ("writeFile", 0),
    ("writeFileSync", 0),
    ("appendFile", 0),
    ("appendFileSync", 0),
    ("mkdir", 0),
    ("mkdirSync", 0),
    ("mkdtemp", 0),
    ("mkdtempSync", 0),
    ("createWriteStream", 0),
    ("truncate", 0),
    ("truncateSync", 0),
    ("copyFile", 1),
    ("copyFileSync", 1),
    ("cp", 1),
    ("cpSync", 1),
    ("rename", 1),
    ("renameSync", 1),
];

const STATE_ROOT: &str = "stateRoot";

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if !lints.file.text.contains(STATE_ROOT) {
        return;
    }
    let mut writes = Writes { lints, held: vec![HashSet::new()], found };
    writes.visit_program(lints.program);
}

struct Writes<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    /// Per function, innermost last: the names whose value holds a `stateRoot`.
    held: Vec<HashSet<&'a str>>,
    found: &'l mut Vec<Diagnostic>,
}

impl<'a> Writes<'_, '_, 'a> {
    /// Which argument of `call` is a path it writes, when it is a write of `fs`.
    fn written_path(&self, call: &CallExpression<'a>) -> Option<usize> {
        let callee = chain(&call.callee)?;
        let function = match (self.lints.scope.binding(callee.root)?, &callee.path[..]) {
            (Binding::Namespace { source, .. }, [Some(function)] | [Some("promises"), Some(function)])
                if is_fs(source) =>
            {
                *function
            }
            (Binding::Import { source, imported: "promises", .. }, [Some(function)]) if is_fs(source) => *function,
            (Binding::Import { source, imported, .. }, []) if is_fs(source) => imported,
            _ => return None,
        };
        WRITES.iter().find(|(name, _)| *name == function).map(|(_, index)| *index)
    }

    /// Whether `expr` holds a `stateRoot` read, or a name that does.
    fn holds_state_root(&self, expr: &Expression<'a>) -> bool {
        struct Holds<'w, 'a> {
            held: &'w [HashSet<&'a str>],
            found: bool,
        }
        impl<'a> Visit<'a> for Holds<'_, 'a> {
            fn visit_expression(&mut self, it: &Expression<'a>) {
                match it {
                    Expression::Identifier(id) => {
                        self.found |= self.held.iter().any(|names| names.contains(id.name.as_str()));
                    }
                    Expression::StaticMemberExpression(member) if member.property.name == STATE_ROOT => {
                        self.found = true;
                    }
                    _ => walk::walk_expression(self, it),
                }
            }
        }
        let mut holds = Holds { held: &self.held, found: false };
        holds.visit_expression(expr);
        holds.found
    }

    fn hold(&mut self, name: &'a str) {
        if let Some(names) = self.held.last_mut() {
            names.insert(name);
        }
    }
}

impl<'a> Visit<'a> for Writes<'_, '_, 'a> {
    fn visit_function(&mut self, it: &Function<'a>, flags: ScopeFlags) {
        self.held.push(HashSet::new());
        walk::walk_function(self, it, flags);
        self.held.pop();
    }

    fn visit_arrow_function_expression(&mut self, it: &ArrowFunctionExpression<'a>) {
        self.held.push(HashSet::new());
        walk::walk_arrow_function_expression(self, it);
        self.held.pop();
    }

    fn visit_binding_property(&mut self, it: &BindingProperty<'a>) {
        // `{ stateRoot }` or `{ stateRoot: root }`, in a parameter or a declaration.
        if it.key.static_name().is_some_and(|name| name == STATE_ROOT)
            && let BindingPattern::BindingIdentifier(id) = &it.value
        {
            self.hold(id.name.as_str());
        }
        walk::walk_binding_property(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (BindingPattern::BindingIdentifier(id), Some(init)) = (&it.id, &it.init)
            && self.holds_state_root(init)
        {
            self.hold(id.name.as_str());
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_call_expression(&mut self, it: &CallExpression<'a>) {
        if let Some(index) = self.written_path(it)
            && let Some(path) = argument(it, index)
            && self.holds_state_root(path)
        {
            let span = path.span();
            self.found.push(self.lints.file.diagnostic(
                Code::StateInStateRoot,
                Lints::at(span),
                "under the state root",
                "this writes under `ctx.stateRoot`, which resets when a hosted deployment is replaced",
                "keep derived state in `ctx.host.kv` (durable JSON every session of the agent shares) or `ctx.host.files` (durable files of the session; `{ scope: \"deployment\" }` for the agent's), as the Hooks guide says: \"keep derived state in kv or files\"",
            ));
        }
        walk::walk_call_expression(self, it);
    }
}

fn is_fs(source: &str) -> bool {
    matches!(source, "fs" | "node:fs" | "fs/promises" | "node:fs/promises")
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn hook(imports: &str, body: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\nimport path from \"node:path\";\n{imports}\nexport default defineHook({{ events: {{ async \"turn.completed\"(event, ctx) {{\n{body}\n}} }} }});\n"
        )
    }

    #[test]
    fn writes_under_the_state_root_are_reported_at_the_path() {
        let source = hook(
            "import fs from \"node:fs\";\nimport { writeFile as write, promises } from \"fs\";\nimport * as fsp from \"node:fs/promises\";\nconst { appendFileSync } = require(\"fs\");",
            "fs.writeFileSync(path.join(ctx.stateRoot, \"a.json\"), \"{}\");\nconst dir = `${ctx.stateRoot}/cache`;\nawait fsp.mkdir(dir, { recursive: true });\nawait write(ctx.stateRoot + \"/b\", \"x\");\nawait promises.appendFile(path.resolve(dir, \"c\"), \"x\");\nappendFileSync(ctx.stateRoot, \"x\");\nawait fs.promises.rename(\"/tmp/x\", path.join(dir, \"x\"));",
        );
        assert_eq!(
            labels(&source, Code::StateInStateRoot),
            [
                "path.join(ctx.stateRoot, \"a.json\")",
                "dir",
                "ctx.stateRoot + \"/b\"",
                "path.resolve(dir, \"c\")",
                "ctx.stateRoot",
                "path.join(dir, \"x\")"
            ]
        );
        let destructured = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { writeFileSync } from \"node:fs\";\nfunction save({ stateRoot: root }, text) { writeFileSync(`${root}/x`, text); }\nexport default defineHook({ events: { \"turn.completed\"(event, ctx) { save(ctx, \"x\"); } } });\n";
        assert_eq!(labels(destructured, Code::StateInStateRoot), ["`${root}/x`"]);
    }

    #[test]
    fn reads_and_other_paths_are_not_reported() {
        let source = hook(
            "import fs from \"node:fs\";\nimport { writeFile } from \"./my-fs\";",
            "fs.readFileSync(path.join(ctx.stateRoot, \"a\"));\nfs.writeFileSync(\"/tmp/a\", ctx.stateRoot);\nfs.copyFileSync(path.join(ctx.stateRoot, \"a\"), \"/tmp/a\");\nawait writeFile(ctx.stateRoot, \"x\");\nconst root = \"/tmp\"; fs.mkdirSync(root);\nawait ctx.host.files.write(\"a\", \"x\");",
        );
        assert!(lint(&source, Code::StateInStateRoot).is_empty());
    }
}
