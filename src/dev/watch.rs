//! Watching the agent's source folder: a change is re-validated; valid hooks are
//! recompiled and reloaded by each session between turns; hooks with errors are reported
//! and the last good ones keep serving.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::{Duration, SystemTime};

use crate::check::check_project;
use crate::cli::{ColorChoice, OutputFormat};
use crate::dev::agent::{Agent, HookSet};
use crate::diagnostics::Severity;
use crate::engine::dispatcher::HookToLoad;
use crate::printer::Printer;
use crate::report;
use crate::runtime::compile::compile_project;

/// How often the source folder is looked at.
const POLL: Duration = Duration::from_millis(250);

/// Every file under a folder with its size and modification time: changes when anything does.
type Fingerprint = Vec<(PathBuf, u64, Option<SystemTime>)>;

fn fingerprint(dir: &Path) -> Fingerprint {
    let mut files: Fingerprint = walkdir::WalkDir::new(dir)
        .follow_links(true)
        .into_iter()
        .filter_entry(|entry| {
            let name = entry.file_name().to_string_lossy();
            entry.depth() == 0 || !(name.starts_with('.') || name == "node_modules")
        })
        .flatten()
        .filter(|entry| entry.file_type().is_file())
        .filter_map(|entry| {
            let metadata = entry.metadata().ok()?;
            Some((entry.path().to_path_buf(), metadata.len(), metadata.modified().ok()))
        })
        .collect();
    files.sort();
    files
}

/// Watches until `stop` is set.
pub fn spawn(agent: Arc<Agent>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let source = agent.project.source_dir();
        let mut last = fingerprint(&source);
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(POLL);
            let now = fingerprint(&source);
            if now != last {
                last = now;
                reload(&agent);
            }
        }
    })
}

fn reload(agent: &Agent) {
    let Ok(log) = agent.serve_log(None) else { return };
    let checked = match check_project(&agent.project.dir) {
        Ok(checked) => checked,
        Err(problem) => return log.error(format!("could not re-check the hooks: {problem}")),
    };
    if checked.count(Severity::Error) > 0 || checked.project.is_none() {
        let report = report::render(OutputFormat::Pretty, &checked, &Printer::new(ColorChoice::Never));
        return log
            .error(format!("the changed hooks have errors; still serving the last good ones:\n{}", report.trim_end()));
    }
    match compile_project(&agent.project.canonical_dir, &agent.compiled_root, &agent.runtime_dir.join("sdk")) {
        Ok(failures) => {
            for failure in failures {
                log.warn(format!("{}: could not be compiled: {}", failure.path, failure.message));
            }
        }
        Err(problem) => return log.error(format!("could not compile the changed hooks: {problem}")),
    }
    let hooks = HookToLoad::all(&checked, &agent.compiled_root);
    let count = hooks.len();
    {
        let mut set = agent.hooks.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        *set = HookSet { generation: set.generation + 1, hooks };
    }
    log.info(format!("hooks changed: {count} hooks will load from each session's next turn"));
}
