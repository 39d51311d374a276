//! Compiling a module of any size Node can load. oxc's parser recurses once or more per
//! level of nesting and a stack overflow ends the process, so a module is compiled on a
//! stack sized for the worst nesting its size could hold (2 KiB a byte,
//! [`crate::parse::on_a_big_enough_stack`]). For a module of megabytes (generated data,
//! a bundle) that is more address space than a machine gives (24 GiB for 12 MB); such a
//! module is compiled in a process of its own instead (`agent-sdk __compile`), on a stack of
//! [`OWN_PROCESS_STACK`]: room for over 500,000 levels (compiling takes at most about 1.8 KiB
//! a level, measured on a release build), where Node itself parses at most about 12,000
//! (`!!!…x`; 1,000 to 3,000 of brackets, arrows or `else if`s). A module nested deeper than
//! that stack holds ends only that process, and is reported.

use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use serde::{Deserialize, Serialize};

use super::compiled::{Compiled, Output, Problem, ProblemKind};
use super::resolver::{ModuleFormat, TsOptions};
use super::transform;

/// The biggest module compiled in this process: its worst nesting needs 1 GiB of stack.
const IN_PROCESS_MAX_BYTES: usize = 512 * 1024;

/// The stack a module compiled in a process of its own gets (less if the system gives less).
const OWN_PROCESS_STACK: usize = 1024 * 1024 * 1024;

/// The smallest stack a process of its own tries before giving up: the analysis pool's.
const SMALLEST_STACK: usize = crate::parse::STACK_BYTES;

/// What [`compile`] needs, sent to `agent-sdk __compile` on its stdin.
#[derive(Debug, Serialize, Deserialize)]
struct CompileRequest {
    path: PathBuf,
    source: String,
    format: ModuleFormat,
    options: TsOptions,
    output: Output,
}

/// [`transform::compile`] on a stack big enough for any nesting Node can load: a thread of
/// this process for a module up to 512 KiB, a process of its own past that (or when no
/// such thread can be had).
pub fn compile(
    path: &Path,
    source: &str,
    format: ModuleFormat,
    options: &TsOptions,
    output: Output,
) -> Result<Compiled, Vec<Problem>> {
    if source.len() <= IN_PROCESS_MAX_BYTES {
        let compile_here = || transform::compile(path, source, format, options, output);
        if let Some(compiled) = crate::parse::on_a_big_enough_stack(source.len(), compile_here) {
            return compiled;
        }
    }
    let request = CompileRequest {
        path: path.to_path_buf(),
        source: source.to_owned(),
        format,
        options: options.clone(),
        output,
    };
    in_a_process_of_its_own(&request).unwrap_or_else(|problem| Err(vec![problem]))
}

/// Runs `agent-sdk __compile` on `request`.
fn in_a_process_of_its_own(request: &CompileRequest) -> Result<Result<Compiled, Vec<Problem>>, Problem> {
    let too_big = || too_big(request.source.len());
    let mut child = Command::new(crate::process::running_binary::path())
        .arg(crate::cli::COMPILE)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .map_err(|_| too_big())?;
    // It reads all of its stdin before it writes anything.
    let sent = child.stdin.take().map(|mut stdin| serde_json::to_writer(&mut stdin, request));
    let output = child.wait_with_output().map_err(|_| too_big())?;
    if output.status.success()
        && let Some(Ok(())) = sent
        && let Ok(compiled) = serde_json::from_slice(&output.stdout)
    {
        return Ok(compiled);
    }
    if String::from_utf8_lossy(&output.stderr).contains("overflowed its stack") {
        return Err(too_deep());
    }
    Err(too_big())
}

/// `agent-sdk __compile`: compiles the module its stdin describes (a [`CompileRequest`]) on
/// the biggest stack it can have, up to [`OWN_PROCESS_STACK`], and writes the result as
/// JSON to its stdout. A nesting deeper than its stack holds ends it ("has overflowed its
/// stack" on stderr).
pub fn compile_from_stdin() -> std::io::Result<()> {
    let mut text = String::new();
    std::io::stdin().read_to_string(&mut text)?;
    let request: CompileRequest = serde_json::from_str(&text)?;
    drop(text);
    let compiled = on_the_biggest_stack(request.source.len(), || {
        transform::compile(&request.path, &request.source, request.format, &request.options, request.output)
    })
    .unwrap_or_else(|| Err(vec![too_big(request.source.len())]));
    let mut stdout = std::io::stdout().lock();
    serde_json::to_writer(&mut stdout, &compiled)?;
    stdout.flush()
}

/// Runs `compile` (of a source of `source_len` bytes) on a thread with the stack its worst
/// nesting could need, up to [`OWN_PROCESS_STACK`], or the biggest the system gives past
/// [`SMALLEST_STACK`]; `None` when it gives less.
fn on_the_biggest_stack<T: Send>(source_len: usize, compile: impl FnOnce() -> T + Send) -> Option<T> {
    let compile = std::sync::Mutex::new(Some(compile));
    let mut stack = source_len.saturating_mul(2 * 1024).clamp(SMALLEST_STACK, OWN_PROCESS_STACK);
    std::thread::scope(|scope| {
        while stack >= SMALLEST_STACK {
            let run = || compile.lock().ok()?.take().map(|compile| compile());
            let thread = std::thread::Builder::new().name("compile".to_owned()).stack_size(stack);
            match thread.spawn_scoped(scope, run) {
                Ok(thread) => return thread.join().ok().flatten(),
                Err(_) => stack /= 2,
            }
        }
        None
    })
}

fn too_big(len: usize) -> Problem {
    Problem {
        kind: ProblemKind::Syntax,
        span: None,
        message: format!("it is too big to compile with the memory available ({len} bytes)"),
        help: "move generated code or data out of the modules the hooks import".to_owned(),
    }
}

fn too_deep() -> Problem {
    Problem {
        kind: ProblemKind::Syntax,
        span: None,
        message: "it is nested too deeply to compile (deeper than Node.js itself parses)".to_owned(),
        help: "a code generator wrote this: flatten what it nests".to_owned(),
    }
}
