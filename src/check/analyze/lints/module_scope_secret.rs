//! `hooks::module-scope-secret`: an environment variable read when the module loads. The
//! Hooks guide: "Read secrets inside the handler: hosted deployments bind them after the
//! process starts, so a module-scope read stays empty."
//!
//! Reported: `process.env.X`, `process.env["X"]` and `const { X } = process.env` (also
//! through `import process from "node:process"` or `import { env } from "node:process"`)
//! in the module's top-level code: its statements and the initialisers of its top-level
//! declarations. Not reported: a read in any function (handlers and helpers run later),
//! in a class body, `process.env` as a whole (it is read later, through the object), a
//! computed name (`process.env[name]`), and the variables the process itself is started
//! with, which are never secrets: [`PROCESS_VARIABLES`], `OTEL_*` and `AGENT_SDK_*`.

use oxc::ast::ast::{
    ArrowFunctionExpression, BindingPattern, Class, ComputedMemberExpression, Function, StaticMemberExpression,
    VariableDeclarator,
};
use oxc::ast_visit::{Visit, walk};
use oxc::span::{GetSpan, Span};
use oxc::syntax::scope::ScopeFlags;

use super::Lints;
use super::syntax::{Chain, chain};
use crate::check::analyze::scope::Binding;
use crate::diagnostics::{Code, Diagnostic};

/// Variables set when the process starts, read at module scope on purpose.
const PROCESS_VARIABLES: &[&str] = &[
    "NODE_ENV",
    "NODE_OPTIONS",
    "NODE_DEBUG",
    "TZ",
    "LANG",
    "HOME",
    "PATH",
    "PWD",
    "CI",
    "DEBUG",
    "VITEST",
    "JEST_WORKER_ID",
];

/// Prefixes of variables set when the process starts: OpenTelemetry's, agent-sdk's own.
const PROCESS_PREFIXES: &[&str] = &["OTEL_", "AGENT_SDK_"];

pub(super) fn check(lints: &Lints, found: &mut Vec<Diagnostic>) {
    if !lints.file.text.contains("env") {
        return;
    }
    let mut reads = TopLevelReads { lints, found };
    for statement in &lints.program.body {
        reads.visit_statement(statement);
    }
}

struct TopLevelReads<'l, 's, 'a> {
    lints: &'l Lints<'s, 'a>,
    found: &'l mut Vec<Diagnostic>,
}

impl TopLevelReads<'_, '_, '_> {
    /// The variable `chain` reads from the environment: `Some(Some(name))`, `Some(None)`
    /// for the environment itself, `None` when it is not the environment.
    fn variable<'a>(&self, chain: &Chain<'a>) -> Option<Option<Option<&'a str>>> {
        let path = match self.lints.scope.binding(chain.root) {
            None if chain.root == "process" => chain.path.strip_prefix(&[Some("env")])?,
            Some(Binding::Namespace { source, .. }) if is_process_module(source) => {
                chain.path.strip_prefix(&[Some("env")])?
            }
            Some(Binding::Import { source, imported: "env", type_only: false, .. }) if is_process_module(source) => {
                &chain.path[..]
            }
            _ => return None,
        };
        match path {
            [] => Some(None),
            [name] => Some(Some(*name)),
            _ => None,
        }
    }

    /// A read of the variable `name` at `span`, written as `quoted`.
    fn read(&mut self, span: Span, name: &str, quoted: String) {
        if PROCESS_VARIABLES.contains(&name) || PROCESS_PREFIXES.iter().any(|prefix| name.starts_with(prefix)) {
            return;
        }
        self.found.push(self.lints.file.diagnostic(
            Code::ModuleScopeSecret,
            Lints::at(span),
            "read when the module loads",
            format!("`{quoted}` is read when the module loads: hosted deployments bind secrets after the process starts, so a module-scope read stays empty"),
            format!("read it inside the handler that uses it (`const value = process.env.{name};` in its body), as the Hooks guide says: \"Read secrets inside the handler\""),
        ));
    }
}

impl<'a> Visit<'a> for TopLevelReads<'_, '_, 'a> {
    fn visit_static_member_expression(&mut self, it: &StaticMemberExpression<'a>) {
        // A `MemberExpression` is visited as its variant; rebuild the chain from its parts.
        if let Some(mut chain) = chain(&it.object) {
            chain.path.push(Some(it.property.name.as_str()));
            if let Some(Some(Some(name))) = self.variable(&chain) {
                self.read(it.span, name, self.lints.quote(it.span));
            }
        }
        walk::walk_static_member_expression(self, it);
    }

    fn visit_computed_member_expression(&mut self, it: &ComputedMemberExpression<'a>) {
        if let Some(mut chain) = chain(&it.object) {
            chain.path.push(it.static_property_name().map(|name| name.as_str()));
            if let Some(Some(Some(name))) = self.variable(&chain) {
                self.read(it.span, name, self.lints.quote(it.span));
            }
        }
        walk::walk_computed_member_expression(self, it);
    }

    fn visit_variable_declarator(&mut self, it: &VariableDeclarator<'a>) {
        if let (BindingPattern::ObjectPattern(object), Some(init)) = (&it.id, &it.init)
            && let Some(read) = chain(init)
            && let Some(None) = self.variable(&read)
        {
            for property in &object.properties {
                if let (false, Some(std::borrow::Cow::Borrowed(name))) = (property.computed, property.key.static_name())
                {
                    self.read(property.key.span(), name, format!("process.env.{name}"));
                }
            }
        }
        walk::walk_variable_declarator(self, it);
    }

    fn visit_function(&mut self, _: &Function<'a>, _: ScopeFlags) {}

    fn visit_arrow_function_expression(&mut self, _: &ArrowFunctionExpression<'a>) {}

    fn visit_class(&mut self, _: &Class<'a>) {}
}

fn is_process_module(source: &str) -> bool {
    matches!(source, "process" | "node:process")
}

#[cfg(test)]
mod tests {
    use crate::check::analyze::lints::tests::{labels, lint};
    use crate::diagnostics::Code;

    fn module(top: &str) -> String {
        format!(
            "import {{ defineHook }} from \"@cursor/bdk/hooks\";\n{top}\nexport default defineHook({{ events: {{ \"turn.failed\"() {{}} }} }});\n"
        )
    }

    #[test]
    fn every_form_of_a_module_scope_read_is_reported_at_the_read() {
        let source = module(
            "const a = process.env.SLACK_URL;\nconst b = process.env[\"API_KEY\"] ?? \"\";\nconst { TOKEN, OTHER: other = \"\" } = process.env;\nif (process.env.FLAG) {}\nimport proc from \"node:process\";\nimport { env } from \"process\";\nconst c = proc.env.C, d = env.D;",
        );
        assert_eq!(
            labels(&source, Code::ModuleScopeSecret),
            [
                "process.env.SLACK_URL",
                "process.env[\"API_KEY\"]",
                "TOKEN",
                "OTHER",
                "process.env.FLAG",
                "proc.env.C",
                "env.D"
            ]
        );
    }

    #[test]
    fn reads_that_happen_later_or_are_not_secrets_are_not_reported() {
        let source = module(
            "const env = process.env;\nconst name = \"X\"; const x = process.env[name];\nconst mode = process.env.NODE_ENV, svc = process.env.OTEL_SERVICE_NAME, echo = process.env.AGENT_SDK_BENCH_ECHO;\nfunction url() { return process.env.SLACK_URL; }\nconst lazy = () => process.env.SLACK_URL;\nclass Config { url = process.env.SLACK_URL; }\nconst process2 = { env: { A: 1 } }; const a = process2.env.A;",
        );
        assert!(lint(&source, Code::ModuleScopeSecret).is_empty());
        let shadowed = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport process from \"./fake-process\";\nconst a = process.env.SLACK_URL;\nexport default defineHook({ events: { \"turn.failed\"() { const u = process.env.SLACK_URL; } } });\n";
        assert!(lint(shadowed, Code::ModuleScopeSecret).is_empty());
    }
}
