//! Proves that `analyze_module` never panics, whatever text it is given (generated hooks, mangled hooks,
//! deeply nested or unbalanced code, garbage), and that every diagnostic it returns is well formed:
//! located inside the text, on the right 1-based line and column, in the right file, with a message and
//! a help; and that `events` never repeats a key.
//!
//! Over 600 lines on purpose: most of it is the grammar of generated hooks, which reads
//! best in one place.

use std::collections::HashSet;
use std::fmt::Debug;

use agent_sdk::check::analyze::{HookAnalysis, analyze_module};
use agent_sdk::diagnostics::Code;
use proptest::prelude::*;
use proptest::sample::{Index, select};
use proptest::test_runner::{Config, TestCaseResult, TestRunner};

/// The stack `analyze_module` expects of its caller (the CLI's analysis threads have it).
const STACK_BYTES: usize = agent_sdk::parse::STACK_BYTES;

/// Cases per property: enough to find shallow bugs, few enough to run in seconds in a debug build.
const CASES: u32 = 256;

/// The hooks modules `defineHook` may be imported from.
const SDK_MODULES: [&str; 3] = agent_sdk::sdk::HOOKS_MODULES;

/// Event keys the analyser knows.
const KNOWN_KEYS: [&str; 4] = ["turn.completed", "turn.failed", "message.received", "*"];

/// Display paths: every extension oxc tells apart, and one it does not know.
const PATHS: [&str; 11] = [
    "bot/hooks/h.ts",
    "bot/hooks/h.mts",
    "bot/hooks/h.cts",
    "bot/hooks/h.tsx",
    "bot/hooks/h.d.ts",
    "bot/hooks/h.js",
    "bot/hooks/h.mjs",
    "bot/hooks/h.cjs",
    "bot/hooks/h.jsx",
    "agent/hooks/nested/dir/été.ts",
    "bot/hooks/no-extension",
];

// ---------------------------------------------------------------------------------------------
// Running properties on a stack as big as the CLI's, and the invariants every output must meet.
// ---------------------------------------------------------------------------------------------

/// Runs `f` on a thread with [`STACK_BYTES`] of stack, re-raising its panic.
fn on_big_stack<T: Send>(f: impl FnOnce() -> T + Send) -> T {
    std::thread::scope(|scope| {
        let thread = std::thread::Builder::new()
            .name("big-stack".to_owned())
            .stack_size(STACK_BYTES)
            .spawn_scoped(scope, f)
            .expect("spawn a thread with a big stack");
        thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
    })
}

/// Checks `test` on `cases` values of the strategy `make()` builds, on a big stack. No
/// regression file is written: a failure is reported with its shrunk input, to be kept as a `#[test]`.
fn check_property<S>(cases: u32, make: impl FnOnce() -> S + Send, test: impl Fn(S::Value) -> TestCaseResult + Send)
where
    S: Strategy,
    S::Value: Debug,
{
    on_big_stack(move || {
        // `PROPTEST_CASES=100000` runs a longer search.
        let cases = std::env::var("PROPTEST_CASES").ok().and_then(|cases| cases.parse().ok()).unwrap_or(cases);
        let config = Config { cases, failure_persistence: None, ..Config::default() };
        let mut runner = TestRunner::new(config);
        if let Err(error) = runner.run(&make(), test) {
            panic!("{error}");
        }
    });
}

/// Analyses `text` and checks the invariants; the error says which one broke.
fn analyze_checked(display_path: &str, text: &str) -> Result<HookAnalysis, String> {
    let analysis = analyze_module(display_path, text);
    invariants(display_path, text, &analysis)?;
    Ok(analysis)
}

/// [`analyze_checked`] for `proptest`: a broken invariant fails the case.
fn prop_analyze(display_path: &str, text: &str) -> Result<HookAnalysis, TestCaseError> {
    analyze_checked(display_path, text).map_err(TestCaseError::fail)
}

/// [`analyze_checked`] for plain tests, on a big stack.
fn analyze_ok(display_path: &str, text: &str) -> HookAnalysis {
    on_big_stack(|| analyze_checked(display_path, text)).unwrap_or_else(|broken| {
        panic!("{broken}\n  path: {display_path:?}\n  text ({} bytes): {:?}", text.len(), preview(text))
    })
}

fn preview(text: &str) -> String {
    if text.len() <= 400 {
        return text.to_owned();
    }
    let mut end = 400;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}… ({} more bytes)", &text[..end], text.len() - end)
}

/// Everything that must hold of any analysis of any text.
fn invariants(display_path: &str, text: &str, analysis: &HookAnalysis) -> Result<(), String> {
    for diagnostic in &analysis.diagnostics {
        let context = || format!("in diagnostic {diagnostic:#?}");
        if diagnostic.path.as_deref() != Some(display_path) {
            return Err(format!("path is not Some({display_path:?}) {}", context()));
        }
        if diagnostic.message.trim().is_empty() {
            return Err(format!("empty message {}", context()));
        }
        if diagnostic.help.trim().is_empty() {
            return Err(format!("empty help {}", context()));
        }
        // `analyze_module` turns a panic in (or failure to start) its own analysis thread
        // into this code; `read_hook` is the only other source of it.
        if diagnostic.code == Code::Unreadable {
            return Err(format!("the analysis thread panicked or could not start {}", context()));
        }
        let Some(label) = &diagnostic.label else {
            continue;
        };
        if label.start > label.end || label.end as usize > text.len() {
            return Err(format!(
                "span {}..{} is not inside the {} bytes of text {}",
                label.start,
                label.end,
                text.len(),
                context()
            ));
        }
        if !text.is_char_boundary(label.start as usize) || !text.is_char_boundary(label.end as usize) {
            return Err(format!("span {}..{} splits a character {}", label.start, label.end, context()));
        }
        let (start, end) = (label.start_at, label.end_at);
        if start.line < 1 || start.column < 1 || end.line < 1 || end.column < 1 {
            return Err(format!("a line or column is not 1-based {}", context()));
        }
        if (start.line, start.column) > (end.line, end.column) {
            return Err(format!("start_at is after end_at {}", context()));
        }
        if (start.line, start.column) != line_column(text, label.start) {
            return Err(format!("start_at should be {:?} {}", line_column(text, label.start), context()));
        }
        if (end.line, end.column) != line_column(text, label.end) {
            return Err(format!("end_at should be {:?} {}", line_column(text, label.end), context()));
        }
    }
    let mut seen = HashSet::new();
    if let Some(repeated) = analysis.events.iter().find(|event| !seen.insert(event.as_str())) {
        return Err(format!("event {repeated:?} is listed twice in {:?}", analysis.events));
    }
    let unparsable = analysis.diagnostics.iter().any(|diagnostic| diagnostic.code == Code::ParseError);
    if unparsable && !analysis.events.is_empty() {
        return Err(format!("a module that does not parse handles events {:?}", analysis.events));
    }
    Ok(())
}

/// The 1-based line and character column of byte `offset`, computed the slow, obvious way.
fn line_column(text: &str, offset: u32) -> (u32, u32) {
    let mut offset = (offset as usize).min(text.len());
    while !text.is_char_boundary(offset) {
        offset -= 1;
    }
    let before = &text[..offset];
    let line = before.matches('\n').count() + 1;
    let line_start = before.rfind('\n').map_or(0, |newline| newline + 1);
    let column = before[line_start..].chars().count() + 1;
    (line as u32, column as u32)
}

// ---------------------------------------------------------------------------------------------
// Valid-ish hook sources, built from pieces.
// ---------------------------------------------------------------------------------------------

/// A display path and whether the generated source may use TypeScript syntax: mostly as its
/// extension says, sometimes not (TypeScript in a `.js` file, plain JavaScript in a `.ts` one).
fn path_and_dialect() -> impl Strategy<Value = (&'static str, bool)> {
    let path = prop_oneof![
        6 => select(vec!["bot/hooks/h.ts", "bot/hooks/h.mts", "bot/hooks/h.cts", "agent/hooks/nested/dir/été.ts"]),
        3 => select(vec!["bot/hooks/h.js", "bot/hooks/h.mjs", "bot/hooks/h.cjs"]),
        1 => select(vec!["bot/hooks/h.d.ts", "bot/hooks/h.tsx", "bot/hooks/h.jsx", "bot/hooks/no-extension"]),
    ];
    (path, 0..10u8).prop_map(|(path, mismatch)| {
        let typescript = path.ends_with("ts") || path.ends_with("tsx") || path.ends_with("no-extension");
        (path, typescript != (mismatch == 0))
    })
}

/// Names for bindings and references; the SDK's names (which shadow or misuse the import) less often.
fn name() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        4 => select(vec!["h", "hook", "onTurn", "handler", "events", "options", "x"]),
        1 => select(vec!["defineHook", "dh", "sdk", "undefined", "require", "module", "exports"]),
    ]
}

fn module_specifier() -> impl Strategy<Value = &'static str> {
    prop_oneof![
        3 => select(SDK_MODULES.to_vec()),
        1 => select(vec![
            "@cursor/bdk",
            "@grok/agent-sdk",
            "@cursor/july/hook",
            "@cursor/bdk/memory",
            "./helpers",
            "../shared/hooks.js",
            "",
            "é/模块",
        ]),
    ]
}

/// Where generated calls put the callee that matches the module's SDK import, if it has one.
const SDK_CALLEE: &str = "@SDK_CALLEE@";

/// The import a hook usually starts with (`defineHook` from a hooks module, by name, alias,
/// namespace or `require`), and the callee that calls it.
fn sdk_import() -> impl Strategy<Value = (String, &'static str)> {
    (0..6u8, select(SDK_MODULES.to_vec())).prop_map(|(form, module)| match form {
        0 | 1 => (format!("import {{ defineHook }} from \"{module}\";"), "defineHook"),
        2 => (format!("import {{ defineHook as dh }} from \"{module}\";"), "dh"),
        3 => (format!("import * as sdk from \"{module}\";"), "sdk.defineHook"),
        4 => (format!("import sdk from \"{module}\";"), "sdk.defineHook"),
        _ => (format!("const {{ defineHook }} = require(\"{module}\");"), "defineHook"),
    })
}

fn import(typescript: bool) -> impl Strategy<Value = String> {
    (0..11u8, module_specifier(), name(), name()).prop_map(move |(form, module, a, b)| match form {
        0 => format!("import {{ defineHook }} from \"{module}\";"),
        1 => format!("import {{ defineHook as {a} }} from '{module}';"),
        2 => format!("import * as {a} from \"{module}\";"),
        3 if typescript => format!("import type {{ defineHook }} from \"{module}\";"),
        4 if typescript => format!("import {{ type defineHook, {a} }} from \"{module}\";"),
        3 | 4 => format!("import {{ \"defineHook\" as {a} }} from \"{module}\";"),
        5 => format!("import {a} from \"{module}\";"),
        6 => format!("import {a}, {{ defineHook as {b} }} from \"{module}\";"),
        7 => format!("const {{ defineHook }} = require(\"{module}\");"),
        8 => format!("const {{ defineHook: {a}, ...{b} }} = require(`{module}`);"),
        9 => format!("const {a} = require(\"{module}\");"),
        _ => format!("import \"{module}\";"),
    })
}

fn event_key() -> impl Strategy<Value = String> {
    let known = select(KNOWN_KEYS.to_vec());
    let unknown = select(vec!["turn.complete", "turn", "message.recieved", "", "__proto__", "constructor", "émoji 🎉"]);
    prop_oneof![
        6 => known.clone().prop_map(|key| format!("\"{key}\"")),
        1 => known.clone().prop_map(|key| format!("'{key}'")),
        1 => known.clone().prop_map(|key| format!("[\"{key}\"]")),
        1 => known.prop_map(|key| format!("[`{key}`]")),
        2 => unknown.prop_map(|key| format!("\"{key}\"")),
        1 => name().prop_map(str::to_owned),
        1 => name().prop_map(|name| format!("[{name}]")),
        1 => select(vec!["[`turn.${x}`]", "[\"turn\" + \".failed\"]", "[Symbol.iterator]", "1", "0x10", "1.5e3"])
            .prop_map(str::to_owned),
    ]
}

fn handler_value(typescript: bool) -> impl Strategy<Value = String> {
    let mut values = vec![
        "(event, ctx) => {}",
        "async (event) => { await event; }",
        "e => e",
        "function (event, ctx) {}",
        "async function named(event) { return 1; }",
        "function* gen() {}",
        "42",
        "-1",
        "1n",
        "\"not a function\"",
        "`template ${x}`",
        "null",
        "undefined",
        "true",
        "[]",
        "{}",
        "/re/g",
        "class {}",
        "make()",
        "onTurn.bind(null)",
        "x ? onTurn : handler",
        "new Function(\"\")",
    ];
    if typescript {
        values.extend(["(onTurn as any)", "onTurn!", "(event: Event, ctx: Ctx): void => {}", "<T,>(e: T) => e"]);
    }
    prop_oneof![2 => select(values).prop_map(str::to_owned), 1 => name().prop_map(str::to_owned)]
}

fn event_entry(typescript: bool) -> impl Strategy<Value = String> {
    (0..10u8, event_key(), handler_value(typescript), name()).prop_map(|(form, key, value, name)| match form {
        0..=3 => format!("{key}: {value}"),
        4 => format!("{key}(event, ctx) {{ return ctx; }}"),
        5 => format!("async {key}(event) {{}}"),
        6 => format!("get {key}() {{ return {value}; }}"),
        7 => format!("set {key}(v) {{}}"),
        8 => format!("...{name}"),
        _ => name.to_owned(),
    })
}

fn events_object(typescript: bool) -> impl Strategy<Value = String> {
    (prop::collection::vec(event_entry(typescript), 0..6), any::<bool>())
        .prop_map(|(entries, trailing)| format!("{{ {}{} }}", entries.join(", "), if trailing { "," } else { "" }))
}

fn options(typescript: bool) -> impl Strategy<Value = String> {
    (0..12u8, events_object(typescript), name()).prop_map(|(form, events, name)| match form {
        0..=4 => format!("{{ events: {events} }}"),
        5 => format!("{{ name: \"hook\", events: {events}, }}"),
        6 => format!("{{ events: {name} }}"),
        7 => format!("{{ ...{name}, events: {events} }}"),
        8 => format!("{{ [{name}]: {events} }}"),
        9 => "{ events() { return {}; } }".to_owned(),
        10 => "{ get events() { return {}; } }".to_owned(),
        _ => name.to_owned(),
    })
}

fn callee() -> impl Strategy<Value = String> {
    prop_oneof![
        12 => Just(SDK_CALLEE.to_owned()),
        2 => Just("defineHook".to_owned()),
        1 => Just("dh".to_owned()),
        1 => Just("sdk.defineHook".to_owned()),
        1 => name().prop_map(str::to_owned),
        1 => name().prop_map(|name| format!("{name}.defineHook")),
        1 => name().prop_map(|name| format!("({name}).defineHook")),
        1 => select(vec!["sdk[\"defineHook\"]", "defineHook.call", "(0, defineHook)", "sdk?.defineHook"])
            .prop_map(str::to_owned),
    ]
}

fn define_hook_call(typescript: bool) -> impl Strategy<Value = String> {
    (0..16u8, callee(), options(typescript)).prop_map(move |(form, callee, options)| match form {
        0..=11 => format!("{callee}({options})"),
        12 => format!("{callee}()"),
        13 => format!("{callee}(...args)"),
        14 => format!("{callee}({options}, extra)"),
        _ if typescript => format!("{callee}<Hook>({options})"),
        _ => format!("{callee}(({options}))"),
    })
}

/// Ways of writing an expression that change nothing (TypeScript's are erased).
fn wrap(typescript: bool, form: u8, expr: &str) -> String {
    match form {
        0 => format!("({expr})"),
        1 if typescript => format!("{expr} as const"),
        2 if typescript => format!("{expr} satisfies Hook"),
        3 if typescript => format!("<Hook>{expr}"),
        4 if typescript => format!("{expr}!"),
        5 if typescript => format!("(({expr}) as unknown as Hook)"),
        1..=5 => format!("(({expr}))"),
        _ => expr.to_owned(),
    }
}

fn value(typescript: bool) -> impl Strategy<Value = String> {
    prop_oneof![handler_value(typescript), events_object(typescript), options(typescript), define_hook_call(typescript)]
}

fn declaration(typescript: bool) -> impl Strategy<Value = String> {
    (0..10u8, name(), value(typescript)).prop_map(move |(form, name, value)| match form {
        0..=2 => format!("const {name} = {value};"),
        3 => format!("let {name} = {value};"),
        4 => format!("var {name};"),
        5 => format!("function {name}(event, ctx) {{}}"),
        6 => format!("async function {name}() {{}}"),
        7 => format!("class {name} {{}}"),
        8 => format!("export const {name} = {value};"),
        _ if typescript => format!("enum {name} {{ A }}"),
        _ => format!("const {{ {name} }} = {value};"),
    })
}

fn default_export(typescript: bool) -> impl Strategy<Value = String> {
    (0..20u8, 0..12u8, define_hook_call(typescript), name()).prop_map(move |(form, wrapping, call, name)| {
        let wrap = |expr: &str| wrap(typescript, wrapping, expr);
        match form {
            0..=5 => format!("export default {};", wrap(&call)),
            6 | 7 => format!("const h = {call};\nexport default {};", wrap("h")),
            8 | 9 => format!("const h = {call};\nexport {{ h as default }};"),
            10 => format!("module.exports = {};", wrap(&call)),
            11 => format!("exports.default = {call};"),
            12 if typescript => format!("export = {call};"),
            12 => format!("let h = {call};\nexport default h;"),
            13 => format!("export {{ {name} as default }};"),
            14 => "export { default } from \"./other\";".to_owned(),
            15 => format!("export {{ {name} as default }} from \"./other\";"),
            16 => format!("export default function {name}() {{}}"),
            17 => "export default class {}".to_owned(),
            18 if typescript => "export default interface I {}".to_owned(),
            _ => format!("export default {};", wrap(name)),
        }
    })
}

/// A module: usually an SDK import, then imports and declarations in any order, with a
/// default export somewhere (sometimes none, sometimes two).
fn hook_source(typescript: bool) -> impl Strategy<Value = String> {
    let statement = prop_oneof![3 => import(typescript), 4 => declaration(typescript)];
    let separator = select(vec!["\n", "\n\n", " ", "\r\n", ";\n", "\n// comment\n", "\n/* block */"]);
    let export = prop_oneof![
        8 => default_export(typescript).prop_map(|export| vec![export]),
        1 => Just(Vec::new()),
        1 => (default_export(typescript), default_export(typescript)).prop_map(|(a, b)| vec![a, b]),
    ];
    (
        prop::option::weighted(0.8, sdk_import()),
        prop::collection::vec(statement, 0..4),
        export,
        any::<Index>(),
        separator,
        prop::bool::weighted(0.05),
    )
        .prop_map(|(sdk_import, mut statements, exports, at, separator, bom)| {
            for export in exports {
                let at = at.index(statements.len() + 1);
                statements.insert(at, export);
            }
            let callee = sdk_import.as_ref().map_or("defineHook", |&(_, callee)| callee);
            statements.splice(0..0, sdk_import.map(|(import, _)| import));
            let text = statements.join(separator).replace(SDK_CALLEE, callee);
            if bom { format!("\u{FEFF}{text}") } else { text }
        })
}

/// A display path, and a module to analyse under it.
fn hook_module() -> impl Strategy<Value = (&'static str, String)> {
    path_and_dialect().prop_flat_map(|(path, typescript)| (Just(path), hook_source(typescript)))
}

// ---------------------------------------------------------------------------------------------
// Mutations of those sources.
// ---------------------------------------------------------------------------------------------

#[derive(Debug, Clone)]
enum Mutation {
    Truncate(Index),
    FlipByte(Index, u8),
    InsertChar(Index, char),
    DuplicateSlice(Index, Index, Index),
    DeleteSlice(Index, Index),
}

fn interesting_char() -> impl Strategy<Value = char> {
    prop_oneof![
        2 => any::<char>(),
        1 => select(vec![
            '\u{FEFF}', '\u{2028}', '\u{2029}', '\u{FFFD}', '\u{0}', '\u{1}', '\u{7F}', '\u{85}', '\u{200B}',
            '\u{10FFFF}', '😀', 'é', '\r', '\n', '\t', '`', '"', '\'', '\\', '/', '*', '{', '}', '(', ')', '[',
            ']', '<', '>', '$', '#', '@', ';', ',', '.', '?', ':', '=',
        ]),
    ]
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        any::<Index>().prop_map(Mutation::Truncate),
        (any::<Index>(), 1..=255u8).prop_map(|(at, mask)| Mutation::FlipByte(at, mask)),
        (any::<Index>(), interesting_char()).prop_map(|(at, c)| Mutation::InsertChar(at, c)),
        (any::<Index>(), any::<Index>(), any::<Index>()).prop_map(|(a, b, at)| Mutation::DuplicateSlice(a, b, at)),
        (any::<Index>(), any::<Index>()).prop_map(|(a, b)| Mutation::DeleteSlice(a, b)),
    ]
}

/// A byte offset in `0..=text.len()` snapped back to a character boundary.
fn offset(text: &str, index: &Index) -> usize {
    let mut at = index.index(text.len() + 1);
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    at
}

fn ordered(text: &str, a: &Index, b: &Index) -> (usize, usize) {
    let (a, b) = (offset(text, a), offset(text, b));
    (a.min(b), a.max(b))
}

fn mutate(mut text: String, mutation: &Mutation) -> String {
    match mutation {
        Mutation::Truncate(at) => {
            text.truncate(offset(&text, at));
            text
        }
        Mutation::FlipByte(at, mask) => {
            let mut bytes = text.into_bytes();
            if !bytes.is_empty() {
                let at = at.index(bytes.len());
                bytes[at] ^= mask;
            }
            String::from_utf8_lossy(&bytes).into_owned()
        }
        Mutation::InsertChar(at, c) => {
            let at = offset(&text, at);
            text.insert(at, *c);
            text
        }
        Mutation::DuplicateSlice(a, b, at) => {
            let (start, end) = ordered(&text, a, b);
            let slice = text[start..end].to_owned();
            let at = offset(&text, at);
            text.insert_str(at, &slice);
            text
        }
        Mutation::DeleteSlice(a, b) => {
            let (start, end) = ordered(&text, a, b);
            text.replace_range(start..end, "");
            text
        }
    }
}

fn mutated_module() -> impl Strategy<Value = ((&'static str, String), Vec<Mutation>)> {
    (hook_module(), prop::collection::vec(mutation(), 1..5))
}

// ---------------------------------------------------------------------------------------------
// Deep nesting.
// ---------------------------------------------------------------------------------------------

/// How deeply nested code is built: what opens a level, the innermost code, what closes a level.
#[derive(Debug, Clone, Copy)]
enum Nesting {
    Parens,
    Arrays,
    Objects,
    Arrows,
    ArrowBodies,
    Ternaries,
    Calls,
    FunctionBodies,
    Blocks,
    Ifs,
    Unary,
    Templates,
    TypeArguments,
    TypeLiterals,
    Binary,
    News,
    Jsx,
}

impl Nesting {
    const ALL: [Nesting; 17] = [
        Nesting::Parens,
        Nesting::Arrays,
        Nesting::Objects,
        Nesting::Arrows,
        Nesting::ArrowBodies,
        Nesting::Ternaries,
        Nesting::Calls,
        Nesting::FunctionBodies,
        Nesting::Blocks,
        Nesting::Ifs,
        Nesting::Unary,
        Nesting::Templates,
        Nesting::TypeArguments,
        Nesting::TypeLiterals,
        Nesting::Binary,
        Nesting::News,
        Nesting::Jsx,
    ];

    /// `(prefix, open, innermost, close)`: the nested code is
    /// `prefix + open * depth + innermost + close * depth`.
    fn parts(self) -> (&'static str, &'static str, &'static str, &'static str) {
        let (open, inner, close) = match self {
            Nesting::Parens => ("(", "x", ")"),
            Nesting::Arrays => ("[", "x", "]"),
            Nesting::Objects => ("{ a: ", "1", " }"),
            Nesting::Arrows => ("(e) => ", "e", ""),
            Nesting::ArrowBodies => ("() => { return ", "1", "; }"),
            Nesting::Ternaries => ("a ? ", "b", " : c"),
            Nesting::Calls => ("f(", "", ")"),
            Nesting::FunctionBodies => ("function () { return ", "1", "; }"),
            Nesting::Blocks => ("() => {", "", "}"),
            Nesting::Ifs => ("() => { if (a) ", ";", " }"),
            Nesting::Unary => ("!", "x", ""),
            Nesting::Templates => ("`${", "x", "}`"),
            Nesting::TypeArguments => return ("x as ", "Array<", "T", ">"),
            Nesting::TypeLiterals => return ("x satisfies ", "{ a: ", "T", " }"),
            Nesting::Binary => ("a + ", "b", ""),
            Nesting::News => ("new ", "X", ""),
            Nesting::Jsx => ("<a>", "x", "</a>"),
        };
        ("", open, inner, close)
    }
}

/// How the closers are written.
#[derive(Debug, Clone, Copy)]
enum Balance {
    Balanced,
    NoClosers,
    OneCloserMissing,
    OneCloserExtra,
    /// Only the closers of the first this-many-per-mille of the levels.
    CutAt(u16),
}

/// Where the nested code goes.
#[derive(Debug, Clone, Copy)]
enum Placement {
    Handler,
    Options,
    DefaultExport,
    Const,
}

fn nested_code(nesting: Nesting, depth: usize, balance: Balance) -> String {
    let (prefix, open, inner, close) = nesting.parts();
    let closers = match balance {
        Balance::Balanced => depth,
        Balance::NoClosers => 0,
        Balance::OneCloserMissing => depth.saturating_sub(1),
        Balance::OneCloserExtra => depth + 1,
        Balance::CutAt(per_mille) => depth * usize::from(per_mille) / 1000,
    };
    let mut code = String::with_capacity(prefix.len() + (open.len() + close.len()) * (depth + 1) + inner.len());
    code.push_str(prefix);
    code.push_str(&open.repeat(depth));
    code.push_str(inner);
    code.push_str(&close.repeat(closers));
    code
}

fn nested_source(nesting: Nesting, depth: usize, balance: Balance, placement: Placement) -> String {
    let code = nested_code(nesting, depth, balance);
    let import = "import { defineHook } from \"@cursor/bdk/hooks\";\n";
    match placement {
        Placement::Handler => format!("{import}export default defineHook({{ events: {{ \"*\": {code} }} }});\n"),
        Placement::Options => format!("{import}export default defineHook({code});\n"),
        Placement::DefaultExport => format!("{import}export default {code};\n"),
        Placement::Const => format!("{import}const h = {code};\nexport default defineHook({{ events: h }});\n"),
    }
}

fn deep_case() -> impl Strategy<Value = (Nesting, usize, Balance, Placement, &'static str)> {
    let balance = prop_oneof![
        4 => Just(Balance::Balanced),
        1 => Just(Balance::NoClosers),
        1 => Just(Balance::OneCloserMissing),
        1 => Just(Balance::OneCloserExtra),
        1 => (0..1000u16).prop_map(Balance::CutAt),
    ];
    let placement = select(vec![Placement::Handler, Placement::Options, Placement::DefaultExport, Placement::Const]);
    let path = select(vec!["bot/hooks/h.ts", "bot/hooks/h.cjs", "bot/hooks/h.tsx", "bot/hooks/h.jsx"]);
    (select(Nesting::ALL.to_vec()), 0..=2000usize, balance, placement, path)
}

// ---------------------------------------------------------------------------------------------
// The properties.
// ---------------------------------------------------------------------------------------------

/// Generated hook modules: never a panic, always well-formed diagnostics, and the same result twice.
#[test]
fn generated_hooks_never_panic() {
    check_property(CASES, hook_module, |(path, text)| {
        let first = prop_analyze(path, &text)?;
        let second = analyze_module(path, &text);
        prop_assert_eq!(first, second, "the analysis is not deterministic");
        Ok(())
    });
}

/// Generated hook modules, truncated, with bytes flipped, characters inserted, slices duplicated or deleted.
#[test]
fn mutated_hooks_never_panic() {
    check_property(CASES, mutated_module, |((path, source), mutations)| {
        let text = mutations.iter().fold(source, mutate);
        prop_analyze(path, &text)?;
        Ok(())
    });
}

/// Arbitrary strings, weighted towards the characters JavaScript's grammar cares about.
#[test]
fn arbitrary_text_never_panics() {
    check_property(
        CASES,
        || (select(PATHS.to_vec()), prop::collection::vec(interesting_char(), 0..200)),
        |(path, chars)| {
            let text: String = chars.into_iter().collect();
            prop_analyze(path, &text)?;
            Ok(())
        },
    );
}

/// Expressions, functions, blocks and JSX nested up to 2000 deep, balanced or not, anywhere in a hook.
#[test]
fn deeply_nested_code_never_panics() {
    check_property(CASES, deep_case, |(nesting, depth, balance, placement, path)| {
        let text = nested_source(nesting, depth, balance, placement);
        prop_analyze(path, &text)?;
        Ok(())
    });
}

/// A canonical hook (SDK import, literal known keys, function handlers) reports exactly its
/// keys, in source order without repeats, and nothing but a warning per repeated key.
#[test]
fn canonical_hooks_report_their_events() {
    #[derive(Debug, Clone)]
    struct Hook {
        module: &'static str,
        import: u8,
        entries: Vec<(&'static str, u8, u8)>,
        export: u8,
        typescript: bool,
    }

    let hook = || {
        (
            select(SDK_MODULES.to_vec()),
            0..3u8,
            prop::collection::vec((select(KNOWN_KEYS.to_vec()), 0..4u8, 0..6u8), 1..8),
            0..6u8,
            any::<bool>(),
        )
            .prop_map(|(module, import, entries, export, typescript)| Hook {
                module,
                import,
                entries,
                export,
                typescript,
            })
    };

    check_property(CASES, hook, |hook| {
        let (import, callee) = match hook.import {
            0 => (format!("import {{ defineHook }} from \"{}\";", hook.module), "defineHook"),
            1 => (format!("import {{ defineHook as dh }} from \"{}\";", hook.module), "dh"),
            _ => (format!("import * as sdk from \"{}\";", hook.module), "sdk.defineHook"),
        };
        let entries: Vec<String> = hook
            .entries
            .iter()
            .map(|&(key, quoting, handler)| {
                let key = match quoting {
                    0 => format!("\"{key}\""),
                    1 => format!("'{key}'"),
                    2 => format!("[\"{key}\"]"),
                    _ => format!("[`{key}`]"),
                };
                match handler {
                    0 => format!("{key}(event, ctx) {{}}"),
                    1 => format!("async {key}(event) {{ await event; }}"),
                    2 => format!("{key}: (event, ctx) => {{}}"),
                    3 => format!("{key}: async function (event) {{}}"),
                    4 => format!("{key}: onEvent"),
                    _ => format!("{key}: onTurn"),
                }
            })
            .collect();
        let call = format!("{callee}({{\n  events: {{\n    {},\n  }},\n}})", entries.join(",\n    "));
        let export = match (hook.export, hook.typescript) {
            (0, _) => format!("export default {call};"),
            (1, _) => format!("const h = {call};\nexport default h;"),
            (2, _) => format!("const h = {call};\nexport {{ h as default }};"),
            (3, _) => format!("export default ({call});"),
            (4, true) => format!("export default {call} satisfies Hook;"),
            (_, true) => format!("const h = {call} as const;\nexport default h;"),
            (_, false) => format!("module.exports = {call};"),
        };
        let text = format!("{import}\nfunction onEvent(event, ctx) {{}}\n{export}\nconst onTurn = (event) => {{}};\n");
        let path = if hook.typescript { "bot/hooks/h.ts" } else { "bot/hooks/h.cjs" };

        let analysis = prop_analyze(path, &text)?;
        let mut expected: Vec<String> = Vec::new();
        for &(key, _, _) in &hook.entries {
            if !expected.iter().any(|seen| seen == key) {
                expected.push(key.to_owned());
            }
        }
        prop_assert_eq!(&analysis.events, &expected, "in\n{}", text);
        let codes: Vec<Code> = analysis.diagnostics.iter().map(|diagnostic| diagnostic.code).collect();
        prop_assert!(
            codes.iter().all(|&code| code == Code::DuplicateEvent),
            "unexpected diagnostics {:#?}\nin\n{}",
            analysis.diagnostics,
            text
        );
        prop_assert_eq!(codes.len(), hook.entries.len() - expected.len(), "in\n{}", text);
        Ok(())
    });
}

// ---------------------------------------------------------------------------------------------
// Edge cases, one by one.
// ---------------------------------------------------------------------------------------------

fn codes(analysis: &HookAnalysis) -> Vec<Code> {
    analysis.diagnostics.iter().map(|diagnostic| diagnostic.code).collect()
}

#[test]
fn empty_source_has_no_default_export() {
    for path in PATHS {
        let analysis = analyze_ok(path, "");
        assert!(analysis.events.is_empty());
        assert_eq!(codes(&analysis), [Code::NoDefaultExport], "{path}");
    }
}

#[test]
fn byte_order_mark_alone_has_no_default_export() {
    for path in PATHS {
        let analysis = analyze_ok(path, "\u{FEFF}");
        assert!(analysis.events.is_empty());
        assert_eq!(codes(&analysis), [Code::NoDefaultExport], "{path}");
    }
}

#[test]
fn binary_garbage_is_a_parse_error() {
    // Every byte but NUL, as the lossy UTF-8 a careless reader would make of it.
    let bytes: Vec<u8> = (1..=255u8).chain((1..=255u8).rev()).collect();
    let garbage = String::from_utf8_lossy(&bytes).into_owned();
    assert!(!garbage.contains('\0'));
    let control = "\u{1}\u{2}\u{3}\u{7}\u{8}\u{B}\u{C}\u{E}\u{1B}\u{7F}\u{FFFD}\u{FFFE}\u{10FFFF}";
    for text in [garbage.as_str(), control] {
        for path in PATHS {
            let analysis = analyze_ok(path, text);
            assert!(analysis.events.is_empty());
            assert!(codes(&analysis).contains(&Code::ParseError), "{path}: {:#?}", analysis.diagnostics);
        }
    }
}

#[test]
fn export_default_alone_is_a_parse_error() {
    for path in PATHS {
        let analysis = analyze_ok(path, "export default");
        assert!(analysis.events.is_empty());
        assert!(codes(&analysis).iter().all(|&code| code == Code::ParseError), "{path}: {:#?}", analysis.diagnostics);
        assert!(!analysis.diagnostics.is_empty());
    }
}

#[test]
fn unfinished_define_hook_call_is_a_parse_error() {
    for text in [
        "export default defineHook(",
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook(",
        "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({ events: { \"*\": (",
    ] {
        for path in PATHS {
            let analysis = analyze_ok(path, text);
            assert!(analysis.events.is_empty());
            assert!(codes(&analysis).contains(&Code::ParseError), "{path}: {:#?}", analysis.diagnostics);
        }
    }
}

#[test]
fn a_100k_character_line_is_analysed() {
    const LEN: usize = 100_000;
    let import = "import { defineHook } from \"@cursor/bdk/hooks\"; ";

    // A valid hook on one line, padded by a long string in its handler.
    let head = format!("{import}export default defineHook({{ events: {{ \"turn.completed\": () => \"");
    let tail = "\" } });";
    let text = format!("{head}{}{tail}", "x".repeat(LEN - head.len() - tail.len()));
    assert_eq!(text.len(), LEN);
    let analysis = analyze_ok("bot/hooks/h.ts", &text);
    assert_eq!(analysis.events, ["turn.completed"]);
    assert!(analysis.diagnostics.is_empty(), "{:#?}", analysis.diagnostics);

    // The same with two-byte characters: columns count characters, not bytes.
    let text = format!("{head}{}\", \"turn.oops\": 1 }} }});", "é".repeat(LEN / 2));
    let analysis = analyze_ok("bot/hooks/h.ts", &text);
    assert_eq!(analysis.events, ["turn.completed", "turn.oops"]);
    let label = analysis.diagnostics.iter().find_map(|diagnostic| diagnostic.label.as_ref()).expect("a label");
    assert_eq!(label.start_at.line, 1);
    assert!(label.start_at.column as usize > LEN / 2 && (label.start_at.column as usize) < LEN / 2 + 200);

    // 100k nested parentheses: past the size `analyze_module` parses on its caller's stack.
    let text = format!("{head}\" + {}x{} }} }});", "(".repeat(LEN / 2), ")".repeat(LEN / 2));
    let analysis = analyze_ok("bot/hooks/h.ts", &text);
    assert_eq!(analysis.events, ["turn.completed"]);
    assert!(analysis.diagnostics.is_empty(), "{:#?}", analysis.diagnostics);
    let analysis = analyze_ok("bot/hooks/h.ts", &"(".repeat(LEN));
    assert!(codes(&analysis).contains(&Code::ParseError));

    // One long identifier, and one long unterminated string: not hooks.
    let analysis = analyze_ok("bot/hooks/h.js", &"x".repeat(LEN));
    assert_eq!(codes(&analysis), [Code::NoDefaultExport]);
    let analysis = analyze_ok("bot/hooks/h.js", &format!("\"{}", "x".repeat(LEN - 1)));
    assert!(codes(&analysis).contains(&Code::ParseError));
}
