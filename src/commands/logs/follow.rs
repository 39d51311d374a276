//! The reconnecting loop: one request at a time, its SSE events printed as they come, and
//! after a lost connection (the stream ends while following, a read error, a 5xx, 45 s of
//! silence) a new request with `Last-Event-ID` after a backoff, until the server answers
//! again or `--retry-for` (60 s by default) passes.

use std::error::Error;
use std::time::Duration;

use futures_util::{FutureExt, StreamExt};
use reqwest::header::{ACCEPT, AUTHORIZATION, CONTENT_TYPE, HeaderValue};
use reqwest::{Response, StatusCode};
use tokio::time::Instant;

use super::Stop;
use super::connect::Endpoint;
use super::print::{LogRecord, Output};
use super::query::Query;
use super::resume::{Backoff, Resume, clock_seed};
use crate::http::sse::{SseEvent, SseParser};
use crate::http::trust::Trust;
use crate::state::serve_log::{LOG_CURSOR_HEADER, LOG_ID_HEADER};
use crate::text::untrusted::escape;

/// How long to keep trying after a connection is lost before giving up (exit 1).
/// A connection that brings no byte for this long is dead: three missed 15 s heartbeats.
pub const SILENCE_LIMIT: Duration = Duration::from_secs(45);
/// A stream works once it brings a record not printed before, or stays open this long
/// without breaking (an idle server sends nothing but a heartbeat every 15 s). A record
/// printed before does not count: a server that sends the same line and breaks, again and
/// again, is given up on after `--retry-for` like one that is down.
const STEADY: Duration = Duration::from_secs(2);
/// How long to wait for a TCP (and TLS) connection.
const CONNECT_TIMEOUT: Duration = Duration::from_secs(10);
/// How long to wait for the response's status line once connected.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(10);
/// How much of an error response's body is read.
const ERROR_BODY_BYTES: usize = 64 * 1024;
/// How much of an error response's body a message quotes.
const BODY_EXCERPT_CHARS: usize = 200;

/// Prints the log until the history ends (without `--follow`), the user stops it, or the
/// server is gone for good; every way of ending early is a [`Stop`].
pub async fn follow(endpoint: &Endpoint, query: &Query, output: Output<'_>, retry_for: Duration) -> anyhow::Result<()> {
    let authorization = endpoint.token.as_ref().map(|token| token.header_value()).transpose()?;
    let trust = Trust::for_url(endpoint.host.as_str(), &|name| std::env::var(name).ok())
        .map_err(|broken| Stop::usage(broken.message))?;
    let client = trust
        .client()
        // A redirect could carry the token somewhere the user did not name.
        .redirect(reqwest::redirect::Policy::none())
        .connect_timeout(CONNECT_TIMEOUT)
        // Every try gets a fresh connection: a pooled one may belong to a server that is gone.
        .pool_max_idle_per_host(0)
        .build()?;
    let mut follower = Follower {
        client,
        trust,
        endpoint,
        query,
        authorization,
        output,
        resume: Resume::default(),
        retry_for,
        outage: None,
        worked_once: false,
        log_id: None,
        from_start: false,
    };
    follower.run().await
}

/// Why a request did not give us a stream.
enum Failed {
    /// Nothing to retry: a refused token, a wrong URL, a bad request.
    Stop(Stop),
    /// Worth another try once the server is back.
    Retry(Unavailable),
}

/// How a try failed while the server may come back.
enum Unavailable {
    Refused,
    Unreachable(String),
    Status(StatusCode),
}

/// How a stream that was open came to an end.
enum StreamEnd {
    /// The server closed it cleanly: the history is complete (or, when following, the
    /// server is going away).
    Finished,
    Broken(String),
    Silent,
}

impl StreamEnd {
    fn reason(&self) -> String {
        match self {
            StreamEnd::Finished => "the server ended the stream".to_owned(),
            StreamEnd::Broken(cause) => cause.clone(),
            StreamEnd::Silent => format!("nothing heard for {} s", SILENCE_LIMIT.as_secs()),
        }
    }
}

/// A time without a working stream, reported once on stderr.
struct Outage {
    started: Instant,
    backoff: Backoff,
    /// What was wrong with the last stream that answered but never worked.
    bad_stream: Option<String>,
}

impl Outage {
    fn begin(output: &Output<'_>, message: &str) -> Self {
        output.printer.stderr(&format!("{}\n", crate::text::uri::without_credentials(message)));
        Self { started: Instant::now(), backoff: Backoff::default(), bad_stream: None }
    }
}

/// What became of one SSE event.
enum Shown {
    /// A record, printed.
    Printed,
    /// A record printed before, dropped.
    Again,
    /// Something the server sent that is not a record, and why.
    Rejected(String),
}

struct Follower<'a> {
    client: reqwest::Client,
    /// The CAs the client trusts, and what to say when they do not cover the server's.
    trust: Trust,
    endpoint: &'a Endpoint,
    query: &'a Query,
    authorization: Option<HeaderValue>,
    output: Output<'a>,
    resume: Resume,
    /// How long an outage may last before giving up.
    retry_for: Duration,
    /// Since when no stream has worked, if that is now.
    outage: Option<Outage>,
    /// Whether a stream has worked before (what to say when one works again).
    worked_once: bool,
    /// The server's name for its log, if it gives one.
    log_id: Option<String>,
    /// Ask for the whole log, without `since` or `tail` (it was reset).
    from_start: bool,
}

impl Follower<'_> {
    /// An outage ends only when a stream works (see [`STEADY`]), not when a server merely
    /// answers: one that keeps answering with a broken stream is given up on in time.
    async fn run(&mut self) -> anyhow::Result<()> {
        let mut connected_once = false;
        loop {
            if let Some(outage) = &mut self.outage {
                if outage.started.elapsed() >= self.retry_for {
                    return Err(self.give_up().into());
                }
                tokio::time::sleep(outage.backoff.next_delay(clock_seed())).await;
            }
            match self.connect().await {
                Ok(response) => {
                    connected_once = true;
                    if self.log_was_reset(&response) {
                        continue;
                    }
                    let (end, worked) = self.read(response).await?;
                    if matches!(end, StreamEnd::Finished) && !self.query.follow {
                        return Ok(());
                    }
                    if self.outage.is_none() {
                        let message = format!("connection lost ({}); reconnecting…", end.reason());
                        self.outage = Some(Outage::begin(&self.output, &message));
                    }
                    if let (Some(outage), false) = (&mut self.outage, worked) {
                        outage.bad_stream = Some(end.reason());
                    }
                }
                Err(Failed::Stop(stop)) => return Err(stop.into()),
                Err(Failed::Retry(unavailable)) if !connected_once && self.outage.is_none() => {
                    let message = self.first_try_failed(unavailable)?;
                    self.outage = Some(Outage::begin(&self.output, &message));
                }
                Err(Failed::Retry(_)) => match &mut self.outage {
                    Some(outage) => outage.bad_stream = None,
                    None => self.outage = Some(Outage::begin(&self.output, "connection lost; reconnecting…")),
                },
            }
        }
    }

    /// Whether this answer comes from a log made again since the last one (its `Log-Id`
    /// changed: the server's state was reset, and its cursors started over). If so, says
    /// so and starts again from the new log's beginning, instead of waiting for its cursors
    /// to pass the last one printed.
    fn log_was_reset(&mut self, response: &Response) -> bool {
        let log_id = response.headers().get(LOG_ID_HEADER).and_then(|value| value.to_str().ok()).map(str::to_owned);
        let reset = matches!((&self.log_id, &log_id), (Some(known), Some(now)) if known != now);
        if reset {
            self.output
                .printer
                .stderr("the server's log was reset (its cursors started over); printing it from its start\n");
            self.resume = Resume::default();
            self.from_start = true;
        }
        if log_id.is_some() {
            self.log_id = log_id;
        }
        // Nothing printed yet (`--tail 0`, or no line matched): the next connection resumes
        // from where this one's history started, not from the newest line then.
        let start = response.headers().get(LOG_CURSOR_HEADER).and_then(|value| value.to_str().ok()?.parse().ok());
        if !reset && self.resume.last_event_id().is_none() {
            self.resume.starts_after(start);
        }
        reset
    }

    /// The stream works: an outage, if any, is over.
    fn working(&mut self) {
        if self.outage.take().is_some() {
            self.output.printer.progress(if self.worked_once { "reconnected\n" } else { "connected\n" });
        }
        self.worked_once = true;
    }

    /// On the very first try only a server error is worth waiting for (it may be starting);
    /// no server at all ends at once.
    fn first_try_failed(&self, unavailable: Unavailable) -> Result<String, Stop> {
        let host = self.endpoint.display_host();
        match unavailable {
            Unavailable::Refused => Err(Stop::no_server(format!(
                "no dev server found at {host}; start one with `{} dev`",
                crate::process::invocation::command()
            ))),
            Unavailable::Unreachable(cause) => Err(Stop::failure(format!("could not connect to {host}: {cause}"))),
            Unavailable::Status(status) => Ok(format!("the server answered {status}; retrying…")),
        }
    }

    fn give_up(&self) -> Stop {
        let host = self.endpoint.display_host();
        let waited = crate::time::clock::format_duration(self.retry_for);
        match self.outage.as_ref().and_then(|outage| outage.bad_stream.as_deref()) {
            Some(why) => Stop::failure(format!(
                "{host} answered, but with no working log stream for {waited} (the last one: {why}); giving up"
            )),
            None => {
                Stop::failure(format!("no connection to {host} for {waited}; giving up (is the server still running?)"))
            }
        }
    }

    /// One `GET /v1/logs`, resumed after the last record printed if there is one.
    async fn connect(&self) -> Result<Response, Failed> {
        let last_event_id = self.resume.last_event_id();
        let mut request = self
            .client
            .get(self.query.url(&self.endpoint.host, last_event_id.is_some() || self.from_start))
            .header(ACCEPT, "text/event-stream");
        if let Some(authorization) = &self.authorization {
            request = request.header(AUTHORIZATION, authorization.clone());
        }
        if let Some(cursor) = last_event_id {
            request = request.header("Last-Event-ID", cursor.to_string());
        }
        let response = match tokio::time::timeout(ANSWER_TIMEOUT, request.send()).await {
            Err(_) => {
                let cause = format!("no answer within {} s", ANSWER_TIMEOUT.as_secs());
                return Err(Failed::Retry(Unavailable::Unreachable(cause)));
            }
            Ok(Err(error)) => match self.trust.untrusted(&error) {
                // Another try meets the same certificate.
                Some(why) => {
                    let host = self.endpoint.display_host();
                    return Err(Failed::Stop(Stop::failure(format!("could not connect to {host}: {why}"))));
                }
                None => return Err(Failed::Retry(unavailable(&error))),
            },
            Ok(Ok(response)) => response,
        };
        self.accept(response).await
    }

    /// A stream to read, or what the status code says to do.
    async fn accept(&self, response: Response) -> Result<Response, Failed> {
        let status = response.status();
        if status.is_success() {
            return if is_event_stream(&response) {
                Ok(response)
            } else {
                Err(Failed::Stop(Stop::failure(format!(
                    "{} did not answer with an event stream: is --host an agent-sdk server?",
                    self.endpoint.display_host()
                ))))
            };
        }
        if status.is_server_error() || matches!(status, StatusCode::REQUEST_TIMEOUT | StatusCode::TOO_MANY_REQUESTS) {
            return Err(Failed::Retry(Unavailable::Status(status)));
        }
        let body = body_excerpt(response).await;
        Err(Failed::Stop(refusal(status, self.endpoint.token.is_some(), &body)))
    }

    /// Prints the stream's records until it ends, breaks or falls silent; and whether it
    /// worked (brought a new record, or stayed open for [`STEADY`]), else the last thing it
    /// sent that was not a record.
    async fn read(&mut self, response: Response) -> anyhow::Result<(StreamEnd, bool)> {
        let mut body = response.bytes_stream();
        let mut parser = SseParser::default();
        let opened = Instant::now();
        // Every chunk counts as a sign of life, heartbeat comments included.
        let mut heard = opened;
        let mut worked = false;
        let mut rejected = None;
        let end = loop {
            match parser.next_event() {
                Ok(Some(event)) => {
                    match self.show(&event)? {
                        Shown::Printed if !worked => {
                            worked = true;
                            self.working();
                        }
                        Shown::Printed | Shown::Again => {}
                        Shown::Rejected(why) => rejected = Some(why),
                    }
                    continue;
                }
                Ok(None) => {}
                Err(problem) => break StreamEnd::Broken(problem.to_string()),
            }
            // What has already arrived is taken without a timer; only before waiting on
            // the network are the gathered lines written out.
            let next = match body.next().now_or_never() {
                Some(next) => Ok(next),
                None => {
                    self.output.flush()?;
                    let silent_at = heard + SILENCE_LIMIT;
                    let deadline = if worked { silent_at } else { silent_at.min(opened + STEADY) };
                    tokio::time::timeout_at(deadline, body.next()).await
                }
            };
            match next {
                Err(_) if !worked && Instant::now() < heard + SILENCE_LIMIT => {
                    worked = true;
                    self.working();
                }
                Err(_) => break StreamEnd::Silent,
                Ok(None) => break StreamEnd::Finished,
                Ok(Some(Err(error))) => break StreamEnd::Broken(root_cause(&error)),
                Ok(Some(Ok(bytes))) => {
                    heard = Instant::now();
                    parser.push(&bytes);
                }
            }
        };
        self.output.flush()?;
        let end = match (worked, rejected) {
            (false, Some(why)) => StreamEnd::Broken(why),
            _ => end,
        };
        Ok((end, worked))
    }

    /// Prints a record unless it was printed before this reconnection.
    fn show(&mut self, event: &SseEvent) -> anyhow::Result<Shown> {
        if event.data.is_empty() {
            return Ok(Shown::Rejected("the server sent an event with no record".to_owned()));
        }
        match LogRecord::from_event(&event.id, &event.data) {
            Ok(record) if self.resume.admits(Some(record.cursor)) => {
                self.output.print(&record)?;
                self.resume.printed(Some(record.cursor));
                Ok(Shown::Printed)
            }
            Ok(_) => Ok(Shown::Again),
            Err(why) => {
                let shown = crate::text::uri::without_credentials(&why);
                self.output.printer.stderr(&format!("warning: {shown} (id {}); skipped\n", escape(&event.id)));
                Ok(Shown::Rejected(why))
            }
        }
    }
}

fn is_event_stream(response: &Response) -> bool {
    let content_type = response.headers().get(CONTENT_TYPE).and_then(|value| value.to_str().ok()).unwrap_or_default();
    content_type.trim_start().to_ascii_lowercase().starts_with("text/event-stream")
}

/// What to tell the user about a status that more tries will not change.
fn refusal(status: StatusCode, sent_token: bool, body: &str) -> Stop {
    match status {
        StatusCode::UNAUTHORIZED if sent_token => Stop::failure(
            "the token was refused: check --token / AGENT_SDK_TOKEN, or restart `agent-sdk dev` and use its dev.json",
        ),
        StatusCode::UNAUTHORIZED => Stop::failure(
            "the server wants a token and none was given: pass --token or set AGENT_SDK_TOKEN (a local `agent-sdk dev` writes one to .agent-sdk/dev.json)",
        ),
        StatusCode::FORBIDDEN => Stop::failure(
            "the server refused access to its logs (403 Forbidden): check that --token / AGENT_SDK_TOKEN is a token for this server",
        ),
        StatusCode::NOT_FOUND => Stop::failure("this server has no /v1/logs endpoint: is --host an agent-sdk server?"),
        StatusCode::BAD_REQUEST => Stop::usage(format!("the server refused the request: {body}")),
        _ if status.is_redirection() => {
            Stop::failure(format!("the server answered {status} (a redirect, not followed): check --host"))
        }
        _ => Stop::failure(format!("the server answered {status}: {body}")),
    }
}

/// The start of an error response's body, on one line, for a message. At most
/// [`ERROR_BODY_BYTES`] are read, within [`ANSWER_TIMEOUT`]: a server that sends an
/// endless body gets its first words quoted, not our memory or our time.
async fn body_excerpt(response: Response) -> String {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    let deadline = Instant::now() + ANSWER_TIMEOUT;
    while body.len() < ERROR_BODY_BYTES {
        match tokio::time::timeout_at(deadline, chunks.next()).await {
            Ok(Some(Ok(chunk))) => body.extend_from_slice(&chunk[..chunk.len().min(ERROR_BODY_BYTES - body.len())]),
            _ => break,
        }
    }
    let text = String::from_utf8_lossy(&body);
    // An agent-sdk server explains itself as `{"error": "…"}`; anything else is quoted.
    let explained = serde_json::from_str::<serde_json::Value>(&text)
        .ok()
        .and_then(|value| value.get("error").and_then(serde_json::Value::as_str).map(str::to_owned));
    let text = explained.unwrap_or_else(|| text.into_owned());
    let one_line: String = text.split_whitespace().collect::<Vec<_>>().join(" ");
    let excerpt: String = one_line.chars().filter(|c| !c.is_control()).take(BODY_EXCERPT_CHARS).collect();
    if excerpt.is_empty() { "(no details)".to_owned() } else { excerpt }
}

/// A refused connection (no server on that port) or some other reason the server cannot
/// be reached, said in the operating system's words.
fn unavailable(error: &reqwest::Error) -> Unavailable {
    let mut cause: Option<&(dyn Error + 'static)> = Some(error);
    while let Some(current) = cause {
        let refused = current
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::ConnectionRefused);
        if refused {
            return Unavailable::Refused;
        }
        cause = current.source();
    }
    Unavailable::Unreachable(root_cause(error))
}

/// The innermost cause: the most specific words, and never the request URL.
pub(crate) fn root_cause(error: &(dyn Error + 'static)) -> String {
    let mut innermost = error;
    while let Some(source) = innermost.source() {
        innermost = source;
    }
    innermost.to_string()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exit_status::ExitStatus;

    #[test]
    fn refusals_say_what_to_do() {
        let stop = refusal(StatusCode::UNAUTHORIZED, true, "");
        assert_eq!(stop.status, ExitStatus::Failure);
        assert_eq!(
            stop.message,
            "the token was refused: check --token / AGENT_SDK_TOKEN, or restart `agent-sdk dev` and use its dev.json"
        );
        assert!(refusal(StatusCode::UNAUTHORIZED, false, "").message.contains("none was given"));
        assert!(refusal(StatusCode::FORBIDDEN, true, "").message.contains("403"));
        assert_eq!(
            refusal(StatusCode::NOT_FOUND, true, "").message,
            "this server has no /v1/logs endpoint: is --host an agent-sdk server?"
        );
        let bad = refusal(StatusCode::BAD_REQUEST, true, "bad since");
        assert_eq!(
            (bad.status, bad.message.as_str()),
            (ExitStatus::Error, "the server refused the request: bad since")
        );
        assert!(refusal(StatusCode::MOVED_PERMANENTLY, true, "").message.contains("redirect"));
    }

    #[test]
    fn a_silent_stream_is_reported_with_the_limit() {
        assert_eq!(StreamEnd::Silent.reason(), "nothing heard for 45 s");
    }
}
