//! The checks, off the main loop: one worker thread per agent project, which checks the whole
//! project first (and again on a save of a file that is not a hook, a config change, a new
//! or deleted file), and on an edit re-checks only the edited hook, or the hooks importing an
//! edited module ([`crate::check::incremental`]), keeping the rest of the last result.
//!
//! Jobs queued while a check runs are taken together: the last text of every document
//! wins. A result is published only for a document still at the version that was checked;
//! a newer one has its own job queued behind.

use std::collections::{HashMap, HashSet};
use std::panic::AssertUnwindSafe;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

use crossbeam_channel::{Receiver, Sender};
use lsp_server::{Message, Notification};
use lsp_types::{MessageType, PublishDiagnosticsParams, ShowMessageParams, Uri};

use super::convert::{self, FileEdits};
use super::text;
use crate::check::discover::HookModule;
use crate::diagnostics::{Code, Diagnostic, Severity};
use crate::loader::resolver::{Overlay, Resolver};

/// What the main loop and the workers share.
pub struct Shared {
    /// The open documents, by path (absolute, links resolved).
    pub documents: Mutex<HashMap<PathBuf, Document>>,
    /// What was last published for each file, by path, for code actions.
    pub published: Mutex<HashMap<PathBuf, PublishedFile>>,
    /// To the client.
    pub sender: Sender<Message>,
    /// Whether a full check runs the projects' extension mounts: not unless the client's
    /// initialization options say `runExtensions: true`.
    pub mount_runs: crate::check::extensions::MountRuns,
}

/// An open document: the editor's text, unsaved or not.
#[derive(Debug, Clone)]
pub struct Document {
    /// The URI the client knows it by.
    pub uri: Uri,
    pub version: i32,
    pub text: String,
}

/// What was last published for one file.
#[derive(Debug, Clone)]
pub struct PublishedFile {
    /// The version of the document that was checked (`None`: the file on disk): the ranges
    /// are right for that text only.
    pub version: Option<i32>,
    pub found: Vec<Published>,
}

/// One diagnostic as published, with what a code action needs.
#[derive(Debug, Clone)]
pub struct Published {
    pub diagnostic: lsp_types::Diagnostic,
    pub code: Code,
    pub severity: Severity,
    /// The finding's fix (its title, whether it is safe, its edits as byte offsets), and
    /// its edits as the editor takes them.
    pub fix: Option<(crate::diagnostics::Fix, Vec<FileEdits>)>,
}

/// What a worker is asked to do.
#[derive(Debug)]
pub enum Job {
    /// Check the whole project again.
    Full,
    /// A file's text changed (in the editor or on disk): re-check what it affects.
    Edited(PathBuf),
    /// A file was saved: a hook is re-checked alone, anything else re-checks the project.
    Saved(PathBuf),
}

/// The worker of one project.
pub struct Worker {
    jobs: Sender<Job>,
}

impl Worker {
    /// Starts the worker of the project at `dir` (absolute, links resolved).
    pub fn start(dir: PathBuf, shared: Arc<Shared>) -> Self {
        let (jobs, queue) = crossbeam_channel::unbounded();
        let name = format!("lsp-check {}", dir.display());
        std::thread::Builder::new()
            .name(name)
            .spawn(move || ProjectChecks { dir, shared, last: None }.run(&queue))
            .expect("a thread can be started");
        Self { jobs }
    }

    pub fn send(&self, job: Job) {
        // The worker lives as long as the server.
        let _ = self.jobs.send(job);
    }
}

/// The last full result of a project, brought up to date by each incremental check.
struct LastCheck {
    /// The hook modules, in discovery order.
    hooks: Vec<HookModule>,
    /// The index of each hook by its path (links resolved).
    hook_index: HashMap<PathBuf, usize>,
    /// Where each module's imports lead (links resolved).
    imports: HashMap<PathBuf, Vec<PathBuf>>,
    /// Every mount file (links resolved).
    mount_files: HashSet<PathBuf>,
    /// The diagnostics of each file, by path relative to the project.
    diagnostics: HashMap<String, Vec<Diagnostic>>,
    /// What discovery found wrong with a hook (its name clashes, say), by path: kept when the
    /// hook is re-checked, as discovery runs only with a full check.
    discovery_diagnostics: HashMap<String, Vec<Diagnostic>>,
    /// The text of each file with a labelled diagnostic, as checked.
    sources: HashMap<String, String>,
    /// The files published with diagnostics, to clear when they have none.
    published: HashSet<String>,
    /// Kept between edits: its caches are what makes an edit's check fast.
    resolver: Resolver,
    /// The project's settings as the full check read them (a change to them is a full check).
    config: crate::config::Config,
}

/// Where a project-wide finding is shown: the project's `package.json`.
const PROJECT_FILE: &str = "package.json";

struct ProjectChecks {
    dir: PathBuf,
    shared: Arc<Shared>,
    last: Option<LastCheck>,
}

impl ProjectChecks {
    fn run(mut self, queue: &Receiver<Job>) {
        while let Ok(first) = queue.recv() {
            let mut jobs = vec![first];
            jobs.extend(queue.try_iter());
            let snapshot: HashMap<PathBuf, Document> =
                self.shared.documents.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
            let checked = std::panic::catch_unwind(AssertUnwindSafe(|| self.check(&jobs, &snapshot)));
            if checked.is_err() {
                self.tell(
                    MessageType::ERROR,
                    "the check panicked; the diagnostics shown may be out of date".to_owned(),
                );
                self.last = None;
            }
        }
    }

    fn check(&mut self, jobs: &[Job], snapshot: &HashMap<PathBuf, Document>) {
        let overlay: Arc<Overlay> =
            Arc::new(snapshot.iter().map(|(path, document)| (path.clone(), document.text.clone())).collect());
        let mut full = self.last.is_none();
        let mut edited = Vec::new();
        for job in jobs {
            match job {
                Job::Full => full = true,
                Job::Edited(path) => edited.push(path.clone()),
                Job::Saved(path) if self.is_hook(path) => edited.push(path.clone()),
                Job::Saved(_) => full = true,
            }
        }
        if !full {
            match self.hooks_affected(&edited) {
                Some(indexes) if indexes.is_empty() => return,
                Some(indexes) => return self.recheck(&indexes, overlay, snapshot),
                None => {}
            }
        }
        self.full_check(overlay, snapshot);
    }

    fn is_hook(&self, path: &Path) -> bool {
        self.last.as_ref().is_some_and(|last| last.hook_index.contains_key(path))
    }

    /// The hooks to re-check for edits of `paths`: each edited hook and every hook importing
    /// an edited module. `None` when the edit needs the whole project checked again (a mount
    /// file, a new file under `hooks/`).
    fn hooks_affected(&self, paths: &[PathBuf]) -> Option<Vec<usize>> {
        let last = self.last.as_ref()?;
        let mut importers: Option<HashMap<&Path, Vec<&Path>>> = None;
        let mut found = HashSet::new();
        for path in paths {
            if let Some(&index) = last.hook_index.get(path) {
                found.insert(index);
                continue;
            }
            if last.mount_files.contains(path) || self.is_new_hook_or_mount(path) {
                return None;
            }
            let importers = importers.get_or_insert_with(|| {
                let mut reverse: HashMap<&Path, Vec<&Path>> = HashMap::new();
                for (module, targets) in &last.imports {
                    for target in targets {
                        reverse.entry(target.as_path()).or_default().push(module.as_path());
                    }
                }
                reverse
            });
            let mut stack = vec![path.as_path()];
            let mut seen = HashSet::new();
            while let Some(module) = stack.pop() {
                if !seen.insert(module) {
                    continue;
                }
                if let Some(&index) = last.hook_index.get(module) {
                    found.insert(index);
                }
                stack.extend(importers.get(module).into_iter().flatten());
            }
        }
        let mut indexes: Vec<usize> = found.into_iter().collect();
        indexes.sort_unstable();
        Some(indexes)
    }

    /// Whether `path` is under the project's `hooks/` or `extensions/` without being known:
    /// discovery has to run again.
    fn is_new_hook_or_mount(&self, path: &Path) -> bool {
        ["bot", "agent"].iter().any(|source| {
            let source = self.dir.join(source);
            path.starts_with(source.join("hooks")) || path.starts_with(source.join("extensions"))
        })
    }

    fn full_check(&mut self, overlay: Arc<Overlay>, snapshot: &HashMap<PathBuf, Document>) {
        let mut checked = match crate::check::full::check_project_with(
            &self.dir,
            Arc::clone(&overlay),
            &self.shared.mount_runs,
            &crate::check::Scope::Project,
            false,
        ) {
            Ok(checked) => checked,
            Err(error) => {
                let shown = self.dir.display();
                return self.tell(MessageType::ERROR, format!("agent-sdk could not check `{shown}`: {error:#}"));
            }
        };
        let config = std::mem::take(&mut checked.config);
        // The check's own discovery, its findings already at the settings' levels.
        let discovery = std::mem::take(&mut checked.discovery);
        let hooks = discovery.modules;
        let mut discovery_diagnostics: HashMap<String, Vec<Diagnostic>> = HashMap::new();
        for diagnostic in discovery.diagnostics {
            if let Some(path) = diagnostic.path.clone() {
                discovery_diagnostics.entry(path).or_default().push(diagnostic);
            }
        }
        let hook_index = hooks.iter().enumerate().map(|(index, hook)| (hook.real_path.clone(), index)).collect();
        let imports = checked
            .modules
            .modules
            .iter()
            .map(|module| {
                let targets = module.resolved.iter().filter_map(|(_, target)| match target {
                    crate::loader::resolver::Target::File(file) => Some(file.clone()),
                    _ => None,
                });
                (module.path.clone(), targets.collect())
            })
            .collect();
        let mut diagnostics: HashMap<String, Vec<Diagnostic>> = HashMap::new();
        for diagnostic in checked.diagnostics {
            let path = diagnostic.path.clone().unwrap_or_else(|| PROJECT_FILE.to_owned());
            diagnostics.entry(path).or_default().push(diagnostic);
        }
        let resolver = Resolver::new(&self.dir);
        resolver.set_overlay(overlay);
        let previous = self.last.take().map(|last| last.published).unwrap_or_default();
        let mut last = LastCheck {
            hooks,
            hook_index,
            imports,
            mount_files: checked.mounts.iter().map(|mount| mount.file.real_path.clone()).collect(),
            diagnostics,
            discovery_diagnostics,
            sources: checked.sources,
            published: previous.clone(),
            resolver,
            config,
        };
        let paths: Vec<String> = previous.into_iter().chain(last.diagnostics.keys().cloned()).collect();
        self.publish(&mut last, paths, snapshot);
        self.last = Some(last);
    }

    fn recheck(&mut self, indexes: &[usize], overlay: Arc<Overlay>, snapshot: &HashMap<PathBuf, Document>) {
        let Some(mut last) = self.last.take() else { return };
        last.resolver.set_overlay(overlay);
        let rechecked =
            crate::check::incremental::recheck_hooks(&self.dir, &last.hooks, indexes, &last.resolver, &last.config);
        for (path, diagnostics) in &rechecked.by_path {
            let mut merged = last.discovery_diagnostics.get(path).cloned().unwrap_or_default();
            merged.extend(diagnostics.iter().cloned());
            merged.sort_by(|a, b| a.sort_key().cmp(&b.sort_key()));
            last.diagnostics.insert(path.clone(), merged);
            last.sources.remove(path);
        }
        last.sources.extend(rechecked.sources);
        last.imports.extend(rechecked.imports);
        self.publish(&mut last, rechecked.by_path.into_keys().collect(), snapshot);
        self.last = Some(last);
    }

    /// Publishes the diagnostics of each of `paths` (relative to the project), but for a
    /// document edited since `snapshot` was taken: its newer version has a job queued.
    fn publish(&self, last: &mut LastCheck, paths: Vec<String>, snapshot: &HashMap<PathBuf, Document>) {
        let current = self.shared.documents.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let mut seen = HashSet::new();
        for shown in paths {
            if !seen.insert(shown.clone()) {
                continue;
            }
            let diagnostics = last.diagnostics.get(&shown).map_or(&[][..], Vec::as_slice);
            if diagnostics.is_empty() && !last.published.contains(&shown) {
                continue;
            }
            let joined = self.dir.join(&shown);
            let path = joined.canonicalize().unwrap_or(joined);
            let checked_document = snapshot.get(&path);
            if checked_document.map(|document| document.version) != current.get(&path).map(|document| document.version)
            {
                continue;
            }
            let uri = checked_document.map_or_else(|| text::uri_of(&path), |document| document.uri.clone());
            let file_text = match checked_document {
                Some(document) => Some(document.text.clone()),
                None => last.sources.get(&shown).cloned().or_else(|| std::fs::read_to_string(&path).ok()),
            };
            let text_of = |edited: &str| {
                if edited == shown {
                    return file_text.clone();
                }
                let joined = self.dir.join(edited);
                let edited_path = joined.canonicalize().unwrap_or(joined);
                snapshot.get(&edited_path).map(|document| document.text.clone()).or_else(|| {
                    last.sources.get(edited).cloned().or_else(|| std::fs::read_to_string(&edited_path).ok())
                })
            };
            let document_of = |edited: &Path| {
                let edited = edited.canonicalize().unwrap_or_else(|_| edited.to_path_buf());
                match snapshot.get(&edited) {
                    Some(document) => (document.uri.clone(), Some(document.version)),
                    None => (text::uri_of(&edited), None),
                }
            };
            let published: Vec<Published> = diagnostics
                .iter()
                .map(|diagnostic| Published {
                    diagnostic: convert::diagnostic(diagnostic, &uri, file_text.as_deref()),
                    code: diagnostic.code,
                    severity: diagnostic.severity(),
                    fix: diagnostic.fix.as_ref().map(|fix| {
                        let edits = convert::file_edits(fix, &self.dir, text_of, document_of);
                        (fix.clone(), edits)
                    }),
                })
                .collect();
            let version = checked_document.map(|document| document.version);
            let params = PublishDiagnosticsParams {
                uri,
                diagnostics: published.iter().map(|published| published.diagnostic.clone()).collect(),
                version,
            };
            if published.is_empty() {
                last.published.remove(&shown);
            } else {
                last.published.insert(shown.clone());
            }
            let file = PublishedFile { version, found: published };
            self.shared.published.lock().unwrap_or_else(std::sync::PoisonError::into_inner).insert(path, file);
            self.notify::<lsp_types::notification::PublishDiagnostics>(params);
        }
    }

    /// Shows `message` to the user and logs it.
    fn tell(&self, kind: MessageType, message: String) {
        self.notify::<lsp_types::notification::LogMessage>(lsp_types::LogMessageParams {
            typ: kind,
            message: message.clone(),
        });
        self.notify::<lsp_types::notification::ShowMessage>(ShowMessageParams { typ: kind, message });
    }

    fn notify<N: lsp_types::notification::Notification>(&self, params: N::Params) {
        let _ = self.shared.sender.send(Message::Notification(Notification::new(N::METHOD.to_owned(), params)));
    }
}
