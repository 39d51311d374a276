//! `agent-sdk lsp` spoken to as an editor does: JSON-RPC over the real binary's pipes
//! (diagnostics of unsaved buffers in UTF-16 ranges, what an edit of a helper re-checks,
//! completion, hover, go to definition, code actions, several projects, a bad message), and
//! Neovim driving it headless (`lsp/neovim.lua`). What the server bounds and refuses (stale
//! fixes, oversized frames, a client that stops reading, a hook over 1 MiB) is in `bounds`; the
//! VS Code extension, packaged and loaded against a fake editor, in `vscode`.

mod bounds;
mod vscode;

use std::io::{BufRead, BufReader, Write};
use std::path::{Path, PathBuf};
use std::process::{Child, ChildStdin, ChildStdout, Command, Stdio};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::common::{agent_sdk, files_of};

/// How long a test waits for the server's answer before failing.
const WAIT: Duration = Duration::from_secs(30);

/// An `agent-sdk lsp` process and the messages it sent that no one has taken yet.
struct Client {
    child: Child,
    stdin: ChildStdin,
    incoming: Receiver<Value>,
    unread: Vec<Value>,
    next_id: i64,
    /// The server's stdout while no thread reads it (see [`Client::start_not_reading`]).
    not_read: Option<(BufReader<ChildStdout>, Sender<Value>)>,
}

impl Client {
    /// Starts the server and initializes it with `roots` as the workspace folders.
    fn start(roots: &[&Path]) -> Self {
        Self::start_with(roots, Value::Null, &[])
    }

    /// [`Client::start`] with the initialization options `options`, the server started with
    /// the variables `env` too.
    fn start_with(roots: &[&Path], options: Value, env: &[(&str, &Path)]) -> Self {
        let capabilities = json!({ "workspace": { "didChangeWatchedFiles": { "dynamicRegistration": true } } });
        let mut client = Self::start_not_reading_with(roots, capabilities, options, env);
        client.read_from_now_on();
        client
    }

    /// Starts the server and initializes it as a client with `capabilities`, reading its
    /// stdout only for the answer to `initialize`: what it sends after that waits in the pipe
    /// (and then in the server) until [`Client::read_from_now_on`].
    fn start_not_reading(roots: &[&Path], capabilities: Value) -> Self {
        Self::start_not_reading_with(roots, capabilities, Value::Null, &[])
    }

    /// [`Client::start_not_reading`] with the initialization options `options` and the
    /// variables `env`.
    fn start_not_reading_with(roots: &[&Path], capabilities: Value, options: Value, env: &[(&str, &Path)]) -> Self {
        let mut child = agent_sdk()
            .args(["lsp", "--stdio"])
            .envs(env.iter().copied())
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let stdin = child.stdin.take().unwrap();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, incoming) = std::sync::mpsc::channel();
        let not_read = Some((stdout, sender));
        let mut client = Self { child, stdin, incoming, unread: Vec::new(), next_id: 1, not_read };
        let folders: Vec<Value> = roots
            .iter()
            .map(|root| json!({ "uri": uri(root), "name": root.file_name().unwrap().to_string_lossy() }))
            .collect();
        let params = json!({
            "processId": null,
            "rootUri": roots.first().map(|root| uri(root)),
            "workspaceFolders": folders,
            "capabilities": capabilities,
            "initializationOptions": options,
        });
        client.send(&json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params }));
        let (stdout, _) = client.not_read.as_mut().unwrap();
        let result = loop {
            let message = read_frame(stdout).expect("the server answers initialize");
            if message["id"] == 0 && message.get("method").is_none() {
                break message["result"].clone();
            }
            client.unread.push(message);
        };
        assert_eq!(result["serverInfo"]["name"], "agent-sdk");
        client.notify("initialized", json!({}));
        client
    }

    /// Reads what the server sent and sends, on a thread, into [`Client::wait_for`]'s reach.
    fn read_from_now_on(&mut self) {
        let Some((mut stdout, sender)) = self.not_read.take() else { return };
        std::thread::spawn(move || {
            while let Some(message) = read_frame(&mut stdout) {
                if sender.send(message).is_err() {
                    return;
                }
            }
        });
    }

    fn send(&mut self, message: &Value) {
        let body = message.to_string();
        write!(self.stdin, "Content-Length: {}\r\n\r\n{body}", body.len()).unwrap();
        self.stdin.flush().unwrap();
    }

    fn notify(&mut self, method: &str, params: Value) {
        self.send(&json!({ "jsonrpc": "2.0", "method": method, "params": params }));
    }

    /// Sends a request and waits for its result (a response error fails the test).
    fn request(&mut self, method: &str, params: Value) -> Value {
        let id = self.next_id;
        self.next_id += 1;
        self.send(&json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
        let response = self.wait_for(|message| message["id"] == id && message.get("method").is_none());
        assert!(response.get("error").is_none(), "{method}: {response}");
        response["result"].clone()
    }

    /// The first message (unread, or arriving within [`WAIT`]) that `wanted` accepts.
    fn wait_for(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        self.try_wait_for(WAIT, &wanted).unwrap_or_else(|| panic!("no such message; unread: {:#?}", self.unread))
    }

    fn try_wait_for(&mut self, within: Duration, wanted: &impl Fn(&Value) -> bool) -> Option<Value> {
        if let Some(at) = self.unread.iter().position(wanted) {
            return Some(self.unread.remove(at));
        }
        let deadline = Instant::now() + within;
        loop {
            match self.incoming.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
                Ok(message) if wanted(&message) => return Some(message),
                Ok(message) => self.unread.push(message),
                Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => return None,
            }
        }
    }

    /// The next diagnostics published for `path` that `wanted` accepts.
    fn diagnostics(&mut self, path: &Path, wanted: impl Fn(&[Value]) -> bool) -> Vec<Value> {
        let uri = uri(path);
        let message = self.wait_for(|message| {
            message["method"] == "textDocument/publishDiagnostics"
                && message["params"]["uri"] == uri
                && wanted(message["params"]["diagnostics"].as_array().unwrap())
        });
        message["params"]["diagnostics"].as_array().unwrap().clone()
    }

    fn open(&mut self, path: &Path) {
        let text = std::fs::read_to_string(path).unwrap();
        self.notify(
            "textDocument/didOpen",
            json!({ "textDocument": { "uri": uri(path), "languageId": "typescript", "version": 1, "text": text } }),
        );
    }

    fn change(&mut self, path: &Path, version: i32, text: &str) {
        self.notify(
            "textDocument/didChange",
            json!({ "textDocument": { "uri": uri(path), "version": version }, "contentChanges": [{ "text": text }] }),
        );
    }

    /// `shutdown`, `exit`, and the process's exit code.
    fn shut_down(mut self) -> Option<i32> {
        self.request("shutdown", Value::Null);
        self.notify("exit", Value::Null);
        wait_exit(&mut self.child)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn wait_exit(child: &mut Child) -> Option<i32> {
    let deadline = Instant::now() + WAIT;
    while Instant::now() < deadline {
        if let Some(status) = child.try_wait().unwrap() {
            return status.code();
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    None
}

fn read_frame(reader: &mut impl BufRead) -> Option<Value> {
    let mut length = 0;
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).ok()? == 0 {
            return None;
        }
        let line = line.trim_end();
        if line.is_empty() {
            break;
        }
        if let Some(value) = line.strip_prefix("Content-Length: ") {
            length = value.parse().ok()?;
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).ok()?;
    serde_json::from_slice(&body).ok()
}

fn uri(path: &Path) -> String {
    format!("file://{}", agent_sdk::text::uri::encode_path(&path.to_string_lossy()))
}

/// A project in a fresh folder with `files` (path, text), and its folder (links resolved).
fn project(files: &[(&str, &str)]) -> (tempfile::TempDir, PathBuf) {
    let temp = tempfile::tempdir().unwrap();
    let dir = temp.path().canonicalize().unwrap();
    write_files(&dir, files);
    (temp, dir)
}

fn write_files(dir: &Path, files: &[(&str, &str)]) {
    for (path, text) in files {
        let path = dir.join(path);
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, text).unwrap();
    }
}

fn codes(diagnostics: &[Value]) -> Vec<&str> {
    diagnostics.iter().map(|diagnostic| diagnostic["code"].as_str().unwrap()).collect()
}

/// A hook whose second key is misspelt, after emoji on the same line.
const TYPO_HOOK: &str = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({\n  events: {\n    /* 🎉🎉 */ \"turn.complete\"() {},\n  },\n});\n";
const CLEAN_HOOK: &str = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({\n  events: {\n    \"turn.completed\"() {},\n  },\n});\n";

#[test]
fn diagnostics_of_an_opened_hook_have_utf16_ranges_and_follow_unsaved_edits() {
    let (_temp, dir) = project(&[("bot/hooks/typo.ts", TYPO_HOOK)]);
    let hook = dir.join("bot/hooks/typo.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let found = client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["hooks::unknown-event"]);
    let diagnostic = &found[0];
    // An error, as `validate` fails on it.
    assert_eq!(diagnostic["severity"], 1);
    assert_eq!(diagnostic["source"], "agent-sdk");
    // `    /* 🎉🎉 */ ` is 13 characters and 15 UTF-16 units; the key with its quotes is 15.
    assert_eq!(
        diagnostic["range"],
        json!({ "start": { "line": 3, "character": 15 }, "end": { "line": 3, "character": 30 } })
    );
    let message = diagnostic["message"].as_str().unwrap();
    assert!(message.contains("turn.complete") && message.contains("\nhelp: "), "{message}");

    // The unsaved buffer is checked, not the file.
    client.change(&hook, 2, CLEAN_HOOK);
    let found = client.diagnostics(&hook, <[Value]>::is_empty);
    assert!(found.is_empty());
    client.change(&hook, 3, &TYPO_HOOK.replace("\"turn.complete\"", "\"turn.fail\"() {},\n    \"message.recieved\""));
    let found = client.diagnostics(&hook, |diagnostics| diagnostics.len() == 2);
    assert_eq!(codes(&found), ["hooks::unknown-event", "hooks::unknown-event"]);
    assert_eq!(std::fs::read_to_string(&hook).unwrap(), TYPO_HOOK);
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn an_unsaved_edit_of_a_helper_re_checks_the_hooks_importing_it() {
    let helper = "export const label = \"usage\";\n";
    let hook = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { label } from \"../lib/label\";\nexport default defineHook({\n  events: {\n    \"turn.completed\"() { console.log(label); },\n  },\n});\n";
    let (_temp, dir) = project(&[
        ("package.json", "{ \"type\": \"module\" }"),
        ("bot/lib/label.ts", helper),
        ("bot/hooks/usage.ts", hook),
    ]);
    let (hook, helper_path) = (dir.join("bot/hooks/usage.ts"), dir.join("bot/lib/label.ts"));
    let mut client = Client::start(&[&dir]);
    client.open(&helper_path);
    client.open(&hook);
    // The project's first check: nothing wrong, so nothing is published yet; rename the export.
    std::thread::sleep(Duration::from_millis(500));
    client.change(&helper_path, 2, "export const title = \"usage\";\n");
    let found = client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["hooks::missing-export"]);
    assert_eq!(found[0]["range"]["start"]["line"], 1);
    client.change(&helper_path, 3, helper);
    client.diagnostics(&hook, <[Value]>::is_empty);
}

#[test]
fn event_keys_complete_and_hover_with_their_data() {
    let typing = CLEAN_HOOK.replace("    \"turn.completed\"() {},\n", "    \"turn.completed\"() {},\n    \"tu\n");
    let (_temp, dir) = project(&[("bot/hooks/a.ts", &typing)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let document = json!({ "uri": uri(&hook) });
    let items = client.request(
        "textDocument/completion",
        json!({ "textDocument": document, "position": { "line": 4, "character": 7 } }),
    );
    let labels: Vec<&str> = items.as_array().unwrap().iter().map(|item| item["label"].as_str().unwrap()).collect();
    assert!(
        labels.contains(&"turn.completed") && labels.contains(&"message.received") && labels.contains(&"*"),
        "{labels:?}"
    );
    let turn = items.as_array().unwrap().iter().find(|item| item["label"] == "turn.completed").unwrap();
    assert_eq!(turn["textEdit"]["newText"], "\"turn.completed\"");
    assert_eq!(
        turn["textEdit"]["range"],
        json!({ "start": { "line": 4, "character": 4 }, "end": { "line": 4, "character": 7 } })
    );
    // Not in a handler's body.
    let none = client.request(
        "textDocument/completion",
        json!({ "textDocument": document, "position": { "line": 3, "character": 25 } }),
    );
    assert_eq!(none, json!([]));

    let hover = client
        .request("textDocument/hover", json!({ "textDocument": document, "position": { "line": 3, "character": 8 } }));
    let shown = hover["contents"]["value"].as_str().unwrap();
    assert!(shown.contains("turn.completed") && shown.contains("data: {"), "{shown}");
    let nothing = client
        .request("textDocument/hover", json!({ "textDocument": document, "position": { "line": 0, "character": 10 } }));
    assert_eq!(nothing, Value::Null);
}

#[test]
fn disable_for_this_line_is_offered_for_a_warning_and_not_for_an_error() {
    let text = "import { defineHook } from \"@cursor/bdk/hooks\";\nimport { x } from \"./nowhere\";\nexport default defineHook({\n  events: {\n    \"turn.complete\"() { x(); },\n  },\n});\n";
    let (_temp, dir) = project(&[("bot/hooks/a.ts", text)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let found = client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["hooks::unresolved-import", "hooks::unknown-event"]);
    let document = json!({ "uri": uri(&hook) });
    let actions = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": document, "range": found[1]["range"], "context": { "diagnostics": [found[1]] } }),
    );
    let actions = actions.as_array().unwrap();
    assert_eq!(actions.len(), 2, "{actions:#?}");
    // The finding's own fix first, preferred (it is safe), then silencing it.
    assert_eq!(actions[0]["title"], "Replace with `turn.completed`");
    assert_eq!(actions[0]["isPreferred"], true);
    assert_eq!(
        actions[0]["edit"]["changes"][uri(&hook)],
        json!([{ "range": found[1]["range"], "newText": "\"turn.completed\"" }])
    );
    assert_eq!(actions[1]["title"], "Disable hooks::unknown-event for this line");
    assert_eq!(actions[1]["kind"], "quickfix");
    let edits = &actions[1]["edit"]["changes"][uri(&hook)];
    assert_eq!(
        edits,
        &json!([{ "range": { "start": { "line": 4, "character": 0 }, "end": { "line": 4, "character": 0 } }, "newText": "    // agent-sdk-ignore hooks::unknown-event\n" }])
    );
    let on_error = client.request(
        "textDocument/codeAction",
        json!({ "textDocument": document, "range": found[0]["range"], "context": { "diagnostics": [found[0]] } }),
    );
    assert_eq!(on_error, json!([]));
}

#[test]
fn go_to_definition_leads_from_disable_hook_to_the_extension_s_hook() {
    let copy = crate::common::copy_fixture("extensions", "esm-package");
    let dir = copy.path().canonicalize().unwrap();
    let mount = dir.join("bot/extensions/ci.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&mount);
    let text = std::fs::read_to_string(&mount).unwrap();
    let (line, line_text) = text.lines().enumerate().find(|(_, line)| line.contains("disableHook")).unwrap();
    let character = line_text.find("audit/usage").unwrap() + 2;
    let found = client.request(
        "textDocument/definition",
        json!({ "textDocument": { "uri": uri(&mount) }, "position": { "line": line, "character": character } }),
    );
    let extension = dir.join("node_modules/@acme/ci-triage/index.js");
    assert_eq!(found["uri"], uri(&extension));
    let extension_text = std::fs::read_to_string(&extension).unwrap();
    let key_line = extension_text.lines().position(|line| line.contains("\"audit/usage\": defineHook")).unwrap();
    assert_eq!(found["range"]["start"]["line"], key_line);
}

#[test]
fn several_projects_in_one_workspace_and_a_file_outside_them() {
    let (_temp, root) = project(&[
        ("apps/one/bot/hooks/a.ts", TYPO_HOOK),
        ("apps/two/agent/hooks/b.ts", &TYPO_HOOK.replace("turn.complete", "turn.fail")),
        ("scripts/bot-ish.ts", TYPO_HOOK),
    ]);
    let (one, two, outside) =
        (root.join("apps/one/bot/hooks/a.ts"), root.join("apps/two/agent/hooks/b.ts"), root.join("scripts/bot-ish.ts"));
    let mut client = Client::start(&[&root]);
    client.open(&outside);
    client.open(&one);
    client.open(&two);
    let found = client.diagnostics(&one, |diagnostics| !diagnostics.is_empty());
    assert!(found[0]["message"].as_str().unwrap().contains("turn.complete"));
    let found = client.diagnostics(&two, |diagnostics| !diagnostics.is_empty());
    assert!(found[0]["message"].as_str().unwrap().contains("turn.fail"));
    let uri_outside = uri(&outside);
    let published = |message: &Value| message["params"]["uri"] == uri_outside;
    assert_eq!(client.try_wait_for(Duration::from_millis(500), &published), None);
}

#[test]
fn a_malformed_message_is_skipped_and_the_server_answers_the_next() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    let mut client = Client::start(&[&dir]);
    let garbage = "{ not json";
    write!(client.stdin, "Content-Length: {}\r\n\r\n{garbage}", garbage.len()).unwrap();
    client.send(&json!({ "jsonrpc": "2.0", "method": "no/such-notification", "params": {} }));
    let hover = client.request(
        "textDocument/hover",
        json!({ "textDocument": { "uri": uri(&dir.join("bot/hooks/a.ts")) }, "position": { "line": 0, "character": 0 } }),
    );
    assert_eq!(hover, Value::Null);
    assert_eq!(client.shut_down(), Some(0));
}

#[test]
fn a_project_that_cannot_be_checked_is_shown_as_a_message_not_a_crash() {
    let copy = crate::common::copy_fixture("extensions", "esm-package");
    let dir = copy.path().canonicalize().unwrap();
    // The cache folder running a project's extensions needs cannot be made.
    let not_a_folder = dir.join("not-a-folder");
    std::fs::write(&not_a_folder, "a file").unwrap();
    let options = json!({ "runExtensions": true });
    let mut client = Client::start_with(&[&dir], options, &[("XDG_CACHE_HOME", &not_a_folder)]);
    client.open(&dir.join("bot/extensions/ci.ts"));
    let shown = client.wait_for(|message| message["method"] == "window/showMessage");
    assert_eq!(shown["params"]["type"], 1);
    assert!(shown["params"]["message"].as_str().unwrap().contains("could not check"), "{shown}");
    assert_eq!(client.shut_down(), Some(0));
}

/// Neovim as the client (`tests/neovim/lsp.lua`): an unsaved edit's warning arrives, and the
/// "disable for this line" action puts the comment above the line, indented as it is; told
/// that Neovim takes versioned edits, the server sends them, and Neovim applies them.
#[test]
fn neovim_shows_an_unsaved_edit_s_warning_and_applies_disable_for_this_line() {
    for versioned in [false, true] {
        let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
        let out = dir.join("neovim-out.json");
        let script = crate::common::root().join("tests/neovim/lsp.lua");
        let mut nvim = Command::new("nvim");
        nvim.args(["--headless", "-u", "NONE", "-n", "-c"])
            .arg(format!("luafile {}", script.display()))
            .env("AGENT_SDK", env!("CARGO_BIN_EXE_agent-sdk"))
            .env("PROJECT", &dir)
            .env("HOOK", dir.join("bot/hooks/a.ts"))
            .env("OUT", &out)
            .current_dir(&dir)
            .stdin(Stdio::null());
        if versioned {
            nvim.env("VERSIONED", "1");
        }
        let ran = nvim.output().expect("nvim runs (scripts/test-setup installs Neovim)");
        assert!(ran.status.success(), "{ran:?}");
        let out: Value = serde_json::from_str(&std::fs::read_to_string(&out).unwrap()).unwrap();
        assert_eq!(out["ok"], true, "{out:#}");
        assert_eq!(codes(out["diagnostics"].as_array().unwrap()), ["hooks::unknown-event"]);
        assert_eq!(out["diagnostics"][0]["range"]["start"], json!({ "line": 3, "character": 4 }));
        assert_eq!(
            out["action_titles"],
            json!(["Replace with `turn.completed`", "Disable hooks::unknown-event for this line"])
        );
        assert_eq!(out["edit_form"], if versioned { "documentChanges" } else { "changes" });
        assert_eq!(out["after_action"], json!([]));
        let lines: Vec<&str> = out["lines"].as_array().unwrap().iter().map(|line| line.as_str().unwrap()).collect();
        assert_eq!(lines[3..5], ["    // agent-sdk-ignore hooks::unknown-event", "    \"turn.complete\"() {},"]);
        // Unsaved: the file on disk is as it was.
        assert_eq!(out["modified"], true);
        assert_eq!(std::fs::read_to_string(dir.join("bot/hooks/a.ts")).unwrap(), CLEAN_HOOK);
    }
}

/// docs/editors.md's Neovim 0.7 snippet, as Neovim's whole configuration (the suite's Neovim
/// is 0.7): opening a hook with a typo'd event key starts the server for its project and
/// the finding arrives.
#[test]
fn the_docs_neovim_0_7_snippet_starts_the_server_for_a_hook() {
    let docs = std::fs::read_to_string(crate::common::root().join("docs/editors.md")).unwrap();
    let after = docs.split("Neovim 0.7 (no `vim.fs` yet").nth(1).expect("docs/editors.md has the 0.7 snippet");
    let snippet = after.split("```lua\n").nth(1).unwrap().split("```").next().unwrap();
    let text = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({\n  events: {\n    \"turn.complete\"() {},\n  },\n});\n";
    let (_temp, dir) = project(&[("bot/hooks/a.ts", text)]);
    // The snippet runs `agent-sdk` from PATH: the binary under test, first.
    let binary_dir = std::path::Path::new(env!("CARGO_BIN_EXE_agent-sdk")).parent().unwrap().to_path_buf();
    let path = std::env::join_paths(
        std::iter::once(binary_dir).chain(std::env::split_paths(&std::env::var_os("PATH").unwrap())),
    )
    .unwrap();
    let init = dir.join("init.lua");
    let out = dir.join("found.txt");
    std::fs::write(&init, snippet).unwrap();
    let check = format!(
        "lua vim.wait(20000, function() return #vim.diagnostic.get(0) > 0 end, 50); \
         local codes = {{}}; for _, d in ipairs(vim.diagnostic.get(0)) do table.insert(codes, tostring(d.code)) end; \
         local f = io.open([[{}]], 'w'); f:write(#vim.lsp.buf_get_clients(0) .. ' ' .. table.concat(codes, ',')); f:close()",
        out.display()
    );
    let ran = Command::new("nvim")
        .args(["--headless", "-n", "-u"])
        .arg(&init)
        .arg(dir.join("bot/hooks/a.ts"))
        .args(["-c", &check, "-c", "qa!"])
        .env("PATH", path)
        .current_dir(&dir)
        .stdin(Stdio::null())
        .output()
        .expect("nvim runs (scripts/test-setup installs Neovim)");
    assert!(ran.status.success(), "{ran:?}");
    assert_eq!(std::fs::read_to_string(&out).unwrap(), "1 hooks::unknown-event", "{ran:?}");
}

/// A config file changed on disk (`workspace/didChangeWatchedFiles`) re-checks its project:
/// `package.json`'s own findings are published on it, and cleared once it is fixed.
#[test]
fn a_changed_package_json_re_checks_the_project_and_its_findings_are_published_on_it() {
    let (_temp, dir) = project(&[("package.json", "{ \"name\": \"bot\" }\n"), ("bot/hooks/a.ts", CLEAN_HOOK)]);
    let manifest = dir.join("package.json");
    let mut client = Client::start(&[&dir]);
    client.open(&dir.join("bot/hooks/a.ts"));
    std::fs::write(&manifest, "{ \"name\": ").unwrap();
    let changed = json!({ "changes": [{ "uri": uri(&manifest), "type": 2 }] });
    client.notify("workspace/didChangeWatchedFiles", changed.clone());
    let found = client.diagnostics(&manifest, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["project::invalid-package-json"]);
    std::fs::write(&manifest, "{ \"name\": \"bot\" }\n").unwrap();
    client.notify("workspace/didChangeWatchedFiles", changed);
    client.diagnostics(&manifest, <[Value]>::is_empty);
}

/// Edits in quick succession are checked once, at the last version: nothing is published for
/// the versions typed over.
#[test]
fn quick_edits_are_checked_once_at_the_last_version() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    std::thread::sleep(Duration::from_millis(500));
    for version in 2..=6 {
        let key = format!("\"turn.complete{version}\"");
        client.change(&hook, version, &CLEAN_HOOK.replace("\"turn.completed\"", &key));
    }
    let last = client.wait_for(|message| {
        message["method"] == "textDocument/publishDiagnostics" && message["params"]["version"] == 6
    });
    assert!(last["params"]["diagnostics"][0]["message"].as_str().unwrap().contains("turn.complete6"), "{last}");
    let hook_uri = uri(&hook);
    let older = |message: &Value| {
        message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == hook_uri
            && message["params"]["version"].as_i64().is_some_and(|version| (2..6).contains(&version))
    };
    assert_eq!(client.try_wait_for(Duration::from_millis(500), &older), None);
}

/// Closing a document with unsaved edits makes the file on disk count again.
#[test]
fn closing_an_unsaved_document_re_checks_the_file_on_disk() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    client.change(&hook, 2, TYPO_HOOK);
    client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    client.notify("textDocument/didClose", json!({ "textDocument": { "uri": uri(&hook) } }));
    client.diagnostics(&hook, <[Value]>::is_empty);
}

/// What discovery found of a hook (two modules with one name) stays shown when an edit
/// re-checks the hook alone.
#[test]
fn a_name_clash_stays_shown_when_the_hook_is_edited() {
    let (_temp, dir) = project(&[("bot/hooks/a.js", CLEAN_HOOK), ("bot/hooks/a.ts", CLEAN_HOOK)]);
    let hook = dir.join("bot/hooks/a.js");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let found = client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["hooks::duplicate-name"]);
    client.change(&hook, 2, TYPO_HOOK);
    let found = client.diagnostics(&hook, |diagnostics| diagnostics.len() == 2);
    assert_eq!(codes(&found), ["hooks::duplicate-name", "hooks::unknown-event"]);
}

/// The editor reads the project's settings as `validate` does: a rule raised to an error is
/// an error on open and after an unsaved edit (the check of the edited hook alone), and a
/// rule turned off is never shown.
#[test]
fn the_settings_file_s_rule_levels_apply_in_the_editor() {
    let settings = "{ \"rules\": { \"unknown-event\": \"error\", \"dynamic-events\": \"off\" } }\n";
    let typo = CLEAN_HOOK.replace("turn.completed", "turn.complete");
    let (_temp, dir) = project(&[("bot/hooks/a.ts", &typo), ("agent-sdk.json", settings)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let found = client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!((codes(&found), &found[0]["severity"]), (vec!["hooks::unknown-event"], &json!(1)), "{found:#?}");
    // An unsaved edit is checked on its own: the levels still apply.
    let edited = typo.replace("turn.complete", "turn.fail").replace("  },\n", "    ...more,\n  },\n");
    client.change(&hook, 2, &edited);
    let found = client.diagnostics(&hook, |diagnostics| {
        diagnostics.iter().any(|d| d["message"].as_str().unwrap().contains("turn.fail"))
    });
    assert_eq!(codes(&found), ["hooks::unknown-event"], "{found:#?}");
    assert_eq!(found[0]["severity"], 1, "an error: {found:#?}");
}

/// The project of `fixtures/extensions/spy`, whose mount writes what it saw to
/// `$TMPDIR/spy.json`, in a fresh folder (links resolved), with its temporary and cache folders.
fn spy_project() -> (tempfile::TempDir, PathBuf, tempfile::TempDir, tempfile::TempDir) {
    let copy = crate::common::copy_fixture("extensions", "spy");
    let dir = copy.path().canonicalize().unwrap();
    (copy, dir, tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap())
}

#[test]
fn by_default_the_server_runs_no_code_and_says_so_at_each_mount() {
    let (_copy, dir, tmp, cache) = spy_project();
    let before = files_of(&dir);
    let mount = dir.join("bot/extensions/spy.ts");
    let mut client =
        Client::start_with(&[&dir], Value::Null, &[("TMPDIR", tmp.path()), ("XDG_CACHE_HOME", cache.path())]);
    client.open(&mount);
    let found = client.diagnostics(&mount, |diagnostics| !diagnostics.is_empty());
    assert_eq!(codes(&found), ["extensions::not-run"]);
    let message = found[0]["message"].as_str().unwrap();
    assert!(message.contains("runExtensions") && message.contains("agent-sdk validate"), "{message}");
    assert_eq!(client.shut_down(), Some(0));
    assert!(!tmp.path().join("spy.json").exists(), "the mount ran");
    assert_eq!(files_of(&dir), before, "the server wrote into the project");
    assert_eq!(files_of(cache.path()), Vec::<String>::new(), "the server wrote into the cache");
}

#[test]
fn with_run_extensions_the_mount_runs_as_validate_runs_it() {
    let (_copy, dir, tmp, cache) = spy_project();
    let before = files_of(&dir);
    let mount = dir.join("bot/extensions/spy.ts");
    let env = [("TMPDIR", tmp.path()), ("XDG_CACHE_HOME", cache.path()), ("GITHUB_TOKEN", Path::new("ghs_editor"))];
    let mut client = Client::start_with(&[&dir], json!({ "runExtensions": true }), &env);
    client.open(&mount);
    // A misspelt key makes the mount's file publish once its check (with the mount run) is done.
    let hook = dir.join("bot/hooks/usage.ts");
    client.open(&hook);
    let typo = std::fs::read_to_string(&hook).unwrap().replace("turn.completed", "turn.complete");
    client.change(&hook, 2, &typo);
    client.diagnostics(&hook, |diagnostics| !diagnostics.is_empty());
    assert_eq!(client.shut_down(), Some(0));
    let seen: Value = serde_json::from_str(&std::fs::read_to_string(tmp.path().join("spy.json")).unwrap()).unwrap();
    assert_eq!(seen["githubToken"], Value::Null, "the editor's environment reached the mount: {seen}");
    assert_eq!(files_of(&dir), before, "the server wrote into the project");
}

#[test]
fn a_project_outside_the_workspace_folders_or_in_node_modules_is_not_served() {
    let (_workspace, root) =
        project(&[("app/bot/hooks/a.ts", TYPO_HOOK), ("app/node_modules/some-agent/bot/hooks/b.ts", TYPO_HOOK)]);
    let (_elsewhere, outside) = project(&[("bot/hooks/c.ts", TYPO_HOOK)]);
    let app = root.join("app");
    let (inside, packaged, elsewhere) = (
        app.join("bot/hooks/a.ts"),
        app.join("node_modules/some-agent/bot/hooks/b.ts"),
        outside.join("bot/hooks/c.ts"),
    );
    let mut client = Client::start(&[&app]);
    client.open(&elsewhere);
    client.open(&packaged);
    client.open(&inside);
    client.diagnostics(&inside, |diagnostics| !diagnostics.is_empty());
    let not_served = [uri(&elsewhere), uri(&packaged)];
    let published = |message: &Value| not_served.iter().any(|uri| message["params"]["uri"] == *uri);
    assert_eq!(client.try_wait_for(Duration::from_millis(1000), &published), None);
    assert_eq!(client.shut_down(), Some(0));
}

/// Fix-on-save: asked for `source.fixAll.agent-sdk` (or `source`, or `source.fixAll`), one
/// action with every safe fix of the document; never among the quick fixes unasked.
#[test]
fn fix_all_applies_every_safe_fix_of_the_document_when_asked_for() {
    let text = "import { defineHook } from \"@cursor/bdk/hooks\";\nexport default defineHook({\n  events: {\n    \"turn.complete\"() {},\n    \"message.complete\"() {},\n  },\n});\n";
    let (_temp, dir) = project(&[("bot/hooks/a.ts", text)]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let found = client.diagnostics(&hook, |diagnostics| diagnostics.len() >= 2);
    assert_eq!(codes(&found), ["hooks::unknown-event", "hooks::unknown-event"]);
    let document = json!({ "uri": uri(&hook) });
    let whole = json!({ "start": { "line": 0, "character": 0 }, "end": { "line": 7, "character": 0 } });
    let ask = |client: &mut Client, only: Option<Value>| {
        let mut context = json!({ "diagnostics": [] });
        if let Some(only) = only {
            context["only"] = only;
        }
        client
            .request("textDocument/codeAction", json!({ "textDocument": document, "range": whole, "context": context }))
    };
    for only in [json!(["source.fixAll.agent-sdk"]), json!(["source.fixAll"]), json!(["source"])] {
        let actions = ask(&mut client, Some(only.clone()));
        let actions = actions.as_array().unwrap();
        assert_eq!(actions.len(), 1, "{only}: {actions:#?}");
        assert_eq!(actions[0]["kind"], "source.fixAll.agent-sdk");
        assert_eq!(actions[0]["title"], "Fix all safe agent-sdk findings (2 fixes)");
        let edits: Vec<&str> = actions[0]["edit"]["changes"][uri(&hook)]
            .as_array()
            .unwrap()
            .iter()
            .map(|edit| edit["newText"].as_str().unwrap())
            .collect();
        assert_eq!(edits, ["\"turn.completed\"", "\"message.completed\""]);
    }
    let unasked = ask(&mut client, None);
    assert!(unasked.as_array().unwrap().iter().all(|action| action["kind"] == "quickfix"), "{unasked:#?}");
    let quick_only = ask(&mut client, Some(json!(["quickfix"])));
    assert!(!quick_only.as_array().unwrap().is_empty());
    assert!(quick_only.as_array().unwrap().iter().all(|action| action["kind"] == "quickfix"));
}
