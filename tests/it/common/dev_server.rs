//! A real `agent-sdk dev` on loopback for the tests that talk to one: started on a
//! project (a fixture's copy), found through its `dev.json` (url and token), waited for
//! until it answers, stopped with a signal, and killed if a test panics first.

use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

/// A running `agent-sdk dev`, killed (SIGKILL) when dropped.
pub struct DevServer {
    pub child: Child,
    /// `http://127.0.0.1:<port>`, from its `dev.json`.
    pub url: String,
    /// The bearer token of its `dev.json`.
    pub token: String,
}

impl DevServer {
    /// `agent-sdk dev --dir . --port <port> --hook-timeout 5s` in `dir`, ready.
    pub fn start(dir: &Path, port: u16) -> Self {
        Self::start_with(dir, port, &["--hook-timeout", "5s"])
    }

    /// `agent-sdk dev --dir . --port <port> <args>` in `dir`, its serve log in
    /// `dir/dev-<port>.log` and the hooks' record in `dir/record.txt`; returned once its
    /// `dev.json` is written (a new one when `port` is fixed: a restart on the same port
    /// must not be taken for the old server) and it answers with the token it names.
    pub fn start_with(dir: &Path, port: u16, args: &[&str]) -> Self {
        let dev_file = dir.join(".agent-sdk/dev.json");
        let before = std::fs::read_to_string(&dev_file).ok();
        let child = crate::common::agent_sdk()
            .args(["dev", "--dir", ".", "--port", &port.to_string()])
            .args(args)
            .current_dir(dir)
            .env("AGENT_SDK_TEST_RECORD", dir.join("record.txt"))
            .stdout(Stdio::null())
            .stderr(Stdio::from(std::fs::File::create(dir.join(format!("dev-{port}.log"))).unwrap()))
            .spawn()
            .unwrap();
        // Killed by its Drop if it never gets ready.
        let mut server = DevServer { child, url: String::new(), token: String::new() };
        let started = Instant::now();
        loop {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "dev did not start: {}",
                std::fs::read_to_string(dir.join(format!("dev-{port}.log"))).unwrap_or_default()
            );
            let text = std::fs::read_to_string(&dev_file).ok();
            if let Some(text) = text.filter(|text| port != 0 || Some(text) != before.as_ref()) {
                let file: Value = serde_json::from_str(&text).unwrap_or_default();
                server.url = file["url"].as_str().unwrap_or_default().to_owned();
                server.token = file["token"].as_str().unwrap_or_default().to_owned();
                if server.answers() {
                    return server;
                }
            }
            std::thread::sleep(Duration::from_millis(20));
        }
    }

    /// A server started by the test itself (e.g. [`dev_command`]), once its dev.json has a
    /// token other than `old_token` and it answers (dev.json is written as soon as it listens).
    pub fn adopt(child: Child, dir: &Path, old_token: &str) -> Self {
        let mut server = DevServer { child, url: String::new(), token: String::new() };
        let started = Instant::now();
        loop {
            assert!(started.elapsed() < Duration::from_secs(30), "dev did not start");
            let file: Value =
                serde_json::from_str(&std::fs::read_to_string(dir.join(".agent-sdk/dev.json")).unwrap_or_default())
                    .unwrap_or_default();
            let token = file["token"].as_str().unwrap_or_default();
            if !token.is_empty() && token != old_token {
                server.url = file["url"].as_str().unwrap_or_default().to_owned();
                server.token = token.to_owned();
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        while !server.answers() {
            assert!(started.elapsed() < Duration::from_secs(30), "dev did not answer");
            std::thread::sleep(Duration::from_millis(20));
        }
        server
    }

    /// Whether it answers `GET /v1/logs?tail=0` with its token.
    fn answers(&self) -> bool {
        !self.url.is_empty() && self.get("/v1/logs?tail=0").is_ok_and(|response| response.status() == 200)
    }

    /// `127.0.0.1:<port>`.
    pub fn address(&self) -> String {
        self.url.trim_start_matches("http://").to_owned()
    }

    pub fn get(&self, path: &str) -> reqwest::Result<reqwest::blocking::Response> {
        reqwest::blocking::Client::new().get(format!("{}{path}", self.url)).bearer_auth(&self.token).send()
    }

    pub fn post(&self, path: &str, body: &Value) -> reqwest::Result<reqwest::blocking::Response> {
        reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap()
            .post(format!("{}{path}", self.url))
            .bearer_auth(&self.token)
            .json(body)
            .send()
    }

    /// `POST /v1/sessions`: the new session's id.
    pub fn create_session(&self) -> String {
        let response = reqwest::blocking::Client::new()
            .post(format!("{}/v1/sessions", self.url))
            .bearer_auth(&self.token)
            .send()
            .unwrap();
        assert_eq!(response.status(), 201);
        response.json::<Value>().unwrap()["id"].as_str().unwrap().to_owned()
    }

    /// `POST /v1/sessions` with `description` as its JSON body: the new session's id.
    pub fn create_described(&self, description: Value) -> String {
        let response = self.post("/v1/sessions", &description).unwrap();
        assert_eq!(response.status(), 201, "{description}");
        response.json::<Value>().unwrap()["id"].as_str().unwrap().to_owned()
    }

    /// Sends a message; the response streams the turn's events, unread.
    pub fn send_streaming(&self, session: &str, text: &str) -> reqwest::blocking::Response {
        reqwest::blocking::Client::new()
            .post(format!("{}/v1/sessions/{session}/messages", self.url))
            .bearer_auth(&self.token)
            .json(&serde_json::json!({ "text": text }))
            .send()
            .unwrap()
    }

    /// Sends a message and reads the turn's SSE stream to its end: the recorded envelopes.
    pub fn send(&self, session: &str, text: &str) -> Vec<Value> {
        let response = reqwest::blocking::Client::builder()
            .timeout(Duration::from_secs(60))
            .build()
            .unwrap()
            .post(format!("{}/v1/sessions/{session}/messages", self.url))
            .bearer_auth(&self.token)
            .json(&serde_json::json!({ "text": text }))
            .send()
            .unwrap();
        assert_eq!(response.status(), 200);
        sse_data(&response.text().unwrap())
    }

    /// Sends a message body as given (text, script) and reads the turn's events.
    pub fn send_body(&self, session: &str, body: Value) -> Vec<Value> {
        let response = self.post(&format!("/v1/sessions/{session}/messages"), &body).unwrap();
        assert_eq!(response.status(), 200, "{body}");
        sse_data(&response.text().unwrap())
    }

    /// [`DevServer::send`], then waits for the turn's serve-log line, which comes once its
    /// hooks are done (after its stream ended): the log then holds all the turn says.
    pub fn send_settled(&self, session: &str, text: &str) -> Vec<Value> {
        let events = self.send(session, text);
        let turn = events[0]["turnId"].clone();
        let started = Instant::now();
        while !self.logs("").iter().any(|record| {
            record["turnId"] == turn && record["message"].as_str().is_some_and(|message| message.starts_with("turn "))
        }) {
            assert!(started.elapsed() < Duration::from_secs(20), "the turn's line never came");
            std::thread::sleep(Duration::from_millis(20));
        }
        events
    }

    /// The serve log's history as records.
    pub fn logs(&self, query: &str) -> Vec<Value> {
        sse_data(&self.get(&format!("/v1/logs{query}")).unwrap().text().unwrap())
    }

    /// Sends it `signal` (as `kill` takes it: `-TERM`, `-INT`, …).
    pub fn signal(&self, signal: &str) {
        Command::new("kill").args([signal, &self.child.id().to_string()]).status().unwrap();
    }

    /// Stops it with SIGTERM, as a user's Ctrl-C or a supervisor would: its exit code.
    pub fn stop(self) -> Option<i32> {
        self.signal("-TERM");
        self.wait()
    }

    /// Kills it (SIGKILL) and reaps it.
    pub fn kill(self) {
        drop(self);
    }

    /// Waits for it to end: its exit code.
    pub fn wait(mut self) -> Option<i32> {
        let status = self.child.wait().unwrap();
        std::mem::forget(self);
        status.code()
    }

    /// Its exit code; panics (and kills it) if it is still running after `limit`.
    pub fn exits_within(mut self, limit: Duration) -> Option<i32> {
        let started = Instant::now();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                std::mem::forget(self);
                return status.code();
            }
            assert!(started.elapsed() < limit, "still running {limit:?} after it was told to stop");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
}

impl Drop for DevServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// `agent-sdk dev --port 0 <args>` in `dir`, its serve log in `dir/dev.log`, for a test
/// that sets more up before it starts it (then [`DevServer::adopt`]).
pub fn dev_command(dir: &Path, args: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_agent-sdk"));
    command.args(["dev", "--port", "0"]).args(args);
    in_project(command, dir)
}

/// `command` run in `dir` as [`dev_command`] runs it.
pub fn in_project(mut command: Command, dir: &Path) -> Command {
    command
        .current_dir(dir)
        .env("AGENT_SDK_TEST_RECORD", dir.join("record.txt"))
        // The same serve log on every Node, as `common::agent_sdk` has it.
        .env(super::NO_NODE_WARNING, "1")
        .stdout(Stdio::null())
        .stderr(Stdio::from(std::fs::File::create(dir.join("dev.log")).unwrap()));
    command
}

/// The `data:` lines of an SSE stream, as JSON.
pub fn sse_data(text: &str) -> Vec<Value> {
    text.lines()
        .filter_map(|line| line.strip_prefix("data: "))
        .map(|data| serde_json::from_str(data).unwrap())
        .collect()
}
