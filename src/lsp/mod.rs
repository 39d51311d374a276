//! `agent-sdk lsp`: a language server over stdio for the hooks of every agent project in the
//! editor's workspace (a project is a folder with `bot/` or `agent/`; files outside one get
//! nothing).
//!
//! ```text
//!  client ─▶ transport (stdin) ─▶ main loop ── requests: completion, hover, definition,
//!                                    │          code actions (from the text and what was published
//!                                    │          of its current version)
//!                                    │ didOpen/didChange (debounced)/didSave/watched files
//!                                    ▼
//!                     checks::Worker, one thread per project ─▶ check (full, or the edited
//!                                    │                            hooks only: check::incremental)
//!                                    ▼
//!  client ◀─ transport (stdout) ◀── outbox ◀── publishDiagnostics (UTF-16 ranges, fixes kept
//!                                (a file's newest   for actions)
//!                                diagnostics only)
//! ```
//!
//! The main loop never checks: it answers requests from the documents' text at once and
//! hands every check to the project's worker, so a slow project never holds up an answer.

// lsp-types keys `WorkspaceEdit::changes` by `Uri`, whose cached parts clippy takes for
// interior mutability; a `Uri`'s hash never changes.
#![allow(clippy::mutable_key_type)]

mod actions;
mod checks;
mod convert;
mod events;
mod goto;
mod outbox;
mod text;
mod transport;

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use lsp_server::{Connection, ErrorCode, Message, Notification, Request, RequestId, Response};
use lsp_types::notification::{
    DidChangeTextDocument, DidChangeWatchedFiles, DidCloseTextDocument, DidOpenTextDocument, DidSaveTextDocument,
    Notification as _,
};
use lsp_types::request::{CodeActionRequest, Completion, GotoDefinition, HoverRequest, Request as _};
use lsp_types::{
    CodeActionProviderCapability, CompletionOptions, FileChangeType, HoverProviderCapability, InitializeParams,
    InitializeResult, OneOf, SaveOptions, ServerCapabilities, ServerInfo, TextDocumentSyncCapability,
    TextDocumentSyncKind, TextDocumentSyncOptions, TextDocumentSyncSaveOptions,
};

use checks::{Document, Job, Shared, Worker};

/// How long an edited document rests before it is checked: typing re-checks once per pause.
pub const DEBOUNCE: Duration = Duration::from_millis(100);

/// The files whose change re-checks their whole project, besides the settings files
/// ([`crate::config::FILE_NAMES`]).
const PROJECT_FILES: [&str; 2] = ["package.json", "tsconfig.json"];

/// Serves LSP over stdin and stdout until the client says `exit` (or closes stdin).
pub fn serve() -> anyhow::Result<()> {
    let (connection, threads) = transport::stdio();
    let (id, params) = connection.initialize_start().context("the client did not initialize the server")?;
    let params: InitializeParams = serde_json::from_value(params).context("the initialize request is not valid")?;
    let result = InitializeResult { capabilities: capabilities(), server_info: Some(server_info()) };
    connection
        .initialize_finish(id, serde_json::to_value(result)?)
        .context("the client did not finish initializing")?;
    let shared = Arc::new(Shared {
        documents: Mutex::default(),
        published: Mutex::default(),
        sender: connection.sender.clone(),
        mount_runs: mount_runs(&params),
    });
    let versioned_edits = takes_versioned_edits(&params);
    let mut server =
        Server { shared, roots: roots(&params), workers: HashMap::new(), pending: HashMap::new(), versioned_edits };
    if watches_files(&params) {
        server.register_file_watchers();
    }
    server.main_loop(&connection);
    drop(server);
    drop(connection);
    // The reader ends with stdin or `exit`; the writer ends once every sender is gone (the
    // workers' threads are not waited for: they hold senders until the process ends).
    let [reader, _writer] = threads;
    let _ = reader.join();
    Ok(())
}

fn server_info() -> ServerInfo {
    ServerInfo { name: "agent-sdk".to_owned(), version: Some(env!("CARGO_PKG_VERSION").to_owned()) }
}

fn capabilities() -> ServerCapabilities {
    ServerCapabilities {
        text_document_sync: Some(TextDocumentSyncCapability::Options(TextDocumentSyncOptions {
            open_close: Some(true),
            change: Some(TextDocumentSyncKind::FULL),
            save: Some(TextDocumentSyncSaveOptions::SaveOptions(SaveOptions { include_text: Some(false) })),
            ..TextDocumentSyncOptions::default()
        })),
        completion_provider: Some(CompletionOptions {
            trigger_characters: Some(vec!["\"".to_owned(), "'".to_owned(), ".".to_owned()]),
            ..CompletionOptions::default()
        }),
        hover_provider: Some(HoverProviderCapability::Simple(true)),
        definition_provider: Some(OneOf::Left(true)),
        code_action_provider: Some(CodeActionProviderCapability::Options(lsp_types::CodeActionOptions {
            code_action_kinds: Some(vec![
                lsp_types::CodeActionKind::QUICKFIX,
                lsp_types::CodeActionKind::new(actions::FIX_ALL),
            ]),
            ..lsp_types::CodeActionOptions::default()
        })),
        ..ServerCapabilities::default()
    }
}

/// The workspace's folders (absolute, links resolved): where a project is looked for.
fn roots(params: &InitializeParams) -> Vec<PathBuf> {
    let folders = params.workspace_folders.iter().flatten().map(|folder| &folder.uri);
    #[allow(deprecated)] // A client without workspace folders sends only `rootUri`.
    let root = params.root_uri.iter();
    folders.chain(root).filter_map(text::path_of).map(|path| path.canonicalize().unwrap_or(path)).collect()
}

/// The server runs no code unless the client's initialization options say
/// `"runExtensions": true` (VS Code sends it only in a trusted workspace): then a full check
/// runs each extension mount as `validate` does.
fn mount_runs(params: &InitializeParams) -> crate::check::extensions::MountRuns {
    use crate::check::extensions::{Forbidden, MountRuns};
    let options = params.initialization_options.as_ref();
    match options.and_then(|options| options.get("runExtensions")).and_then(serde_json::Value::as_bool) {
        Some(true) => MountRuns::Contained { pass_env: Vec::new() },
        _ => MountRuns::Forbidden(Forbidden::Editor),
    }
}

/// Whether the client takes `documentChanges` in a workspace edit, each naming the version
/// of the document it is for (and refuses one whose document changed since).
fn takes_versioned_edits(params: &InitializeParams) -> bool {
    let workspace = params.capabilities.workspace.as_ref();
    let edits = workspace.and_then(|workspace| workspace.workspace_edit.as_ref());
    edits.and_then(|edits| edits.document_changes).unwrap_or(false)
}

fn watches_files(params: &InitializeParams) -> bool {
    let watched = params.capabilities.workspace.as_ref().and_then(|workspace| workspace.did_change_watched_files);
    watched.and_then(|watched| watched.dynamic_registration).unwrap_or(false)
}

struct Server {
    shared: Arc<Shared>,
    roots: Vec<PathBuf>,
    /// The worker of each project seen, by its folder (absolute, links resolved).
    workers: HashMap<PathBuf, Worker>,
    /// Documents edited and not yet handed to their worker: when they will be.
    pending: HashMap<PathBuf, Instant>,
    /// The client takes versioned edits (`documentChanges`): code actions send them.
    versioned_edits: bool,
}

impl Server {
    fn main_loop(&mut self, connection: &Connection) {
        loop {
            let next = self.pending.values().min().copied();
            let received = match next {
                Some(deadline) => connection.receiver.recv_timeout(deadline.saturating_duration_since(Instant::now())),
                None => connection.receiver.recv().map_err(|_| crossbeam_channel::RecvTimeoutError::Disconnected),
            };
            match received {
                Ok(Message::Request(request)) => {
                    if connection.handle_shutdown(&request).unwrap_or(true) {
                        return;
                    }
                    let response = self.answer(request);
                    let _ = connection.sender.send(Message::Response(response));
                }
                Ok(Message::Notification(notification)) => {
                    if notification.method == "exit" {
                        return;
                    }
                    self.take_notice(notification);
                }
                Ok(Message::Response(_)) => {} // to our registration of file watchers
                Err(crossbeam_channel::RecvTimeoutError::Timeout) => {}
                Err(crossbeam_channel::RecvTimeoutError::Disconnected) => return,
            }
            self.hand_over_rested();
        }
    }

    /// Hands every document that rested for [`DEBOUNCE`] to its project's worker.
    fn hand_over_rested(&mut self) {
        let now = Instant::now();
        let rested: Vec<PathBuf> =
            self.pending.iter().filter(|(_, deadline)| **deadline <= now).map(|(path, _)| path.clone()).collect();
        for path in rested {
            self.pending.remove(&path);
            self.send(&path, Job::Edited(path.clone()));
        }
    }

    /// Sends `job` to the worker of the project `path` is in, starting it (and its first,
    /// full check) for a project not seen before.
    fn send(&mut self, path: &Path, job: Job) {
        let Some(dir) = self.project_of(path) else { return };
        if !self.workers.contains_key(&dir) {
            let worker = Worker::start(dir.clone(), Arc::clone(&self.shared));
            worker.send(Job::Full);
            self.workers.insert(dir.clone(), worker);
            if !matches!(job, Job::Full) {
                return;
            }
        }
        self.workers[&dir].send(job);
    }

    /// The project `path` is in: the nearest folder above it with `bot/` or `agent/`, looked
    /// for only inside the workspace folder it is in (a file outside every workspace folder
    /// is in none) and never inside a `node_modules/` (a package go-to-definition opened is
    /// not a project the server was asked to serve).
    fn project_of(&self, path: &Path) -> Option<PathBuf> {
        let root = self.roots.iter().filter(|root| path.starts_with(root)).max_by_key(|root| root.as_os_str().len())?;
        let inside = path.strip_prefix(root).ok()?;
        if inside.components().any(|part| part.as_os_str() == "node_modules") {
            return None;
        }
        for folder in path.ancestors().skip(1).take_while(|folder| folder.starts_with(root)) {
            if crate::project::Layout::ALL.iter().any(|layout| folder.join(layout.folder()).is_dir()) {
                return Some(folder.to_path_buf());
            }
        }
        None
    }

    fn take_notice(&mut self, notification: Notification) {
        match notification.method.as_str() {
            DidOpenTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidOpenTextDocumentParams>(DidOpenTextDocument::METHOD)
                else {
                    return;
                };
                let Some(path) = canonical(&params.text_document.uri) else { return };
                let document = Document {
                    uri: params.text_document.uri,
                    version: params.text_document.version,
                    text: params.text_document.text,
                };
                self.lock_documents().insert(path.clone(), document);
                self.send(&path, Job::Edited(path.clone()));
            }
            DidChangeTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidChangeTextDocumentParams>(DidChangeTextDocument::METHOD)
                else {
                    return;
                };
                let Some(path) = canonical(&params.text_document.uri) else { return };
                // Full sync: the last change holds the whole text.
                let Some(change) = params.content_changes.into_iter().last() else { return };
                if let Some(document) = self.lock_documents().get_mut(&path) {
                    document.version = params.text_document.version;
                    document.text = change.text;
                }
                self.pending.insert(path, Instant::now() + DEBOUNCE);
            }
            DidSaveTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidSaveTextDocumentParams>(DidSaveTextDocument::METHOD)
                else {
                    return;
                };
                let Some(path) = canonical(&params.text_document.uri) else { return };
                self.pending.remove(&path);
                let job = if is_config(&path) { Job::Full } else { Job::Saved(path.clone()) };
                self.send(&path, job);
            }
            DidCloseTextDocument::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidCloseTextDocumentParams>(DidCloseTextDocument::METHOD)
                else {
                    return;
                };
                let Some(path) = canonical(&params.text_document.uri) else { return };
                self.lock_documents().remove(&path);
                self.pending.remove(&path);
                // What is on disk now counts.
                if self.project_of(&path).is_some_and(|dir| self.workers.contains_key(&dir)) {
                    self.send(&path, Job::Edited(path.clone()));
                }
            }
            DidChangeWatchedFiles::METHOD => {
                let Ok(params) =
                    notification.extract::<lsp_types::DidChangeWatchedFilesParams>(DidChangeWatchedFiles::METHOD)
                else {
                    return;
                };
                self.files_changed(params.changes);
            }
            _ => {}
        }
    }

    /// Files changed on disk: a config file, a new or deleted file re-checks its project; a
    /// changed module not open in the editor (whose text counts while open) re-checks what it affects.
    fn files_changed(&mut self, changes: Vec<lsp_types::FileEvent>) {
        for change in changes {
            let Some(path) = text::path_of(&change.uri) else { continue };
            let path = path.canonicalize().unwrap_or(path);
            let dir = self.project_of(&path);
            if !dir.is_some_and(|dir| self.workers.contains_key(&dir)) {
                continue; // a project not opened yet is checked when it is
            }
            if is_config(&path) || change.typ != FileChangeType::CHANGED {
                self.send(&path, Job::Full);
            } else if !self.lock_documents().contains_key(&path) {
                self.send(&path, Job::Edited(path.clone()));
            }
        }
    }

    fn register_file_watchers(&self) {
        let names = PROJECT_FILES.into_iter().chain(crate::config::FILE_NAMES);
        let watchers = names
            .map(|name| format!("**/{name}"))
            .chain(["**/*.{ts,mts,cts,js,mjs,cjs}".to_owned()])
            .map(|glob| lsp_types::FileSystemWatcher { glob_pattern: lsp_types::GlobPattern::String(glob), kind: None })
            .collect();
        let options = lsp_types::DidChangeWatchedFilesRegistrationOptions { watchers };
        let registration = lsp_types::Registration {
            id: "agent-sdk-watched-files".to_owned(),
            method: DidChangeWatchedFiles::METHOD.to_owned(),
            register_options: serde_json::to_value(options).ok(),
        };
        let params = lsp_types::RegistrationParams { registrations: vec![registration] };
        let request = Request::new(
            RequestId::from("agent-sdk-register-watchers".to_owned()),
            lsp_types::request::RegisterCapability::METHOD.to_owned(),
            params,
        );
        let _ = self.shared.sender.send(Message::Request(request));
    }

    fn answer(&self, request: Request) -> Response {
        let id = request.id.clone();
        match request.method.as_str() {
            Completion::METHOD => self.with_document::<Completion>(request, |_, _, document, params| {
                let position = params.text_document_position.position;
                Some(lsp_types::CompletionResponse::Array(events::completions(&document.text, position)))
            }),
            HoverRequest::METHOD => self.with_document::<HoverRequest>(request, |_, _, document, params| {
                events::hover(&document.text, params.text_document_position_params.position)
            }),
            GotoDefinition::METHOD => self.with_document::<GotoDefinition>(request, |dir, path, document, params| {
                let position = params.text_document_position_params.position;
                goto::definition(dir, path, &document.text, position).map(lsp_types::GotoDefinitionResponse::Scalar)
            }),
            CodeActionRequest::METHOD => {
                self.with_document::<CodeActionRequest>(request, |_, path, document, params| {
                    let published = self.shared.published.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                    // Diagnostics of another version point into another text: an edit made
                    // since, and not checked yet, would be cut by their ranges.
                    let current = published.get(path).filter(|file| file.version == Some(document.version));
                    let found = current.map_or(&[][..], |file| file.found.as_slice());
                    let only = params.context.only.as_deref();
                    Some(actions::code_actions(document, params.range, found, self.versioned_edits, only))
                })
            }
            _ => Response::new_err(
                id,
                ErrorCode::MethodNotFound as i32,
                format!("`{}` is not supported", request.method),
            ),
        }
    }

    /// Answers a request about an open document with `answer(project dir, path, document,
    /// params)`: `null` for a document that is not open or not in a project.
    fn with_document<R: lsp_types::request::Request>(
        &self,
        request: Request,
        answer: impl FnOnce(&Path, &Path, &Document, &R::Params) -> R::Result,
    ) -> Response
    where
        R::Params: serde::de::DeserializeOwned + HasDocument,
        R::Result: serde::Serialize + Default,
    {
        let id = request.id.clone();
        let params: R::Params = match serde_json::from_value(request.params) {
            Ok(params) => params,
            Err(error) => {
                return Response::new_err(id, ErrorCode::InvalidParams as i32, format!("invalid params: {error}"));
            }
        };
        let path = canonical(params.uri());
        let document = path.as_ref().and_then(|path| self.lock_documents().get(path).cloned());
        let dir = path.as_deref().and_then(|path| self.project_of(path));
        let result = match (path, document, dir) {
            (Some(path), Some(document), Some(dir)) => answer(&dir, &path, &document, &params),
            _ => R::Result::default(),
        };
        Response::new_ok(id, result)
    }

    fn lock_documents(&self) -> std::sync::MutexGuard<'_, HashMap<PathBuf, Document>> {
        self.shared.documents.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// The requests' parameters name their document.
trait HasDocument {
    fn uri(&self) -> &lsp_types::Uri;
}

impl HasDocument for lsp_types::CompletionParams {
    fn uri(&self) -> &lsp_types::Uri {
        &self.text_document_position.text_document.uri
    }
}

impl HasDocument for lsp_types::HoverParams {
    fn uri(&self) -> &lsp_types::Uri {
        &self.text_document_position_params.text_document.uri
    }
}

impl HasDocument for lsp_types::GotoDefinitionParams {
    fn uri(&self) -> &lsp_types::Uri {
        &self.text_document_position_params.text_document.uri
    }
}

impl HasDocument for lsp_types::CodeActionParams {
    fn uri(&self) -> &lsp_types::Uri {
        &self.text_document.uri
    }
}

/// The path of a `file://` URI with every link resolved (as the check knows files).
fn canonical(uri: &lsp_types::Uri) -> Option<PathBuf> {
    let path = text::path_of(uri)?;
    Some(path.canonicalize().unwrap_or(path))
}

fn is_config(path: &Path) -> bool {
    path.file_name()
        .and_then(|name| name.to_str())
        .is_some_and(|name| PROJECT_FILES.contains(&name) || crate::config::FILE_NAMES.contains(&name))
}
