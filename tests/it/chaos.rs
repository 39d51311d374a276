//! Chaos: `run --replay` and `dev` killed with SIGKILL at many points (seeded, bounded), one
//! session throughout. After every kill the store is whole (SQLite's integrity check), the
//! session's indexes have no gap, and every event the hooks never saw is reported by the
//! next process to take the session, and redelivered exactly by `--redeliver`.

use crate::common;

use std::path::Path;
use std::process::{Child, Stdio};
use std::time::Duration;

use crate::common::dev_server::DevServer;
use crate::common::store::open as store;
use crate::common::{copy_fixture, exit_code, run_recorded};

/// Kills per part: enough to land in start-up, recording and dispatch, bounded in time.
const KILLS: u64 = 8;

/// A small deterministic generator (xorshift), so a failure can be replayed.
struct Chaos(u64);

impl Chaos {
    fn below(&mut self, bound: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % bound
    }
}

/// The store is whole and the session's indexes run 0, 1, 2, … with no gap. Returns how many.
fn assert_whole(dir: &Path, session: &str, when: &str) -> u64 {
    let store = store(dir);
    let integrity: String = store.query_row("PRAGMA integrity_check", [], |row| row.get(0)).unwrap();
    assert_eq!(integrity, "ok", "{when}");
    let mut query = store.prepare("SELECT idx FROM events WHERE session_id = ?1 ORDER BY idx").unwrap();
    let indexes: Vec<u64> = query.query_map([session], |row| row.get(0)).unwrap().map(Result::unwrap).collect();
    for (expected, index) in indexes.iter().enumerate() {
        assert_eq!(*index, expected as u64, "indexes have a gap {when}");
    }
    indexes.len() as u64
}

/// The events of `session` its hooks have not seen: past the dispatched cursor, or set aside.
fn never_seen(dir: &Path, session: &str) -> Vec<u64> {
    let store = store(dir);
    let mut query = store
        .prepare(
            "SELECT idx FROM events e WHERE session_id = ?1 AND (
                 idx > COALESCE((SELECT through FROM dispatched d WHERE d.session_id = e.session_id), -1)
                 OR EXISTS (SELECT 1 FROM undelivered u WHERE u.session_id = e.session_id
                            AND e.idx BETWEEN u.from_idx AND u.through_idx))
             ORDER BY idx",
        )
        .unwrap();
    query.query_map([session], |row| row.get(0)).unwrap().map(Result::unwrap).collect()
}

fn kill_after(mut child: Child, delay: Duration) {
    std::thread::sleep(delay);
    child.kill().unwrap();
    child.wait().unwrap();
}

/// The next `run` of the session says how many events the hooks never saw, `--redeliver`
/// hands exactly those to the hooks (the slow hook records `slow <index>`), and then
/// nothing is left to say.
fn assert_reported_and_redelivered(dir: &Path, session: &str) {
    let missing = never_seen(dir, session);
    let next = run_recorded(dir, &["run", "--event", "turn.completed", "--session", session], &[]);
    assert_eq!(exit_code(&next.output), 0, "{}", next.log());
    if missing.is_empty() {
        assert!(!next.log().contains("never saw"), "{}", next.log());
    } else {
        let said = format!("session {session} has {} recorded event", missing.len());
        assert!(next.log().contains(&said), "expected `{said}`:\n{}", next.log());
    }
    let redelivered = run_recorded(dir, &["run", "--redeliver", "--session", session], &[]);
    assert_eq!(exit_code(&redelivered.output), 0, "{}", redelivered.log());
    let expected: Vec<String> = missing.iter().map(|index| format!("slow {index}")).collect();
    assert_eq!(redelivered.record, expected);
    let after = run_recorded(dir, &["run", "--event", "turn.completed", "--session", session], &[]);
    assert!(!after.log().contains("never saw"), "{}", after.log());
    assert!(never_seen(dir, session).is_empty());
}

#[test]
fn run_replays_killed_at_random_points_leave_a_whole_store_and_report_every_undelivered_event() {
    let dir = copy_fixture("run", "slow");
    let dir = dir.path();
    let lines: Vec<String> = (0..150)
        .map(|index| {
            serde_json::json!({ "type": "message.appended", "index": index, "sessionId": "ses_x",
                "turnId": "turn_x", "at": "2026-11-30T00:00:00.000Z", "data": { "delta": "x" } })
            .to_string()
        })
        .collect();
    std::fs::write(dir.join("events.jsonl"), lines.join("\n")).unwrap();
    let mut chaos = Chaos(0x5eed_1234_abcd_0001);
    for kill in 0..KILLS {
        let child = common::agent_sdk()
            .args(["run", "--replay", "events.jsonl", "--session", "ses_chaos"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        // From before Node starts to well into dispatch (150 events at 20 ms each).
        kill_after(child, Duration::from_millis(chaos.below(1500)));
        assert_whole(dir, "ses_chaos", &format!("after kill {kill}"));
    }
    assert_reported_and_redelivered(dir, "ses_chaos");
}

#[test]
fn dev_killed_at_random_points_leaves_a_whole_store_and_reports_every_undelivered_event() {
    let dir = copy_fixture("run", "slow");
    let dir = dir.path();
    let mut chaos = Chaos(0x5eed_1234_abcd_0002);
    // The server makes the session's id; once it has recorded events, it is the session
    // every later server continues.
    let mut session: Option<String> = None;
    for kill in 0..KILLS {
        let dev_file = dir.join(".agent-sdk/dev.json");
        let _ = std::fs::remove_file(&dev_file);
        // Without a record: the hooks of a killed server must not write into the one the
        // last `run` reads.
        let child = common::agent_sdk()
            .args(["dev", "--port", "0"])
            .current_dir(dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let server = DevServer::adopt(child, dir, "");
        let (url, token) = (server.url.clone(), server.token.clone());
        let client = reqwest::blocking::Client::builder().timeout(Duration::from_secs(5)).build().unwrap();
        let id = match session.clone().filter(|id| assert_whole(dir, id, "before a restart") > 0) {
            Some(id) => id,
            None => {
                let created = client.post(format!("{url}/v1/sessions")).bearer_auth(&token).send().unwrap();
                assert_eq!(created.status(), 201);
                created.json::<serde_json::Value>().unwrap()["id"].as_str().unwrap().to_owned()
            }
        };
        session = Some(id.clone());
        // Messages keep coming until the server is killed; their replies are read as they come.
        let sender = std::thread::spawn(move || {
            for turn in 0..20 {
                let sent = client
                    .post(format!("{url}/v1/sessions/{id}/messages"))
                    .bearer_auth(&token)
                    .json(&serde_json::json!({ "text": format!("turn {turn} of many words to stream") }))
                    .send()
                    .and_then(reqwest::blocking::Response::text);
                if sent.is_err() {
                    return;
                }
            }
        });
        std::thread::sleep(Duration::from_millis(chaos.below(1500)));
        server.kill();
        let _ = sender.join();
        if let Some(id) = &session {
            assert_whole(dir, id, &format!("after dev kill {kill}"));
        }
    }
    let session = session.unwrap();
    assert!(assert_whole(dir, &session, "at the end") > 0, "dev recorded nothing in {KILLS} starts");
    assert_reported_and_redelivered(dir, &session);
}
