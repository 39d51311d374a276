//! The module channel: how the runtime's module hooks ask the binary that started them for
//! a module no string literal imports (`import(name)` of a computed name), synchronously,
//! as a module hook must answer. One JSON [`ModuleRequest`] a line from Node (fd 7), one
//! JSON [`ModuleAnswer`] a line back (fd 8), one request at a time; a thread of ours
//! answers them for the runtime's whole life with one [`OnDemand`] (a warm resolver).
//!
//! No process is started to answer, so nothing depends on the binary's file staying where
//! it was (an upgrade may replace it while `dev` runs), and no answer is too big for a buffer.

use std::io::{BufRead, BufReader, PipeReader, PipeWriter, Write};
use std::panic::AssertUnwindSafe;
use std::path::PathBuf;

use crate::loader::on_demand::{ModuleAnswer, ModuleRequest, OnDemand};
use crate::state::StateRoot;

/// Answers the runtime's requests from `requests` on `answers` until the runtime closes its
/// end, for the project at `root` (absolute, links resolved) whose compiled modules are
/// cached in `state_root`, run by the runtime in `runtime_dir`.
pub fn serve(
    requests: PipeReader,
    mut answers: PipeWriter,
    root: PathBuf,
    state_root: StateRoot,
    runtime_dir: PathBuf,
) -> std::io::Result<()> {
    // The stack every thread that parses has (see `crate::parse::on_a_big_enough_stack`).
    let thread = std::thread::Builder::new().name("agent-sdk-modules".to_owned()).stack_size(crate::parse::STACK_BYTES);
    thread.spawn(move || {
        // Made at the first request: most runtimes never ask.
        let mut on_demand: Option<OnDemand> = None;
        for line in BufReader::new(requests).split(b'\n') {
            let Ok(line) = line else { return };
            let answer = match serde_json::from_slice::<ModuleRequest>(&line) {
                Ok(request) => {
                    let on_demand = on_demand.get_or_insert_with(|| OnDemand::new(&root, &state_root, &runtime_dir));
                    answer_safely(on_demand, &request)
                }
                Err(error) => ModuleAnswer::Refused { error: format!("agent-sdk could not read the request: {error}") },
            };
            if !send(&mut answers, &answer) {
                return;
            }
        }
    })?;
    Ok(())
}

/// [`OnDemand::answer`]; a compiler that panics refuses the one module, and the channel
/// goes on answering.
fn answer_safely(on_demand: &OnDemand, request: &ModuleRequest) -> ModuleAnswer {
    std::panic::catch_unwind(AssertUnwindSafe(|| on_demand.answer(request))).unwrap_or_else(|_| ModuleAnswer::Refused {
        error: format!("agent-sdk failed while compiling `{}`", request.specifier),
    })
}

/// Writes `answer` as one line; false once the runtime is gone.
fn send(answers: &mut PipeWriter, answer: &ModuleAnswer) -> bool {
    let mut line = serde_json::to_vec(answer).unwrap_or_else(|error| {
        // (A path that is not UTF-8 has no JSON form.)
        let refused = ModuleAnswer::Refused { error: format!("agent-sdk could not answer: {error}") };
        serde_json::to_vec(&refused).unwrap_or_default()
    });
    line.push(b'\n');
    answers.write_all(&line).and_then(|()| answers.flush()).is_ok()
}
