//! `GET /v1/logs`: the serve log as Server-Sent Events, read by [`crate::state::log_query`]. History first (`since`, `tail`,
//! `session`, `level`), resumable from `Last-Event-ID`, then (with `follow`) every new line
//! as it is recorded; each event's `id` is the line's cursor. Heartbeat comments keep an
//! idle connection alive.
//!
//! At most [`MAX_FOLLOWERS`] streams are served at once, and all of them read through one
//! store connection, so a burst of followers costs the server one descriptor each (their
//! connection) and leaves nothing behind: SQLite keeps a closed connection's database handle
//! open while another connection of the process holds a lock, so a connection per follower
//! left the burst's peak of handles open for as long as the server ran.

use std::convert::Infallible;
use std::path::PathBuf;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use serde_json::Value;
use tokio_stream::wrappers::ReceiverStream;

use crate::state::log_query::{Filter, LogRequest, PAGE, QueryFrom, Start, query, resolve_session, start_cursor};
use crate::state::serve_log::{LOG_CURSOR_HEADER, LOG_ID_HEADER};

/// A heartbeat comment this often while idle.
pub const HEARTBEAT: Duration = Duration::from_secs(15);

/// The most `/v1/logs` streams served at once.
pub const MAX_FOLLOWERS: usize = 64;

/// Why a `/v1/logs` request gets no stream.
#[derive(Debug)]
pub enum Refusal {
    /// [`MAX_FOLLOWERS`] streams are being served (429).
    Full,
    /// The request names no one session (400): a tag that ends several sessions' ids.
    BadRequest(String),
    /// The store could not be read, e.g. the process is out of file descriptors (503).
    Unavailable(anyhow::Error),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::Full => write!(
                f,
                "{MAX_FOLLOWERS} log followers are connected, the most this server takes; try again when one has left"
            ),
            Refusal::BadRequest(problem) => f.write_str(problem),
            Refusal::Unavailable(problem) => {
                write!(f, "could not read the serve log now ({problem:#}); try again shortly")
            }
        }
    }
}

/// Every `/v1/logs` stream of the server: how many there are, and the one store
/// connection they read through (opened by the first, kept for the server's life).
pub struct Followers {
    project_dir: PathBuf,
    room: Arc<tokio::sync::Semaphore>,
    store: SharedStore,
}

type SharedStore = Arc<Mutex<Option<crate::state::StateStore>>>;

impl Followers {
    pub fn new(project_dir: PathBuf) -> Self {
        Self { project_dir, room: Arc::new(tokio::sync::Semaphore::new(MAX_FOLLOWERS)), store: SharedStore::default() }
    }

    /// The SSE response: history, then (with `follow`) new lines until the client leaves or
    /// the server stops; its `Log-Id` header names the log the cursors belong to.
    pub async fn respond(
        &self,
        request: LogRequest,
        newest: tokio::sync::watch::Receiver<u64>,
        stopping: tokio::sync::watch::Receiver<bool>,
    ) -> Result<Response, Refusal> {
        let place = Arc::clone(&self.room).try_acquire_owned().map_err(|_| Refusal::Full)?;
        let LogRequest { mut filter, start, follow } = request;
        // Only a request that names a session reads the store for it (a tag is resolved).
        if let Some(given) = filter.session.clone() {
            let session = with_store(&self.project_dir, &self.store, move |store| resolve_session(store, Some(&given)))
                .await
                .map_err(Refusal::Unavailable)?;
            filter.session = session.map_err(Refusal::BadRequest)?;
        }
        let reader = LogReader {
            project_dir: self.project_dir.clone(),
            filter: Arc::new(filter),
            store: Arc::clone(&self.store),
        };
        let log_id = reader.with_store(crate::state::StateStore::log_id).await.map_err(Refusal::Unavailable)?;
        let cursor = reader.start_cursor(start).await.map_err(Refusal::Unavailable)?;
        let events = stream(reader, cursor, follow, newest, stopping, place);
        Ok(([(LOG_ID_HEADER, log_id), (LOG_CURSOR_HEADER, cursor.to_string())], events).into_response())
    }
}

/// The stream of one follower, which holds its `place` among the followers until it ends.
fn stream(
    reader: LogReader,
    start_after: u64,
    follow: bool,
    mut newest: tokio::sync::watch::Receiver<u64>,
    mut stopping: tokio::sync::watch::Receiver<bool>,
    place: tokio::sync::OwnedSemaphorePermit,
) -> Sse<impl futures_util::Stream<Item = Result<Event, Infallible>>> {
    let (sender, receiver) = tokio::sync::mpsc::channel::<Result<Event, Infallible>>(256);
    tokio::spawn(async move {
        let _place = place;
        let mut cursor = start_after;
        loop {
            let rows = match reader.read(QueryFrom::After(cursor)).await {
                Ok(rows) => rows,
                Err(_) => return,
            };
            let full_page = rows.len() as u64 == PAGE;
            for (line_cursor, record) in rows {
                cursor = line_cursor;
                let event = Event::default().id(line_cursor.to_string()).data(record.to_string());
                if sender.send(Ok(event)).await.is_err() {
                    return; // the client left
                }
            }
            if full_page {
                continue;
            }
            if !follow {
                return;
            }
            // Wait for a newer line, the server stopping, or a periodic re-check; a client
            // that leaves (the server drops its response) ends the follower and its store
            // connection at once, not at the next line that will never come.
            tokio::select! {
                _ = newest.changed() => {}
                _ = stopping.changed() => return,
                () = sender.closed() => return,
                () = tokio::time::sleep(Duration::from_secs(1)) => {}
            }
            if *stopping.borrow() {
                return;
            }
        }
    });
    Sse::new(ReceiverStream::new(receiver)).keep_alive(KeepAlive::new().interval(HEARTBEAT).text("heartbeat"))
}

/// Reads one follower's pages on a blocking thread, through the followers' one store
/// connection (opened by the first read of any of them).
struct LogReader {
    project_dir: PathBuf,
    filter: Arc<Filter>,
    store: SharedStore,
}

impl LogReader {
    /// The cursor the history starts after.
    async fn start_cursor(&self, start: Start) -> anyhow::Result<u64> {
        let filter = Arc::clone(&self.filter);
        self.with_store(move |store| start_cursor(store, &filter, start)).await
    }

    async fn read(&self, from: QueryFrom) -> anyhow::Result<Vec<(u64, Value)>> {
        let filter = Arc::clone(&self.filter);
        self.with_store(move |store| query(store, &filter, &from)).await
    }

    async fn with_store<T: Send + 'static>(
        &self,
        work: impl FnOnce(&crate::state::StateStore) -> anyhow::Result<T> + Send + 'static,
    ) -> anyhow::Result<T> {
        with_store(&self.project_dir, &self.store, work).await
    }
}

/// Runs `work` on a blocking thread with the followers' store connection (opened by the
/// first to need it).
async fn with_store<T: Send + 'static>(
    project_dir: &std::path::Path,
    store: &SharedStore,
    work: impl FnOnce(&crate::state::StateStore) -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let project_dir = project_dir.to_path_buf();
    let store = Arc::clone(store);
    tokio::task::spawn_blocking(move || {
        let mut store = store.lock().unwrap_or_else(PoisonError::into_inner);
        let store = match &mut *store {
            Some(store) => store,
            empty => empty.insert(crate::state::StateStore::open(&project_dir)?),
        };
        work(store)
    })
    .await?
}
