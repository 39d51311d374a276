//! The HTTP client the OTLP exporters send with: reqwest on a thread of its own (the SDK's
//! batch threads wait for it without a runtime of theirs), each request bounded by the
//! signal's timeout, its headers read afresh from the `OTEL_EXPORTER_OTLP_*HEADERS`
//! variables, and the first thing that went wrong kept for one warning line (never a
//! header's value, nor the user name and password of the URL).

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use opentelemetry_http::{Bytes, HttpClient, HttpError, Request, Response};

use crate::http::trust::Trust;
use crate::telemetry::config::Signal;
use crate::text::uri::{without_credentials, without_credentials_of};

/// The most of a collector's answer read (its body is only looked at when it refused).
const MAX_ANSWER: usize = 64 * 1024;

/// What went wrong exporting, kept for the warning line.
#[derive(Debug, Default)]
pub struct Failures {
    inner: Mutex<FailureCount>,
}

#[derive(Debug, Default)]
struct FailureCount {
    first: Option<String>,
    count: u64,
    /// Whether the warning was said (`dev` says it once, as soon as it is seen).
    said: bool,
}

impl Failures {
    fn note(&self, what: String) {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        inner.count += 1;
        inner.first.get_or_insert(what);
    }

    /// The warning to say about failures not said yet, once: what failed first, and how
    /// many requests failed.
    pub fn take_warning(&self) -> Option<String> {
        let mut inner = self.inner.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if inner.said {
            return None;
        }
        let first = inner.first.clone()?;
        inner.said = true;
        let count = match inner.count {
            1 => "1 request failed".to_owned(),
            count => format!("{count} requests failed"),
        };
        Some(format!("OpenTelemetry export failed: {first} ({count}; what they carried is lost)"))
    }
}

/// The client of one signal's exporter.
#[derive(Debug, Clone)]
pub struct ExportClient {
    pub signal: Signal,
    pub timeout: Duration,
    client: Arc<TrustedClient>,
    runtime: tokio::runtime::Handle,
    /// The `.env` files' variables, for the headers (the shell's are read from the process).
    files: Arc<Vec<(String, String)>>,
    failures: Arc<Failures>,
}

impl ExportClient {
    /// `trust`: the CAs it trusts (a client made for an earlier signal that trusts the same
    /// is shared).
    pub fn new(
        signal: Signal,
        timeout: Duration,
        shared: &Shared,
        trust: Trust,
        files: Arc<Vec<(String, String)>>,
        failures: Arc<Failures>,
    ) -> Self {
        Self { signal, timeout, client: shared.client(trust), runtime: shared.runtime.clone(), files, failures }
    }

    fn lookup(&self, name: &str) -> Option<String> {
        lookup_in(&self.files, name)
    }

    async fn send(&self, request: Request<Bytes>) -> Result<Response<Bytes>, String> {
        let url = without_credentials(&request.uri().to_string());
        let mut request = reqwest::Request::try_from(request).map_err(|error| format!("{url}: {error}"))?;
        for (name, value) in self.signal.headers(&|name| self.lookup(name)) {
            match (reqwest::header::HeaderName::try_from(name.as_str()), reqwest::header::HeaderValue::try_from(value))
            {
                (Ok(name), Ok(value)) => {
                    request.headers_mut().insert(name, value);
                }
                // The name only: the value may be a secret.
                _ => {
                    return Err(format!(
                        "the header `{}` of OTEL_EXPORTER_OTLP_HEADERS is not valid",
                        name.escape_default()
                    ));
                }
            }
        }
        *request.timeout_mut() = Some(self.timeout);
        let client = Arc::clone(&self.client);
        let timeout = self.timeout;
        let answer = self.runtime.spawn(async move {
            let trusted = client;
            let client = trusted.get().await.map_err(|error| format!("{url}: {error}"))?;
            let mut response =
                client.execute(request).await.map_err(|error| describe(&url, &error, timeout, &trusted.trust))?;
            let status = response.status();
            let mut body = Vec::new();
            while let Ok(Some(chunk)) = response.chunk().await {
                body.extend_from_slice(&chunk[..chunk.len().min(MAX_ANSWER - body.len())]);
                if body.len() >= MAX_ANSWER {
                    break;
                }
            }
            if !status.is_success() {
                return Err(format!("{url} answered {status}"));
            }
            let mut answer = Response::new(Bytes::from(body));
            *answer.status_mut() = status;
            Ok(answer)
        });
        answer.await.map_err(|error| format!("{}: {error}", self.signal.name()))?
    }
}

/// Why a request got no answer, in words.
fn describe(url: &str, error: &reqwest::Error, timeout: Duration, trust: &Trust) -> String {
    if let Some(why) = trust.untrusted(error) {
        format!("could not connect to {url}: {why}")
    } else if error.is_timeout() {
        format!(
            "{url} did not answer within {} (OTEL_EXPORTER_OTLP_TIMEOUT)",
            crate::time::clock::format_duration(timeout)
        )
    } else if error.is_connect() {
        format!("could not connect to {url}")
    } else {
        format!("{url}: {error}")
    }
}

#[async_trait]
impl HttpClient for ExportClient {
    async fn send_bytes(&self, request: Request<Bytes>) -> Result<Response<Bytes>, HttpError> {
        let url = request.uri().to_string();
        // The HTTP client's errors name the URL, with its user name and password.
        self.send(request).await.map_err(|what| {
            let what = without_credentials_of(&what, &[&url]);
            self.failures.note(what.clone());
            what.into()
        })
    }
}

/// A variable as the exporters read it: the shell's, else the `.env` files'; an empty
/// value counts as unset.
pub fn lookup_in(files: &[(String, String)], name: &str) -> Option<String> {
    std::env::var(name)
        .ok()
        .or_else(|| files.iter().find(|(key, _)| key == name).map(|(_, value)| value.clone()))
        .filter(|value| !value.is_empty())
}

/// One HTTP client and the CAs it trusts.
#[derive(Debug)]
struct TrustedClient {
    trust: Trust,
    /// Made on the export thread as it starts (its TLS set-up runs while Node boots, not
    /// on the way of a cold start), or by the first export if that comes first.
    client: tokio::sync::OnceCell<reqwest::Client>,
}

impl TrustedClient {
    async fn get(&self) -> reqwest::Result<&reqwest::Client> {
        self.client
            .get_or_try_init(|| async {
                self.trust
                    .client()
                    .connect_timeout(Duration::from_secs(5))
                    .redirect(reqwest::redirect::Policy::none())
                    .user_agent(concat!("agent-sdk/", env!("CARGO_PKG_VERSION")))
                    .build()
            })
            .await
    }
}

/// The thread every signal's exporter shares, and their clients: one for all of them
/// unless a signal trusts CAs of its own (`OTEL_EXPORTER_OTLP_LOGS_CERTIFICATE`).
pub struct Shared {
    clients: Mutex<Vec<Arc<TrustedClient>>>,
    runtime: tokio::runtime::Handle,
}

impl Shared {
    /// Starts the export thread (it lives as long as the process: exports in flight when
    /// the process ends are dropped, after the flush bound).
    pub fn start() -> anyhow::Result<Shared> {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
        let handle = runtime.handle().clone();
        std::thread::Builder::new().name("otel-export".to_owned()).spawn(move || {
            runtime.block_on(std::future::pending::<()>());
        })?;
        Ok(Shared { clients: Mutex::new(Vec::new()), runtime: handle })
    }

    /// The client that trusts `trust`: one made for an earlier signal if it trusts the
    /// same, else a new one, made on the export thread from now.
    fn client(&self, trust: Trust) -> Arc<TrustedClient> {
        let mut clients = self.clients.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(client) = clients.iter().find(|client| client.trust == trust) {
            return Arc::clone(client);
        }
        let client = Arc::new(TrustedClient { trust, client: tokio::sync::OnceCell::new() });
        clients.push(Arc::clone(&client));
        let made = Arc::clone(&client);
        self.runtime.spawn(async move {
            let _ = made.get().await;
        });
        client
    }
}
