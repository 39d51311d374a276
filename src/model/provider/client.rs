//! The HTTP side of a turn: the provider's thread and client, one request per model step,
//! retries and timeouts, and every way a request can fail put in words for the user.

use std::future::Future;
use std::pin::Pin;
use std::sync::Arc;
use std::sync::atomic::Ordering;
use std::time::Duration;

use reqwest::header::{AUTHORIZATION, CONTENT_TYPE, HeaderMap, HeaderValue, RETRY_AFTER};
use reqwest::{Response, StatusCode};
use serde_json::Value;
use tokio::sync::oneshot;

use crate::model::ModelOutput;
use crate::model::provider::answer::{Received, read_body, read_stream};
use crate::model::provider::prices::{cost, price_of};
use crate::model::provider::request::{ChatMessage, Messages};
use crate::model::provider::scrub::KeyScrub;
use crate::model::provider::shared::{MAX_COMPLETION_BODY, Outputs, Shared, innermost_reason};
use crate::model::provider::stream::{Step, TurnUsage, shown};
use crate::state::log_record::Level;
use crate::time::clock::format_duration;

/// One turn's work, run on the provider's thread.
pub(crate) type Job = Pin<Box<dyn Future<Output = ()> + Send>>;

/// The longest Retry-After agent-sdk waits for.
const MAX_RETRY_AFTER: Duration = Duration::from_secs(60);
/// The first backoff between retries; it doubles each retry, up to [`MAX_BACKOFF`].
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(8);
/// The most of an error body read (a whole completion: [`MAX_COMPLETION_BODY`]).
const MAX_ERROR_BODY: usize = 64 * 1024;

/// Starts the provider's thread: one runtime, making `shared`'s client first and then
/// running each submitted turn as a task until the sender (the provider) is dropped; the
/// runtime, and with it every task still running, is then dropped on that thread, outside
/// any async context.
pub(crate) fn start_runner(shared: &Arc<Shared>) -> anyhow::Result<tokio::sync::mpsc::UnboundedSender<Job>> {
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|error| anyhow::anyhow!("could not start the model client's runtime: {error}"))?;
    let (jobs, mut submitted) = tokio::sync::mpsc::unbounded_channel::<Job>();
    let made = Arc::clone(shared);
    // A failure is said by the turn that needs the client.
    let _ = jobs.send(Box::pin(async move {
        let _ = made.client().await;
    }));
    std::thread::Builder::new()
        .name("agent-sdk-model".to_owned())
        .spawn(move || {
            runtime.block_on(async move {
                while let Some(job) = submitted.recv().await {
                    tokio::spawn(job);
                }
            });
        })
        .map_err(|error| anyhow::anyhow!("could not start the model client's thread: {error}"))?;
    Ok(jobs)
}

/// One turn, as a job for the provider's thread; it stops at once when `cancelled` fires
/// (the [`super::ProviderTurn`] was dropped), dropping the request and its connection.
pub(crate) fn turn_job(conversation: Vec<ChatMessage>, outputs: Outputs, cancelled: oneshot::Receiver<()>) -> Job {
    Box::pin(async move {
        tokio::select! {
            _ = cancelled => {}
            () = run_turn_in_time(&conversation, &outputs) => {}
        }
    })
}

/// [`run_turn`], failed once it has taken `--model-max-duration`.
async fn run_turn_in_time(conversation: &[ChatMessage], outputs: &Outputs) {
    let shared = &outputs.shared;
    let limit = shared.settings.max_duration;
    if tokio::time::timeout(limit, run_turn(shared, conversation, outputs)).await.is_err() {
        let took = format_duration(limit);
        let failure = format!("the model's answer took longer than {took} (--model-max-duration); gave up");
        outputs.send(ModelOutput::Failed(failure)).await;
    }
}

/// Every step of one turn, ending with exactly one `Completed` or `Failed`.
async fn run_turn(shared: &Shared, conversation: &[ChatMessage], outputs: &Outputs) {
    let mut messages = Messages::new(conversation);
    let mut usage = TurnUsage::default();
    let mut calls_made = 0;
    let mut received = Received::default();
    let max_steps = shared.settings.max_steps.max(1);
    for step_number in 1..=max_steps {
        let step = match run_step(shared, &messages, outputs, &mut received).await {
            Ok(step) => step,
            Err(message) => return outputs.send(ModelOutput::Failed(message)).await,
        };
        if let Some(step_usage) = step.usage() {
            usage.add(step_usage);
        }
        if !step.called_tools() {
            return completed(shared, usage, outputs).await;
        }
        let (made, calls) = step.tool_calls(calls_made);
        calls_made += calls.len();
        outputs.send(ModelOutput::Tools(calls)).await;
        if step_number == max_steps {
            let steps = if max_steps == 1 { "1 step" } else { &format!("{max_steps} steps") };
            let failure = format!("the model was still calling tools after {steps} (--max-steps {max_steps})");
            return outputs.send(ModelOutput::Failed(failure)).await;
        }
        messages.push_tool_step(step.text(), &made);
    }
}

/// The turn's end: its usage and cost, and a line (once per provider) for what is missing.
async fn completed(shared: &Shared, usage: TurnUsage, outputs: &Outputs) {
    if usage.to_json().is_none() && !shared.told_no_usage.swap(true, Ordering::Relaxed) {
        outputs.send(ModelOutput::Log(
            Level::Info,
            "the model server reported no usage (it ignores stream_options.include_usage): turn.completed has no usage"
                .to_owned(),
        ))
        .await;
    }
    let price = price_of(shared.kind, &shared.model);
    if price.is_none() && !shared.told_no_price.swap(true, Ordering::Relaxed) {
        outputs
            .send(ModelOutput::Log(
                Level::Info,
                format!(
                    "no price is known for `{}`: turn.completed has no cost (docs/models.md lists the priced models)",
                    crate::text::untrusted::escape(&shared.model)
                ),
            ))
            .await;
    }
    let cost = price.zip(usage.tokens()).map(|((entry, price), tokens)| cost(entry, price, tokens));
    outputs.send(ModelOutput::Completed { usage: usage.to_json(), cost }).await;
}

/// One request and its answer, read as it arrives.
async fn run_step(
    shared: &Shared,
    messages: &Messages,
    outputs: &Outputs,
    received: &mut Received,
) -> Result<Step, String> {
    let body = messages.request_body(&shared.model, &shared.settings.tools);
    let response = send_with_retries(shared, &body, outputs).await?;
    let content_type = response
        .headers()
        .get(CONTENT_TYPE)
        .and_then(|value| value.to_str().ok())
        .map(|value| value.split(';').next().unwrap_or_default().trim().to_ascii_lowercase());
    let mut step = match content_type.as_deref() {
        None | Some("text/event-stream") => read_stream(shared, response, outputs, received).await?,
        Some("application/json") => {
            let body = read_body(shared, response, MAX_COMPLETION_BODY).await?;
            received.count(body.len())?;
            let mut step = Step::new(shared.key_scrub.clone());
            for output in step.read_completion(&body)? {
                outputs.send(output).await;
            }
            step
        }
        Some(other) => {
            let body = read_body(shared, response, MAX_ERROR_BODY).await.unwrap_or_default();
            return Err(format!(
                "the model server answered with `{}`, not an event stream: {}",
                crate::text::untrusted::escape(other),
                shown(&shared.scrub(&body), 200)
            ));
        }
    };
    // The answer is whole: what was held back in case it began the key was not the key.
    for output in step.held_back() {
        outputs.send(output).await;
    }
    Ok(step)
}

/// How one attempt to send a request failed before any answer came.
enum SendFailure {
    Connect(String),
    /// The server's certificate was issued by no CA the client trusts (what to say of it):
    /// not retried, as another try meets the same certificate.
    Untrusted(String),
    Idle,
    Other(String),
}

/// Sends one step's request, retrying on 429, 5xx and failed connects before any answer was
/// read; the answer is returned once its status is a success.
async fn send_with_retries(shared: &Shared, body: &Value, outputs: &Outputs) -> Result<Response, String> {
    let retries = shared.settings.retries;
    let mut attempt: u32 = 0;
    loop {
        // After retries: what ended them, said as the retries running out or as an answer
        // that is not retried coming on a later attempt.
        let attempts = if attempt == 0 { String::new() } else { format!(" (gave up after {} attempts)", attempt + 1) };
        let on_attempt = if attempt == 0 { String::new() } else { format!(" (on attempt {})", attempt + 1) };
        let (problem, retry_after) = match send_once(shared, body).await {
            Ok(response) if response.status().is_success() => return Ok(response),
            Ok(response) => {
                let status = response.status();
                if !is_retried(status) {
                    return Err(format!("{}{on_attempt}", status_failure(shared, response).await));
                }
                if attempt == retries {
                    return Err(format!("{}{attempts}", status_failure(shared, response).await));
                }
                let retry_after = response
                    .headers()
                    .get(RETRY_AFTER)
                    .and_then(|value| value.to_str().ok())
                    .and_then(|value| parse_retry_after(value, jiff::Timestamp::now()));
                (format!("the model server answered {}", status_text(status)), retry_after)
            }
            Err(SendFailure::Connect(reason)) => {
                let problem = format!("could not connect to {}: {reason}", shared.endpoint.base_url);
                if attempt == retries {
                    return Err(format!("{problem}{attempts}"));
                }
                (problem, None)
            }
            Err(SendFailure::Untrusted(why)) => {
                return Err(format!("could not connect to {}: {why}", shared.endpoint.base_url));
            }
            Err(SendFailure::Idle) => return Err(shared.idle_failure(false)),
            Err(SendFailure::Other(reason)) => {
                return Err(format!("the request to the model server failed: {reason}{on_attempt}"));
            }
        };
        let (wait, why) = match retry_after {
            Some(wait) if wait > MAX_RETRY_AFTER => {
                return Err(format!(
                    "{problem} and asked to be retried in {} (Retry-After), longer than the {} agent-sdk waits; gave up",
                    format_duration(wait),
                    format_duration(MAX_RETRY_AFTER)
                ));
            }
            Some(wait) => (wait, ", as its Retry-After asked"),
            None => (backoff(attempt), ""),
        };
        attempt += 1;
        let line = format!("{problem}; retry {attempt} of {retries} in {}{why}", format_duration(wait));
        outputs.send(ModelOutput::Log(Level::Warn, line)).await;
        tokio::time::sleep(wait).await;
    }
}

/// One POST of the request, waiting at most the idle timeout for the answer's headers.
async fn send_once(shared: &Shared, body: &Value) -> Result<Response, SendFailure> {
    let client = shared.client().await.map_err(SendFailure::Other)?;
    let mut request = client.post(shared.endpoint.chat_completions.clone()).json(body);
    if let Some(key) = &shared.endpoint.key {
        // The key was checked to be visible ASCII when the provider connected.
        if let Ok(mut value) = HeaderValue::from_str(&format!("Bearer {key}")) {
            value.set_sensitive(true);
            request = request.header(AUTHORIZATION, value);
        }
    }
    match tokio::time::timeout(shared.settings.idle_timeout, request.send()).await {
        Err(_) => Err(SendFailure::Idle),
        Ok(Ok(response)) => Ok(response),
        Ok(Err(error)) if error.is_connect() && error.is_timeout() => Err(SendFailure::Connect(format!(
            "no connection within {} (--model-connect-timeout)",
            format_duration(shared.settings.connect_timeout)
        ))),
        Ok(Err(error)) if error.is_connect() => match shared.trust.untrusted(&error) {
            Some(why) => Err(SendFailure::Untrusted(why)),
            None => Err(SendFailure::Connect(innermost_reason(&error))),
        },
        Ok(Err(error)) => Err(SendFailure::Other(innermost_reason(&error))),
    }
}

fn is_retried(status: StatusCode) -> bool {
    matches!(status.as_u16(), 429 | 500 | 502 | 503 | 504)
}

/// `500 Internal Server Error`.
fn status_text(status: StatusCode) -> String {
    match status.canonical_reason() {
        Some(reason) => format!("{} {reason}", status.as_u16()),
        None => status.as_u16().to_string(),
    }
}

/// The failure an unsuccessful answer makes: its status, what its body says, and a hint.
async fn status_failure(shared: &Shared, response: Response) -> String {
    let status = response.status();
    let location = redirect_target(response.headers());
    let body = read_body(shared, response, MAX_ERROR_BODY).await.unwrap_or_default();
    let detail = error_detail(&body, &shared.key_scrub);
    let mut message = format!("the model server answered {}", status_text(status));
    if !detail.is_empty() {
        message.push_str(": ");
        message.push_str(&detail);
    }
    if status.is_redirection() {
        message.push_str(&format!(
            "; agent-sdk does not follow redirects (this one leads to {location}): give the final URL as --base-url"
        ));
    }
    if matches!(status, StatusCode::UNAUTHORIZED | StatusCode::FORBIDDEN) {
        let endpoint = &shared.endpoint;
        match endpoint.key {
            Some(_) => message.push_str(&format!(" (check the key in {})", endpoint.key_variable)),
            None => message.push_str(&format!(" (no key was sent: set {})", endpoint.key_variable)),
        }
    }
    message
}

fn redirect_target(headers: &HeaderMap) -> String {
    headers
        .get(reqwest::header::LOCATION)
        .and_then(|value| value.to_str().ok())
        .map_or_else(|| "an unnamed place".to_owned(), |location| format!("`{}`", shown(location, 200)))
}

/// `error.message` of a JSON error body, else the body's first 300 characters; escaped,
/// and without the key (looked for once the JSON is decoded).
fn error_detail(body: &str, key_scrub: &KeyScrub) -> String {
    let mut json: Option<Value> = serde_json::from_str(body).ok();
    if let Some(json) = &mut json {
        key_scrub.json(json);
    }
    let message = json.as_ref().and_then(|json| match &json["error"] {
        Value::String(message) => Some(message.clone()),
        error => error["message"].as_str().or_else(|| json["message"].as_str()).map(str::to_owned),
    });
    shown(message.unwrap_or_else(|| key_scrub.text(body)).trim(), 300)
}

/// The wait before retry `attempt + 1` when the server asked for none.
fn backoff(attempt: u32) -> Duration {
    FIRST_BACKOFF.saturating_mul(2u32.saturating_pow(attempt)).min(MAX_BACKOFF)
}

/// A `Retry-After` header: whole seconds, or an HTTP date (a date past is no wait).
pub fn parse_retry_after(value: &str, now: jiff::Timestamp) -> Option<Duration> {
    let value = value.trim();
    if let Ok(seconds) = value.parse::<u64>() {
        return Some(Duration::from_secs(seconds));
    }
    let date = jiff::fmt::rfc2822::parse(value).ok()?;
    Some(Duration::try_from(date.timestamp().duration_since(now)).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn retry_after_in_seconds_or_as_a_date() {
        let now: jiff::Timestamp = "2025-11-30T12:00:00Z".parse().unwrap();
        assert_eq!(parse_retry_after("2", now), Some(Duration::from_secs(2)));
        assert_eq!(parse_retry_after(" 120 ", now), Some(Duration::from_secs(120)));
        assert_eq!(parse_retry_after("Sun, 30 Nov 2025 12:00:05 GMT", now), Some(Duration::from_secs(5)));
        assert_eq!(parse_retry_after("Sun, 30 Nov 2025 11:00:00 GMT", now), Some(Duration::ZERO));
        assert_eq!(parse_retry_after("soon", now), None);
        assert_eq!(parse_retry_after("-1", now), None);
    }

    #[test]
    fn backoff_doubles_up_to_eight_seconds() {
        let waits: Vec<String> = (0..6).map(|attempt| format_duration(backoff(attempt))).collect();
        assert_eq!(waits, ["500ms", "1s", "2s", "4s", "8s", "8s"]);
        assert_eq!(backoff(100), MAX_BACKOFF);
        assert_eq!(format_duration(Duration::from_millis(1500)), "1.5s");
    }

    #[test]
    fn error_bodies_give_their_message_or_their_start() {
        let error_detail = |body: &str| error_detail(body, &KeyScrub::new(Some("sk-1")));
        assert_eq!(error_detail(r#"{"error":{"message":"Rate limit\nreached"}}"#), "Rate limit\\nreached");
        assert_eq!(error_detail(r#"{"error":"model not found"}"#), "model not found");
        assert_eq!(error_detail(r#"{"message":"bad gateway"}"#), "bad gateway");
        assert_eq!(error_detail("<html>\u{1b}[2J</html>"), "<html>\\u{1b}[2J</html>");
        assert_eq!(error_detail(&"y".repeat(1000)).len(), 300 + '…'.len_utf8());
        assert_eq!(error_detail(""), "");
        assert_eq!(error_detail(r#"{"error":{"message":"bad key sk-\u0031"}}"#), "bad key [redacted]");
        assert_eq!(error_detail("<p>bad key sk-1</p>"), "<p>bad key [redacted]</p>");
    }
}
