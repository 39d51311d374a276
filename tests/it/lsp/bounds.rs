//! What the language server bounds and refuses, spoken to over its pipes: a quick fix is
//! never answered from diagnostics of an older text (and names the version it is for when
//! the client takes versions), a frame over the 64 MiB it reads is skipped, a client that
//! stops reading gets only each file's newest diagnostics when it reads again, and an
//! unsaved hook over 1 MiB is refused as `validate` refuses the file.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::{Value, json};

use super::{CLEAN_HOOK, Client, TYPO_HOOK, codes, project, uri};
use crate::common::agent_sdk;

/// The diagnostics published for `path` at `version`.
fn diagnostics_at(client: &mut Client, path: &Path, version: i64) -> Vec<Value> {
    let file = uri(path);
    let message = client.wait_for(|message| {
        message["method"] == "textDocument/publishDiagnostics"
            && message["params"]["uri"] == file
            && message["params"]["version"] == version
    });
    message["params"]["diagnostics"].as_array().unwrap().clone()
}

/// A frame claiming more than the 64 MiB the server reads is read to its end and thrown
/// away (here a whole request, which is not answered); the client's log says so, and the
/// server answers the next message.
#[test]
fn a_frame_over_64_mib_is_skipped_and_logged_and_the_next_one_is_answered() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    let mut client = Client::start(&[&dir]);
    let length = 64 * 1024 * 1024 + 1;
    let hover = |id: i64| {
        let position = json!({ "textDocument": { "uri": uri(&dir.join("bot/hooks/a.ts")) }, "position": { "line": 0, "character": 0 } });
        json!({ "jsonrpc": "2.0", "id": id, "method": "textDocument/hover", "params": position })
    };
    let request = hover(4242).to_string();
    let mut body = request.into_bytes();
    body.resize(length, b' ');
    write!(client.stdin, "Content-Length: {length}\r\n\r\n").unwrap();
    client.stdin.write_all(&body).unwrap();
    client.send(&hover(4243));
    let answered = client.wait_for(|message| message["id"] == 4243);
    assert_eq!(answered["result"], Value::Null, "{answered:#}");
    // Sent before the hover was even read, so already here.
    assert!(!client.unread.iter().any(|message| message["id"] == 4242), "{:#?}", client.unread);
    let logged = client.unread.iter().find(|message| message["method"] == "window/logMessage");
    assert_eq!(
        logged.map(|message| &message["params"]["message"]),
        Some(&json!(format!("agent-sdk lsp: skipped a message of {length} bytes, over the 64 MiB the server reads")))
    );
    assert_eq!(client.shut_down(), Some(0));
}

/// A `Content-Length` too big to hold (the largest 64-bit number; 100 GB) neither panics
/// the reader ("capacity overflow") nor aborts the process: the body is skipped as it
/// arrives, here until the input ends, and the server exits as at any end of input.
#[test]
fn a_content_length_too_big_to_hold_neither_panics_nor_aborts_the_server() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    for length in ["18446744073709551615", "100000000000"] {
        let mut child = agent_sdk()
            .args(["lsp", "--stdio"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .unwrap();
        let mut stdin = child.stdin.take().unwrap();
        let frame = |message: Value| {
            let body = message.to_string();
            format!("Content-Length: {}\r\n\r\n{body}", body.len())
        };
        let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "processId": null, "rootUri": uri(&dir), "capabilities": {} } });
        let initialized = json!({ "jsonrpc": "2.0", "method": "initialized", "params": {} });
        write!(stdin, "{}{}Content-Length: {length}\r\n\r\n{{}}", frame(initialize), frame(initialized)).unwrap();
        drop(stdin);
        let ran = child.wait_with_output().unwrap();
        let stderr = String::from_utf8_lossy(&ran.stderr);
        assert_eq!(
            (ran.status.code(), stderr.trim_end()),
            (
                Some(0),
                &*format!("agent-sdk lsp: skipped a message of {length} bytes, over the 64 MiB the server reads")
            ),
            "Content-Length: {length}"
        );
    }
}

/// A hook with `keys` misspelt event keys, each `"turn.complete<n><tag>"`: its diagnostics
/// run to hundreds of kilobytes, more than a pipe holds.
fn many_typos(keys: usize, tag: &str) -> String {
    let handlers: String = (0..keys).map(|key| format!("    \"turn.complete{key}{tag}\"() {{}},\n")).collect();
    CLEAN_HOOK.replace("    \"turn.completed\"() {},\n", &handlers)
}

/// A client that stops reading while edits go on: the server is held up writing the first
/// diagnostics (bigger than the pipe), and keeps only the newest of the file's later ones,
/// which is all the client gets when it reads again: not one list per edit.
#[test]
fn a_client_that_stops_reading_gets_only_the_newest_diagnostics_of_a_file_when_it_reads_again() {
    const KEYS: usize = 600;
    const LAST: i64 = 12;
    let (_temp, dir) = project(&[("bot/hooks/a.ts", &many_typos(KEYS, "a"))]);
    let hook = dir.join("bot/hooks/a.ts");
    let mut client = Client::start_not_reading(&[&dir], json!({}));
    client.open(&hook);
    for version in 2..=LAST {
        // Paced so that each version is checked and published on its own (the debounce is
        // 100 ms); nothing is read meanwhile.
        std::thread::sleep(Duration::from_millis(300));
        client.change(&hook, version as i32, &many_typos(KEYS, &format!("v{version}")));
    }
    // Time for the last version's check before reading: a wait, not an assertion.
    std::thread::sleep(Duration::from_secs(3));
    client.read_from_now_on();
    let last = diagnostics_at(&mut client, &hook, LAST);
    assert_eq!(last.len(), KEYS);
    assert!(last[0]["message"].as_str().unwrap().contains(&format!("v{LAST}")), "{:#}", last[0]);
    let file = uri(&hook);
    let versions: Vec<&Value> = client
        .unread
        .iter()
        .filter(|message| message["method"] == "textDocument/publishDiagnostics" && message["params"]["uri"] == file)
        .map(|message| &message["params"]["version"])
        .collect();
    // The first diagnostics published (version 1, unless an edit overtook its check), which
    // the server was writing when the pipe filled, and then the last version's: none of the
    // versions typed over in between (an unbounded queue delivers all 11). On a machine so
    // loaded that the last checks outlast the wait, one or two newer ones may come between,
    // as the client reads again while they finish: still not one list per edit.
    assert!(versions.len() <= 3, "{versions:?}, then version {LAST}");
}

/// The byte offset of LSP position `position` (UTF-16 units) in `text`.
fn offset(text: &str, position: &Value) -> usize {
    let line = position["line"].as_u64().unwrap() as usize;
    let character = position["character"].as_u64().unwrap() as usize;
    let line_start: usize = text.split_inclusive('\n').take(line).map(str::len).sum();
    let mut units = 0;
    for (at, c) in text[line_start..].char_indices() {
        if units >= character || c == '\n' {
            return line_start + at;
        }
        units += c.len_utf16();
    }
    text.len()
}

/// `text` with `edits` (LSP `TextEdit`s, not overlapping) applied.
fn apply(text: &str, edits: &[Value]) -> String {
    let mut edits: Vec<(usize, usize, &str)> = edits
        .iter()
        .map(|edit| {
            let (start, end) = (offset(text, &edit["range"]["start"]), offset(text, &edit["range"]["end"]));
            (start, end, edit["newText"].as_str().unwrap())
        })
        .collect();
    edits.sort_by_key(|&(start, _, _)| std::cmp::Reverse(start));
    let mut text = text.to_owned();
    for (start, end, new_text) in edits {
        text.replace_range(start..end, new_text);
    }
    text
}

/// The edits of `file` in a code action's workspace edit, in either form, with the version
/// each names (`None` for `changes`, which name none).
fn edits_of(action: &Value, file: &str) -> (Vec<Value>, Option<Value>) {
    let edit = &action["edit"];
    if let Some(changes) = edit["documentChanges"].as_array() {
        let change = changes.iter().find(|change| change["textDocument"]["uri"] == file).unwrap();
        return (change["edits"].as_array().unwrap().clone(), Some(change["textDocument"]["version"].clone()));
    }
    (edit["changes"][file].as_array().unwrap().clone(), None)
}

fn code_actions(client: &mut Client, hook: &Path, diagnostic: &Value) -> Vec<Value> {
    let params = json!({
        "textDocument": { "uri": uri(hook) },
        "range": diagnostic["range"],
        "context": { "diagnostics": [diagnostic] },
    });
    client.request("textDocument/codeAction", params).as_array().unwrap().clone()
}

/// `TYPO_HOOK` with a line added above the misspelt key: its old range now points at
/// `  events: {`.
fn typo_hook_one_line_down() -> String {
    TYPO_HOOK.replace("  events: {\n", "  // moved down a line\n  events: {\n")
}

/// Code actions asked right after an edit, before it is checked, are never those of the
/// text before it: their ranges would cut the new text (`  events: {` became
/// `  ev"turn.completed"`). Once the edit is checked, its own actions are answered.
#[test]
fn a_quick_fix_asked_before_an_edit_is_checked_never_cuts_the_new_text() {
    let (_temp, dir) = project(&[("bot/hooks/typo.ts", TYPO_HOOK)]);
    let hook = dir.join("bot/hooks/typo.ts");
    let file = uri(&hook);
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    let before = diagnostics_at(&mut client, &hook, 1);
    let edited = typo_hook_one_line_down();
    client.change(&hook, 2, &edited);
    // Asked at once: the check of version 2 waits for the typing to pause.
    let asked_early = code_actions(&mut client, &hook, &before[0]);
    let fixed = edited.replace("\"turn.complete\"", "\"turn.completed\"");
    let silenced = edited.replace("    /* 🎉", "    // agent-sdk-ignore hooks::unknown-event\n    /* 🎉");
    for action in &asked_early {
        let result = apply(&edited, &edits_of(action, &file).0);
        assert!(result == fixed || result == silenced, "{action:#}\nmade:\n{result}");
    }
    let after = diagnostics_at(&mut client, &hook, 2);
    let actions = code_actions(&mut client, &hook, &after[0]);
    let made: Vec<String> = actions.iter().map(|action| apply(&edited, &edits_of(action, &file).0)).collect();
    assert_eq!(made, [fixed, silenced]);
}

/// A client that takes versioned edits (`workspace.workspaceEdit.documentChanges`) gets
/// them, naming the version that was checked, so that it refuses an action whose document
/// changed since; `changes` are not sent beside them.
#[test]
fn code_actions_name_the_version_they_are_for_when_the_client_takes_versions() {
    let (_temp, dir) = project(&[("bot/hooks/typo.ts", TYPO_HOOK)]);
    let hook = dir.join("bot/hooks/typo.ts");
    let file = uri(&hook);
    let capabilities = json!({ "workspace": { "workspaceEdit": { "documentChanges": true } } });
    let mut client = Client::start_not_reading(&[&dir], capabilities);
    client.read_from_now_on();
    client.open(&hook);
    for version in [1, 2] {
        if version == 2 {
            client.change(&hook, 2, &typo_hook_one_line_down());
        }
        let found = diagnostics_at(&mut client, &hook, version);
        let actions = code_actions(&mut client, &hook, &found[0]);
        assert_eq!(actions.len(), 2, "{actions:#?}");
        for action in &actions {
            assert_eq!(action["edit"].get("changes"), None, "{action:#}");
            assert_eq!(edits_of(action, &file).1, Some(json!(version)), "{action:#}");
        }
    }
}

/// An unsaved hook over 1 MiB is refused as `validate` refuses the file: the same
/// `hooks::unreadable` error with the same message, not a check of its text.
#[test]
fn an_unsaved_hook_over_1_mib_is_refused_as_validate_refuses_the_file() {
    let (_temp, dir) = project(&[("bot/hooks/a.ts", CLEAN_HOOK)]);
    let hook = dir.join("bot/hooks/a.ts");
    let big = format!("{}// {}\n", TYPO_HOOK, "x".repeat(1024 * 1024));
    let mut client = Client::start(&[&dir]);
    client.open(&hook);
    client.change(&hook, 2, &big);
    let found = diagnostics_at(&mut client, &hook, 2);
    assert_eq!(codes(&found), ["hooks::unreadable"], "{found:#?}");
    assert_eq!(found[0]["severity"], 1);
    std::fs::write(&hook, &big).unwrap();
    let validated = Command::new(env!("CARGO_BIN_EXE_agent-sdk"))
        .args(["validate", "--format", "json"])
        .arg(&dir)
        .output()
        .unwrap();
    let validated: Value = serde_json::from_slice(&validated.stdout).unwrap();
    let by_validate = &validated["diagnostics"][0];
    assert_eq!(by_validate["code"], "hooks::unreadable");
    let message =
        format!("{}\nhelp: {}", by_validate["message"].as_str().unwrap(), by_validate["help"].as_str().unwrap());
    assert_eq!(found[0]["message"], json!(message));
    assert!(message.starts_with("cannot be read: it is 1.0 MiB, over the 1 MiB limit for a hook module"), "{message}");
}
