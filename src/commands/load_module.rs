//! `agent-sdk __load-module`: asked by the test runner's processes (never by a user) for a
//! module the project check could not reach, because no string literal imports it
//! (`import(name)` of a computed name). The runtime of `run` and `dev` asks the binary that
//! started it instead, over a channel of its own ([`crate::runtime::modules`]); both are
//! answered by [`OnDemand`], printed here as one JSON line (`{ target, manifest }`, or
//! `{ error }` with what `validate` would have said).

use crate::cli::LoadModuleArgs;
use crate::exit_status::ExitStatus;
use crate::loader::on_demand::{ModuleRequest, OnDemand};
use crate::printer::Printer;
use crate::state::StateRoot;

/// Prints the answer for the module `args` names; exit 0 whether or not it loads (the
/// runtime reads the answer), 2 only when the project itself cannot be used.
pub fn load_module(args: &LoadModuleArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let root = args.dir.canonicalize()?;
    let state_root = StateRoot::create(&root)?;
    // The test runner's runtime: the set `agent-sdk test` installed (found, not written).
    let runtime_dir = crate::runtime::files::install(&state_root)?;
    let request = ModuleRequest { from: args.from.clone(), specifier: args.specifier.clone(), require: args.require };
    let answer = OnDemand::new(&root, &state_root, &runtime_dir).answer(&request);
    printer.stdout(&format!("{}\n", serde_json::to_string(&answer)?))?;
    Ok(ExitStatus::Success)
}
