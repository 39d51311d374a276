//! `agent-sdk chat`: talk to the agent a `dev` server (or a hosted agent) serves, over the
//! hosting API, as any client of it would: `POST /v1/session` for each turn (the
//! continuation token of the last answer kept in `.agent-sdk/chat.json`, so `--session`
//! continues a session later), the turn's events from its `traceUrl`, and its hooks'
//! outcome from the serve log (`/v1/logs` of the session, until the turn's own line says
//! its hooks are done).

use std::collections::BTreeMap;
use std::io::{BufRead, IsTerminal};
use std::path::Path;
use std::time::Duration;

use anyhow::Context;
use futures_util::StreamExt;
use reqwest::header::{ACCEPT, AUTHORIZATION};
use serde_json::{Value, json};

use crate::cli::ChatArgs;
use crate::commands::logs::Stop;
use crate::commands::logs::connect::{Endpoint, Given, check_transport, dev_json_path, discover, read_dev_json};
use crate::commands::logs::follow::root_cause;
use crate::commands::logs::print::{LogRecord, human_line};
use crate::exit_status::{Exit, ExitStatus};
use crate::http::sse::SseParser;
use crate::http::trust::Trust;
use crate::printer::Printer;
use crate::state::StateRoot;
use crate::text::untrusted::escape;

/// How long one request may take to be answered (a turn is answered once it is recorded).
const TURN_TIMEOUT: Duration = Duration::from_secs(600);

/// One turn with `--message`, else a turn per line of stdin until its end.
pub fn chat(args: &ChatArgs, printer: &Printer) -> anyhow::Result<ExitStatus> {
    let flags = Given { host: args.url.clone(), token: args.token.clone() };
    let env = Given { host: std::env::var("AGENT_SDK_HOST").ok(), token: std::env::var("AGENT_SDK_TOKEN").ok() };
    let endpoint = discover(&flags, &env, || read_dev_json(&dev_json_path(&args.dir.dir)))
        .and_then(|endpoint| check_transport(&endpoint, args.insecure).map(|()| endpoint))
        .map_err(|stop| Exit {
            status: ExitStatus::Error,
            message: crate::text::uri::without_credentials(&stop.message),
        })?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("could not start the async runtime")?;
    let mut chat = Chat::new(args, printer, endpoint)?;
    if let Some(message) = &args.message {
        return runtime.block_on(chat.turn(message));
    }
    let at_a_terminal = std::io::stdin().is_terminal() && std::io::stderr().is_terminal();
    if at_a_terminal {
        printer.stderr(&format!(
            "talking to {} (a turn per line; Ctrl-C leaves a turn's wait, Ctrl-D ends)\n",
            chat.endpoint.display_host()
        ));
    }
    let mut input = if at_a_terminal { Input::editor()? } else { Input::lines() };
    runtime.block_on(async {
        // One listener for the whole chat: a Ctrl-C between two waits is not lost.
        let mut interrupts = crate::platform::signals::Interrupts::listen().context("could not listen for Ctrl-C")?;
        let mut status = ExitStatus::Success;
        loop {
            let line = tokio::select! {
                line = input.next() => line,
                _ = interrupts.recv() => return Ok(crate::signals::Stop::CTRL_C.exit_status()),
            };
            let line = match line {
                Line::Text(line) => line,
                Line::End => return Ok(status),
                // Ctrl-C at the prompt (the line editor reads it as a key).
                Line::Interrupted => return Ok(crate::signals::Stop::CTRL_C.exit_status()),
                Line::Failed(problem) => return Err(anyhow::Error::new(problem).context("could not read stdin")),
            };
            if line.trim().is_empty() {
                continue;
            }
            // Ctrl-C gives up waiting for this turn (the server still finishes it), not the chat.
            status = tokio::select! {
                status = chat.turn(&line) => status?,
                _ = interrupts.recv() => {
                    printer.stderr("\n(stopped waiting: the server finishes the turn, which stays in the session)\n");
                    crate::signals::Stop::CTRL_C.exit_status()
                }
            };
        }
    })
}

/// A line of input, or why there is none.
enum Line {
    Text(String),
    /// The end of input (Ctrl-D at the prompt).
    End,
    /// Ctrl-C at the prompt.
    Interrupted,
    Failed(std::io::Error),
}

/// Where the chat's lines come from, read on a thread of their own (so that Ctrl-C is heard
/// while a turn is waited for): at a terminal, a line editor (arrows, history of this chat,
/// Ctrl-A/E, …) that reads a line only when the prompt is shown (the terminal is its own
/// between prompts, so Ctrl-C is a signal there); else stdin, a line at a time.
struct Input {
    /// Asks the reader for the next line (the editor only reads when asked).
    ask: Option<std::sync::mpsc::Sender<()>>,
    lines: tokio::sync::mpsc::Receiver<Line>,
}

impl Input {
    fn lines() -> Self {
        let (sender, lines) = tokio::sync::mpsc::channel(1);
        std::thread::spawn(move || {
            for line in std::io::stdin().lock().lines() {
                let line = line.map_or_else(Line::Failed, Line::Text);
                if sender.blocking_send(line).is_err() {
                    return;
                }
            }
            let _ = sender.blocking_send(Line::End);
        });
        Self { ask: None, lines }
    }

    fn editor() -> anyhow::Result<Self> {
        let mut editor = rustyline::DefaultEditor::new().context("could not set up the terminal's line editor")?;
        let (ask, asked) = std::sync::mpsc::channel::<()>();
        let (sender, lines) = tokio::sync::mpsc::channel(1);
        std::thread::spawn(move || {
            for () in asked {
                let line = match editor.readline("> ") {
                    Ok(line) => {
                        if !line.trim().is_empty() {
                            let _ = editor.add_history_entry(line.as_str());
                        }
                        Line::Text(line)
                    }
                    Err(rustyline::error::ReadlineError::Eof) => Line::End,
                    Err(rustyline::error::ReadlineError::Interrupted) => Line::Interrupted,
                    Err(rustyline::error::ReadlineError::Io(problem)) => Line::Failed(problem),
                    Err(problem) => Line::Failed(std::io::Error::other(problem.to_string())),
                };
                if sender.blocking_send(line).is_err() {
                    return;
                }
            }
        });
        Ok(Self { ask: Some(ask), lines })
    }

    async fn next(&mut self) -> Line {
        if let Some(ask) = &self.ask
            && ask.send(()).is_err()
        {
            return Line::End;
        }
        self.lines.recv().await.unwrap_or(Line::End)
    }
}

/// One conversation: where, as whom, and the session it continues.
struct Chat<'a> {
    args: &'a ChatArgs,
    printer: &'a Printer,
    endpoint: Endpoint,
    client: reqwest::Client,
    /// The CAs the client trusts, and what to say when they do not cover the server's.
    trust: Trust,
    /// The session and its continuation token, once there is one.
    session: Option<(String, String)>,
    kept: ChatFile,
}

impl<'a> Chat<'a> {
    fn new(args: &'a ChatArgs, printer: &'a Printer, endpoint: Endpoint) -> anyhow::Result<Self> {
        let kept = ChatFile::read(&args.dir.dir);
        let session = match &args.session {
            None => None,
            Some(id) => match kept.token(&endpoint.display_host(), id) {
                Some(token) => Some((id.clone(), token)),
                None => {
                    return Err(Exit::usage(format!(
                        "no continuation token for session {id} from {} in .agent-sdk/chat.json: `chat --session` continues the sessions chat started here",
                        endpoint.display_host()
                    ))
                    .into());
                }
            },
        };
        let trust = Trust::for_url(endpoint.host.as_str(), &|name| std::env::var(name).ok())?;
        let client = trust.client().connect_timeout(Duration::from_secs(10)).build()?;
        Ok(Self { args, printer, endpoint, client, trust, session, kept })
    }

    fn url(&self, path: &str) -> anyhow::Result<reqwest::Url> {
        let mut base = self.endpoint.host.clone();
        if !base.path().ends_with('/') {
            let path = format!("{}/", base.path());
            base.set_path(&path);
        }
        Ok(base.join(path)?)
    }

    fn authorized(&self, request: reqwest::RequestBuilder) -> Result<reqwest::RequestBuilder, Stop> {
        Ok(match &self.endpoint.token {
            Some(token) => request.header(AUTHORIZATION, token.header_value()?),
            None => request,
        })
    }

    /// One turn: sent, its reply printed, its hooks' lines said; its exit status.
    async fn turn(&mut self, message: &str) -> anyhow::Result<ExitStatus> {
        let mut body = json!({ "message": message });
        if let Some((_, token)) = &self.session {
            body["continuationToken"] = json!(token);
        }
        let request = self.authorized(self.client.post(self.url("v1/session")?).json(&body).timeout(TURN_TIMEOUT))?;
        let response = request.send().await.map_err(|problem| self.unreachable(&problem))?;
        let status = response.status();
        let answer: Value = match read_at_most(response, MAX_ANSWER_BYTES).await {
            Ok(body) => serde_json::from_slice(&body).unwrap_or(Value::Null),
            Err(problem) => anyhow::bail!("the server's answer to the message: {problem}"),
        };
        if answer["ok"] != true {
            let code = answer["error"].as_str().unwrap_or("error");
            let said = answer["message"].as_str().unwrap_or_else(|| status.canonical_reason().unwrap_or("refused"));
            self.printer
                .stderr(&format!("error: the agent refused the message ({status}, {code}): {}\n", escape(said)));
            return Ok(ExitStatus::Failure);
        }
        let (Some(session_id), Some(token), Some(trace_url)) =
            (answer["sessionId"].as_str(), answer["continuationToken"].as_str(), answer["traceUrl"].as_str())
        else {
            anyhow::bail!("the server's answer has no sessionId, continuationToken or traceUrl: {answer}");
        };
        let session_id = session_id.to_owned();
        self.session = Some((session_id.clone(), token.to_owned()));
        self.kept.keep(&self.endpoint.display_host(), &session_id, token);
        self.kept.write(&self.args.dir.dir);

        let events = self.turn_events(trace_url).await?;
        let failed = events.iter().find(|event| event["type"] == "turn.failed");
        if self.args.json {
            let lines: String = events.iter().map(|event| format!("{event}\n")).collect();
            self.printer.stdout(&lines)?;
        } else {
            self.printer.stdout(&format!("{}\n", reply(&events)))?;
        }
        if let Some(failed) = failed {
            let why = failed["data"]["message"].as_str().unwrap_or("no reason given");
            self.printer.stderr(&format!("turn failed: {}\n", escape(why)));
        }
        let turn_id = events.last().and_then(|event| event["turnId"].as_str()).map(str::to_owned);
        let misbehaved = match turn_id {
            Some(turn_id) => self.hooks_outcome(&session_id, &turn_id).await,
            None => false,
        };
        Ok(if failed.is_some() {
            ExitStatus::Failure
        } else if misbehaved {
            ExitStatus::HooksMisbehaved
        } else {
            ExitStatus::Success
        })
    }

    fn unreachable(&self, problem: &reqwest::Error) -> anyhow::Error {
        let host = self.endpoint.display_host();
        let message = match self.trust.untrusted(problem) {
            Some(why) => format!("could not reach {host}: {why}"),
            None => format!(
                "could not reach {host}: {}; is the server running? (`{} dev` starts one here; --url names another)",
                root_cause(problem),
                crate::process::invocation::command()
            ),
        };
        Exit { status: ExitStatus::Error, message: crate::text::uri::without_credentials(&message) }.into()
    }

    /// The events of the session's last turn (the one just answered), from its trace.
    async fn turn_events(&self, trace_url: &str) -> anyhow::Result<Vec<Value>> {
        let url = reqwest::Url::parse(trace_url).context("the server's traceUrl is not a URL")?;
        let response = self.authorized(self.client.get(url).timeout(TURN_TIMEOUT))?.send().await;
        let response = response.map_err(|problem| self.unreachable(&problem))?;
        let body = read_at_most(response, MAX_TRACE_BYTES).await.context("the session's trace")?;
        let text = String::from_utf8_lossy(&body);
        let events: Vec<Value> = text.lines().filter_map(|line| serde_json::from_str(line).ok()).collect();
        let last_turn = events
            .iter()
            .rev()
            .find(|event| event["type"] == "message.received")
            .and_then(|event| event["turnId"].as_str())
            .map(str::to_owned);
        Ok(events.into_iter().filter(|event| event["turnId"].as_str() == last_turn.as_deref()).collect())
    }

    /// Says the turn's serve-log lines on stderr until the one that ends it (its hooks
    /// done), or `--hooks-for` passes; whether a hook misbehaved (that line is a warning).
    /// A server with no serve log to read says nothing.
    async fn hooks_outcome(&self, session_id: &str, turn_id: &str) -> bool {
        let Ok(url) = self.url(&format!("v1/logs?session={session_id}&follow=true")) else { return false };
        let Ok(request) = self.authorized(self.client.get(url).header(ACCEPT, "text/event-stream")) else {
            return false;
        };
        let follow = async {
            let response = request.send().await.ok().filter(|response| response.status().is_success())?;
            let mut parser = SseParser::default();
            let mut body = response.bytes_stream();
            let zone = jiff::tz::TimeZone::system();
            while let Some(Ok(bytes)) = body.next().await {
                parser.push(&bytes);
                while let Ok(Some(event)) = parser.next_event() {
                    let Ok(record) = LogRecord::from_event(&event.id, &event.data) else { continue };
                    if record.fields.get("turnId").and_then(Value::as_str) != Some(turn_id) {
                        continue;
                    }
                    self.printer.stderr(&human_line(&record, false, Some(&zone)));
                    let message = record.fields.get("message").and_then(Value::as_str).unwrap_or("");
                    if message.starts_with("turn completed in ") || message.starts_with("turn failed in ") {
                        return Some(record.fields.get("level").and_then(Value::as_str) != Some("info"));
                    }
                }
            }
            None
        };
        tokio::time::timeout(self.args.hooks_for, follow).await.ok().flatten().unwrap_or(false)
    }
}

/// The most of an answer to a message that is read (it is a few ids).
const MAX_ANSWER_BYTES: usize = 1 << 20;
/// The most of a session's trace that is read: a server that streams more (or forever) is
/// not followed into the machine's memory.
const MAX_TRACE_BYTES: usize = 256 << 20;

/// A response's body, refused once it grows past `limit` bytes.
async fn read_at_most(response: reqwest::Response, limit: usize) -> anyhow::Result<Vec<u8>> {
    let mut body = Vec::new();
    let mut chunks = response.bytes_stream();
    while let Some(chunk) = chunks.next().await {
        body.extend_from_slice(&chunk.context("the connection broke")?);
        if body.len() > limit {
            anyhow::bail!("it is over {} MiB, more than a chat reads", limit >> 20);
        }
    }
    Ok(body)
}

/// The turn's reply: its completed message, else what was streamed of it.
fn reply(events: &[Value]) -> String {
    if let Some(completed) = events.iter().find(|event| event["type"] == "message.completed") {
        return completed["data"]["text"].as_str().unwrap_or("").to_owned();
    }
    events
        .iter()
        .filter(|event| event["type"] == "message.appended")
        .filter_map(|event| event["data"]["delta"].as_str())
        .collect()
}

/// `.agent-sdk/chat.json`: each server's sessions and their current continuation tokens.
#[derive(Default)]
struct ChatFile {
    servers: BTreeMap<String, BTreeMap<String, String>>,
}

impl ChatFile {
    /// What is kept; nothing when there is no file, or one that is not this.
    fn read(dir: &Path) -> Self {
        let text = std::fs::read_to_string(StateRoot::of(dir).chat_file()).unwrap_or_default();
        Self { servers: serde_json::from_str(&text).unwrap_or_default() }
    }

    fn token(&self, server: &str, session_id: &str) -> Option<String> {
        self.servers.get(server)?.get(session_id).cloned()
    }

    fn keep(&mut self, server: &str, session_id: &str, token: &str) {
        self.servers.entry(server.to_owned()).or_default().insert(session_id.to_owned(), token.to_owned());
    }

    /// Written (mode 0600: the tokens continue the sessions) when the state root can be
    /// made; a chat goes on without it otherwise.
    fn write(&self, dir: &Path) {
        use std::io::Write;
        let Ok(root) = StateRoot::create(dir) else { return };
        let Ok(text) = serde_json::to_string_pretty(&self.servers) else { return };
        let file = crate::platform::files::private(std::fs::OpenOptions::new().write(true).create(true).truncate(true))
            .open(root.chat_file());
        if let Ok(mut file) = file {
            let _ = file.write_all(text.as_bytes());
        }
    }
}
