//! Watching the agent's code: the source folder and every module the hooks reach (helpers
//! outside `bot/` too, a monorepo's shared packages). A change is re-validated; valid hooks
//! are recompiled and reloaded by each session between turns; hooks with errors are
//! reported and the last good ones keep serving.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::project;
use crate::project::fingerprint::whole_fingerprint;
use crate::report::{ProjectDir, concise};
use crate::server::agent::{Agent, Described, HookSet};
use crate::session::{self, Checked};

/// How often the code is looked at.
const POLL: Duration = Duration::from_millis(250);

/// Watches until `stop` is set. A look that could not read every folder (the server is
/// out of file descriptors for a moment) is no change: it is skipped.
pub fn spawn(agent: Arc<Agent>, stop: Arc<AtomicBool>) -> JoinHandle<()> {
    std::thread::spawn(move || {
        let source = agent.project().source_dir();
        // The settings file's changes re-check too, wherever from the project up it is.
        let settings: Vec<std::path::PathBuf> =
            crate::config::candidates(&agent.project().dir).into_iter().map(|(_, path)| path).collect();
        let watched = |plan_files: Vec<std::path::PathBuf>| [plan_files, settings.clone()].concat();
        let mut reached = watched(agent.hook_set().plan.files);
        let mut last = whole_fingerprint(&source, &reached);
        while !stop.load(Ordering::SeqCst) {
            std::thread::sleep(POLL);
            let Some(now) = whole_fingerprint(&source, &reached) else { continue };
            match &last {
                Some(last) if *last != now => {}
                _ => {
                    last = Some(now);
                    continue;
                }
            }
            reload(&agent);
            reached = watched(agent.hook_set().plan.files);
            last = whole_fingerprint(&source, &reached).or(Some(now));
        }
    })
}

fn reload(agent: &Agent) {
    let Ok(log) = agent.serve_log(None) else { return };
    let located = match project::locate(&agent.project().dir) {
        Ok(located) => located,
        Err(problem) => return log.error(format!("could not re-check the hooks: {problem}")),
    };
    let plan = match session::check(located, Some(&agent.setup), "dev") {
        Ok(Checked::Loadable { plan, checked }) => {
            set_info(agent, &checked);
            // What start-up says of the hooks (warnings, advice, an unknown event key), said
            // again of the changed ones: the edit loop is where a typo is made.
            let dir = ProjectDir::new(&agent.project().dir, &checked);
            for (severity, line) in concise::log_findings(&checked, &dir) {
                if severity == crate::diagnostics::Severity::Error { log.error(line) } else { log.warn(line) }
            }
            plan
        }
        Ok(Checked::Refused(checked)) => {
            set_info(agent, &checked);
            let (errors, what) = concise::still_serving(&checked, &ProjectDir::new(&agent.project().dir, &checked));
            errors.into_iter().for_each(|line| log.error(line));
            return log.warn(what);
        }
        Err(problem) => {
            return log.error(format!("could not load the changed hooks: {problem}; still serving the last good ones"));
        }
    };
    let count = plan.hooks.len();
    {
        let mut set = agent.hooks.write().unwrap_or_else(std::sync::PoisonError::into_inner);
        *set = HookSet { generation: set.generation + 1, plan };
    }
    log.info(format!("hooks changed: {count} hooks will load from each session's next turn"));
}

/// What `/v1/info`, `/v1/check` and `/v1/source` say from now on.
fn set_info(agent: &Agent, checked: &crate::check::CheckedProject) {
    let described = Arc::new(Described::of(checked, &agent.project().dir));
    *agent.described.write().unwrap_or_else(std::sync::PoisonError::into_inner) = described;
}
