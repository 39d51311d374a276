//! Reading an expression as the lints need it: a member chain down to the name it starts
//! from (`event.data["items"]?.length` starts from `event`, through `data`, `items`, `length`).

use oxc::ast::ast::{
    Argument, CallExpression, Declaration, Expression, MemberExpression, Program, Statement, VariableDeclarator,
};
use oxc::span::Span;

/// A name and the properties read from it, in order; `None` for a computed one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Chain<'a> {
    pub root: &'a str,
    pub path: Vec<Option<&'a str>>,
}

/// `expr` as a member chain (through parentheses, type assertions and `?.`), or `None`
/// when it does not start from a name.
pub fn chain<'a>(expr: &Expression<'a>) -> Option<Chain<'a>> {
    let mut path = Vec::new();
    let mut expr = expr.get_inner_expression();
    loop {
        let member = match expr {
            Expression::ChainExpression(chain) => chain.expression.as_member_expression()?,
            Expression::Identifier(id) => {
                path.reverse();
                return Some(Chain { root: id.name.as_str(), path });
            }
            expr => expr.as_member_expression()?,
        };
        path.push(member.static_property_name());
        expr = member.object().get_inner_expression();
    }
}

/// The chain a member expression reads (`a.b.c` as a whole).
pub fn member_chain<'a>(member: &MemberExpression<'a>) -> Option<Chain<'a>> {
    let mut chain = chain(member.object())?;
    chain.path.push(member.static_property_name());
    Some(chain)
}

/// `callee(…)` as a chain: `fetch` is `fetch` with no path, `a.b.send` is `a` through `b`, `send`.
pub fn callee_chain<'a>(call: &CallExpression<'a>) -> Option<Chain<'a>> {
    chain(&call.callee)
}

/// The name an expression is built on, through member reads, calls and `new`
/// (`new Webhook(url).send` and `nodemailer.createTransport().sendMail` start from
/// `Webhook` and `nodemailer`), and through `a ? b : c`, `a ?? b` and `await`: every
/// branch that is not `null`/`undefined` must start from the same name.
pub fn built_on<'a>(expr: &Expression<'a>) -> Option<&'a str> {
    let mut expr = expr.get_inner_expression();
    for _ in 0..64 {
        expr = match expr {
            Expression::Identifier(id) => return Some(id.name.as_str()),
            Expression::CallExpression(call) => call.callee.get_inner_expression(),
            Expression::NewExpression(new) => new.callee.get_inner_expression(),
            Expression::AwaitExpression(inner) => inner.argument.get_inner_expression(),
            Expression::ChainExpression(chain) => match &chain.expression {
                oxc::ast::ast::ChainElement::CallExpression(call) => call.callee.get_inner_expression(),
                element => element.as_member_expression()?.object().get_inner_expression(),
            },
            Expression::ConditionalExpression(conditional) => {
                return either(
                    built_on_or_nothing(&conditional.consequent),
                    built_on_or_nothing(&conditional.alternate),
                )?;
            }
            Expression::LogicalExpression(logical) => {
                return either(built_on_or_nothing(&logical.left), built_on_or_nothing(&logical.right))?;
            }
            expr => expr.as_member_expression()?.object().get_inner_expression(),
        };
    }
    None
}

/// `Some(None)` for `null`/`undefined` (a branch that holds nothing), else [`built_on`].
fn built_on_or_nothing<'a>(expr: &Expression<'a>) -> Option<Option<&'a str>> {
    let expr = expr.get_inner_expression();
    if expr.is_null() || expr.is_specific_id("undefined") {
        return Some(None);
    }
    built_on(expr).map(Some)
}

fn either<'a>(a: Option<Option<&'a str>>, b: Option<Option<&'a str>>) -> Option<Option<&'a str>> {
    match (a?, b?) {
        (Some(a), Some(b)) if a == b => Some(Some(a)),
        (Some(name), None) | (None, Some(name)) => Some(Some(name)),
        _ => None,
    }
}

/// The argument at `index` when it is a plain expression and no spread comes before it (a
/// spread moves every argument after it).
pub fn argument<'b, 'a>(call: &'b CallExpression<'a>, index: usize) -> Option<&'b Expression<'a>> {
    if call.arguments.iter().take(index + 1).any(|argument| matches!(argument, Argument::SpreadElement(_))) {
        return None;
    }
    call.arguments.get(index)?.as_expression()
}

/// The span of `callee(` … `)`'s callee, to label a call without its arguments.
pub fn callee_span(call: &CallExpression) -> Span {
    oxc::span::GetSpan::span(&call.callee)
}

/// The variables a module declares at its top level (`const x = …`, `export let y = …`).
pub fn module_declarators<'b, 'a>(program: &'b Program<'a>) -> impl Iterator<Item = &'b VariableDeclarator<'a>> {
    program
        .body
        .iter()
        .filter_map(|statement| match statement {
            Statement::VariableDeclaration(declaration) => Some(declaration),
            Statement::ExportDeclaration(export) => match &export.declaration {
                Declaration::VariableDeclaration(declaration) => Some(declaration),
                _ => None,
            },
            _ => None,
        })
        .flat_map(|declaration| declaration.declarations.iter())
}
