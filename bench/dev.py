#!/usr/bin/env python3
"""Benchmark: `agent-sdk dev` and `agent-sdk logs` (log throughput, follow latency, concurrent sessions).

What it measures, in one run, on copies of bench/dev-hooks (one "*" hook, below) without
their .agent-sdk/ folder, each served by `target/release/agent-sdk dev --port 0` (ready when
.agent-sdk/dev.json names its URL and token and GET /v1/logs?tail=0 answers 200):

  1. `logs --json` throughput. With dev running, --log-rows realistic serve_log rows (default
     100,000: hook lines, otel counters, summaries, warnings and errors of 250 sessions) are
     inserted with sqlite3 into .agent-sdk/state.db in one transaction; then
     `agent-sdk logs --dir <copy> --json` runs --runs times with stdout into a pipe that this
     script reads and counts. Reported: lines/s = lines / median wall s (time.perf_counter
     around the process). Each run must exit 0 and print at least --log-rows lines.
  2. Follow latency. On the same server (started with AGENT_SDK_BENCH_ECHO=1, so the hook
     writes the serve-log line `hook "bench": bench <index>` for every event),
     `agent-sdk logs --dir <copy> -f --json` runs with stdout piped, read line by line in a
     thread that stamps each line with time.time(). Once it has printed the whole history,
     turns are sent on one session until --follow-lines events were recorded; for every new
     line, latency = its arrival time - its `at` (recorded by dev on this machine's clock,
     millisecond resolution). Reported: median, p95 and max over all new lines.
  3. Concurrent sessions. A fresh copy and server, started with AGENT_SDK_TEST_RECORD=<file>,
     so the hook appends "<sessionId> <index> <type> <Date.now()>" for every event. --sessions
     threads (default 50) each create a session and send --turns turns (default 20), one
     after the other. Per turn, latency = the latest Date.now() written by the hook for the
     turn's events - the `at` of the turn's first envelope in its SSE stream. Reported: p50,
     p99 and max over the first 5 turns of every session (while all of them start), and over
     all turns. The RSS of the dev process alone (VmRSS in /proc; the Node.js runtime that serves
     every session is its child and reported beside it) is sampled after 10%, 50% and 100% of
     the turns (turn 100, 500, 1,000 by default); memory is flat when the last sample is
     within 20% of the middle one.

dev's stdout goes to /dev/null and its stderr to a temp file (shown if a sanity check fails);
every server is stopped with SIGINT (and waited for) whatever happens.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/dev.py [--runs 5] [--log-rows 100000] [--follow-lines 300] [--sessions 50] [--turns 20] [--no-build]

It builds the release binary first unless --no-build. It prints a markdown report and exits
0; it exits 1 (showing the tail of agent-sdk's stderr) only if a sanity check fails: dev does
not start, a request fails, `logs` exits nonzero or prints too few lines, or a recorded line
or hook run never shows up.
"""

import argparse
import contextlib
import json
import os
import signal
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from pathlib import Path

from common import AGENT_SDK, REPO, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_version

# One hook, "*": a serve-log line per event (AGENT_SDK_BENCH_ECHO=1) and/or a record line per
# event in the file named by AGENT_SDK_TEST_RECORD.
PROJECT = REPO / "bench" / "dev-hooks"
TARGET_LINES_PER_S = 50_000
TARGET_FOLLOW_MS = 100
FLAT_TOLERANCE = 0.20
FIRST_TURNS = 5  # per session, for the first latency row
WAIT_S = 60  # for dev to start, a line to show up, hooks to finish


def at_ms(at: str) -> float:
    """Milliseconds since the epoch of an RFC 3339 UTC time like 2026-11-30T05:52:01.123Z."""
    return datetime.fromisoformat(at).timestamp() * 1000


def percentile(values: list[float], p: int) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[p - 1]


def wait_for(condition, what: str, stderr=lambda: ""):
    deadline = time.monotonic() + WAIT_S
    while not (result := condition()):
        if time.monotonic() > deadline:
            raise SanityError(f"timed out after {WAIT_S} s waiting for {what}", stderr())
        time.sleep(0.02)
    return result


class Dev:
    """A running `agent-sdk dev` on a free port, and requests to it."""

    def __init__(self, project: Path, env: dict[str, str], binary: Path = AGENT_SDK, args: tuple[str, ...] = ()):
        self.project = project
        self.stderr = tempfile.TemporaryFile("w+")
        (project / ".agent-sdk" / "dev.json").unlink(missing_ok=True)
        self.process = subprocess.Popen([str(binary), "dev", "--dir", str(project), "--port", "0", *args],
                                        stdout=subprocess.DEVNULL, stderr=self.stderr, env={**os.environ, **env})
        self.url = self.token = ""

    def ready(self) -> bool:
        """Whether dev.json names a server that answers with its token."""
        if self.process.poll() is not None:
            raise SanityError(f"agent-sdk dev exited {self.process.returncode}", self.stderr_text())
        try:
            config = json.loads((self.project / ".agent-sdk" / "dev.json").read_text())
            self.url, self.token = config["url"], config["token"]
            return self.request("GET", "/v1/logs?tail=0")[0] == 200
        except (OSError, ValueError, KeyError):
            return False

    def stderr_text(self) -> str:
        self.stderr.seek(0)
        return self.stderr.read()

    def request(self, method: str, path: str, body: dict | None = None) -> tuple[int, bytes]:
        data = json.dumps(body).encode() if body is not None else None
        request = urllib.request.Request(self.url + path, data=data, method=method, headers={
            "Authorization": f"Bearer {self.token}", "Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=WAIT_S) as response:
                return response.status, response.read()
        except urllib.error.HTTPError as error:
            return error.code, error.read()

    def create_session(self) -> str:
        status, body = self.request("POST", "/v1/sessions")
        if status != 201:
            raise SanityError(f"POST /v1/sessions answered {status}: {body[:200]!r}", self.stderr_text())
        return json.loads(body)["id"]

    def send(self, session: str, text: str) -> list[dict]:
        """One turn: the envelopes of its SSE stream, read to its end."""
        status, body = self.request("POST", f"/v1/sessions/{session}/messages", {"text": text})
        envelopes = [json.loads(line[5:]) for line in body.decode().splitlines() if line.startswith("data:")]
        if status != 200 or not envelopes or envelopes[-1]["type"] not in ("turn.completed", "turn.failed"):
            raise SanityError(f"a turn of {session} answered {status} with {len(envelopes)} events",
                              self.stderr_text())
        return envelopes

    def rss_mb(self) -> tuple[float, int, float]:
        """(RSS of dev alone, how many child processes (Node runtimes), their total RSS) in MB."""
        pid, children = self.process.pid, []
        for task in Path(f"/proc/{pid}/task").iterdir():
            with contextlib.suppress(OSError):  # the thread just ended
                children += (task / "children").read_text().split()
        return vm_rss_mb(pid), len(children), sum(vm_rss_mb(child) for child in children)

    def total_rss_mb(self) -> float:
        """RSS of dev and of every process under it (the Node runtimes and what they start), in MB."""
        return sum(vm_rss_mb(pid) for pid in descendants(self.process.pid))

    def stop(self) -> None:
        self.process.send_signal(signal.SIGINT)
        try:
            self.process.wait(timeout=WAIT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
        self.stderr.close()


def descendants(pid: int) -> list[int]:
    """`pid` and every process under it."""
    found, queue = [], [pid]
    while queue:
        current = queue.pop()
        found.append(current)
        with contextlib.suppress(OSError):  # it just ended
            for task in Path(f"/proc/{current}/task").iterdir():
                with contextlib.suppress(OSError):
                    queue += [int(child) for child in (task / "children").read_text().split()]
    return found


def vm_rss_mb(pid) -> float:
    try:
        return int(Path(f"/proc/{pid}/status").read_text().split("VmRSS:")[1].split()[0]) / 1024
    except (OSError, IndexError):
        return 0.0  # it just exited


@contextlib.contextmanager
def dev_server(project: Path, env: dict[str, str], binary: Path = AGENT_SDK, args: tuple[str, ...] = ()):
    dev = Dev(project, env, binary, args)
    try:
        wait_for(dev.ready, "dev to listen", dev.stderr_text)
        yield dev
    finally:
        dev.stop()


def seed_serve_log(project: Path, count: int) -> None:
    """Inserts `count` serve-log lines like a busy server's: per turn of one of 250 sessions,
    hook lines, an otel counter, a summary, now and then a warning or an error."""
    start_ms = time.time() * 1000 - 2 * count
    rows = []
    for i in range(count):
        turn = i // 8
        session = f"ses_{0x5807bea15a79b3fd + 7919 * (turn % 250):016x}"
        turn_id = f"turn_{0x5807bea06c7699ff + 104729 * turn:016x}"
        at = datetime.fromtimestamp((start_ms + 2 * i) / 1000, timezone.utc)
        at = at.isoformat(timespec="milliseconds").replace("+00:00", "Z")
        kind = i % 8
        if kind < 5:
            row = ("info", f'hook "transcript": appended event {kind} of {turn_id} to memory/{session}.jsonl',
                   "transcript", ["message.received", "message.appended", "message.completed"][kind % 3])
        elif kind == 5:
            row = ("info", f"otel counter acme.tokens = {40 + turn % 97}", None, None)
        elif turn % 50 == 0:
            row = ("error", 'hook "pager" handler for turn.failed threw: PAGER_TOKEN is not set '
                            "(at bot/hooks/pager.ts:9:11)", "pager", "turn.failed")
        elif kind == 6 and turn % 7 == 0:
            row = ("warn", 'hook "audit/usage" handler for turn.completed timed out after 30s',
                   "audit/usage", "turn.completed")
        else:
            row = ("info", f"summary: {13 + turn % 9} events dispatched to 3 hooks; 0 handlers threw, 0 timed out; "
                           "0 runtime restarts", None, None)
        rows.append((at, row[0], row[1], session, turn_id, row[2], row[3]))
    with contextlib.closing(sqlite3.connect(project / ".agent-sdk" / "state.db", timeout=WAIT_S)) as db, db:
        db.executemany("INSERT INTO serve_log (at, level, message, session_id, turn_id, hook, event) "
                       "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)


def newest_cursor(project: Path) -> int:
    with contextlib.closing(sqlite3.connect(project / ".agent-sdk" / "state.db", timeout=WAIT_S)) as db:
        return db.execute("SELECT COALESCE(MAX(cursor), 0) FROM serve_log").fetchone()[0]


def logs_throughput(dev: Dev, runs: int, rows: int) -> tuple[list[float], int]:
    """Wall ms of each `logs --json` run, and the lines the last one printed."""
    times = []
    for run in range(runs):
        with tempfile.TemporaryFile("w+") as stderr:
            start = time.perf_counter()
            process = subprocess.Popen([str(AGENT_SDK), "logs", "--dir", str(dev.project), "--json"],
                                       stdout=subprocess.PIPE, stderr=stderr)
            lines = sum(1 for _ in process.stdout)
            code = process.wait()
            times.append((time.perf_counter() - start) * 1000)
            stderr.seek(0)
            if code != 0 or lines < rows:
                raise SanityError(f"`agent-sdk logs --json` exited {code} after {lines} lines "
                                  f"(expected 0 and at least {rows})", stderr.read())
        print(f"logs --json {run + 1}/{runs}: {lines} lines in {times[-1]:.1f} ms", file=sys.stderr)
    return times, lines


def follow_latency(dev: Dev, want_events: int) -> list[float]:
    """Ms from each new line's `at` to the moment `logs -f --json` printed it."""
    history = newest_cursor(dev.project)
    arrivals: list[tuple[float, bytes]] = []
    process = subprocess.Popen([str(AGENT_SDK), "logs", "--dir", str(dev.project), "-f", "--json"],
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)

    def read() -> None:
        for line in process.stdout:
            arrivals.append((time.time(), line))

    reader = threading.Thread(target=read)
    reader.start()
    try:
        wait_for(lambda: arrivals and json.loads(arrivals[-1][1])["id"] >= history, "the follower's history")
        start = len(arrivals)  # nothing was recorded since `history`
        session, events, turn = dev.create_session(), 0, 0
        while events < want_events:
            events += len(dev.send(session, f"Question {turn}: where is my order?"))
            turn += 1
        wait_for(lambda: sum(b'": bench ' in line for _, line in arrivals[start:]) >= events,
                 f"{events} hook lines in the follower", dev.stderr_text)
    finally:
        process.send_signal(signal.SIGINT)
        process.wait()
        reader.join()
    new = [(arrived, json.loads(line)) for arrived, line in arrivals[start:]]
    latencies = [arrived * 1000 - at_ms(record["at"]) for arrived, record in new if record["id"] > history]
    print(f"follow: {len(latencies)} new lines over {turn} turns", file=sys.stderr)
    return latencies


def concurrent_sessions(tmp: Path, sessions: int, turns: int, binary: Path = AGENT_SDK,
                        name: str = "concurrent") -> tuple[list[float], list[float], dict]:
    """Per-turn latencies (first FIRST_TURNS of each session, all) and {turn: dev RSS sample}."""
    project, record = copy_project(PROJECT, tmp / name), tmp / f"{name}-record.txt"
    total = sessions * turns
    sample_at = {max(1, total // 10), total // 2, total}
    done: list[tuple[int, list[dict]]] = []  # (turn number in its session, envelopes)
    samples: dict[int, tuple[float, int, float]] = {}
    errors: list[Exception] = []
    lock = threading.Lock()
    with dev_server(project, {"AGENT_SDK_TEST_RECORD": str(record)}, binary) as dev:
        def session_worker() -> None:
            try:
                session = dev.create_session()
                for n in range(turns):
                    envelopes = dev.send(session, f"Question {n}: how do I get a refund for order #{10_000 + n}?")
                    with lock:
                        done.append((n, envelopes))
                        if len(done) in sample_at:
                            samples[len(done)] = dev.rss_mb()
                            print(f"concurrent: {len(done)}/{total} turns, dev RSS {samples[len(done)][0]:.1f} MB",
                                  file=sys.stderr)
            except Exception as error:  # reported after every thread ended
                errors.append(error)

        threads = [threading.Thread(target=session_worker) for _ in range(sessions)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        if errors:
            raise errors[0]
        events = sum(len(envelopes) for _, envelopes in done)
        wait_for(lambda: record.exists() and record.read_text().count("\n") >= events,
                 f"the hook to record {events} events", dev.stderr_text)
    ran = {}
    for line in record.read_text().splitlines():
        session, index, _, now = line.split(" ")
        ran[session, int(index)] = float(now)
    first, every = [], []
    for n, envelopes in done:
        latency = max(ran[e["sessionId"], e["index"]] for e in envelopes) - at_ms(envelopes[0]["at"])
        every.append(latency)
        if n < FIRST_TURNS:
            first.append(latency)
    return first, every, samples


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed `logs --json` runs (default 5)")
    parser.add_argument("--log-rows", type=int, default=100_000, help="serve-log rows inserted (default 100000)")
    parser.add_argument("--follow-lines", type=int, default=300, help="events recorded while following (default 300)")
    parser.add_argument("--sessions", type=int, default=50, help="concurrent sessions (default 50)")
    parser.add_argument("--turns", type=int, default=20, help="turns per session (default 20)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()

    build_release(args.no_build)
    node = node_version()

    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-dev-") as tmp:
            project = copy_project(PROJECT, Path(tmp) / "logs")
            with dev_server(project, {"AGENT_SDK_BENCH_ECHO": "1"}) as dev:
                seed_serve_log(project, args.log_rows)
                logs_times, logs_lines = logs_throughput(dev, args.runs, args.log_rows)
                follow = follow_latency(dev, args.follow_lines)
            first, every, samples = concurrent_sessions(Path(tmp), args.sessions, args.turns)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{os.cpu_count()} cores, node {node}, project bench/dev-hooks (one \"*\" hook), "
          f"release build\n")

    logs_median = statistics.median(logs_times)
    lines_per_s = logs_lines / (logs_median / 1000)
    print(f"### 1. `agent-sdk logs --json` of {logs_lines:,} recorded lines into a pipe ({args.runs} runs)\n")
    print("| median wall ms | min ms | max ms | lines/s (lines / median) |")
    print("|---:|---:|---:|---:|")
    print(f"| {logs_median:.1f} | {min(logs_times):.1f} | {max(logs_times):.1f} | {lines_per_s:,.0f} |\n")

    follow_median = statistics.median(follow)
    print("### 2. A line recorded by dev, printed by `agent-sdk logs -f --json` (its `at` to arrival)\n")
    print("| lines | median ms | p95 ms | max ms |")
    print("|---:|---:|---:|---:|")
    print(f"| {len(follow)} | {follow_median:.1f} | {percentile(follow, 95):.1f} | {max(follow):.1f} |\n")

    print(f"### 3. dev under {args.sessions} concurrent sessions, {args.turns} turns each: first event "
          "recorded to last hook finished\n")
    print("| turns | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|")
    for label, values in [(f"first {FIRST_TURNS} of each session ({len(first)})", first),
                          (f"all ({len(every)})", every)]:
        print(f"| {label} | {percentile(values, 50):.1f} | {percentile(values, 99):.1f} | {max(values):.1f} |")
    print("\n| after turn | dev RSS MB (process alone) | Node runtimes (children) | their RSS MB |")
    print("|---:|---:|---:|---:|")
    for turn, (rss, children, children_rss) in sorted(samples.items()):
        print(f"| {turn:,} | {rss:.1f} | {children} | {children_rss:.1f} |")
    middle, last = (samples[turn][0] for turn in sorted(samples)[-2:])
    flat = abs(last - middle) <= FLAT_TOLERANCE * middle
    print()

    print("targets:")
    for label, value, met in [
        (f"`logs --json` ≥ {TARGET_LINES_PER_S:,} lines/s", f"{lines_per_s:,.0f} lines/s",
         lines_per_s >= TARGET_LINES_PER_S),
        (f"follow latency median ≤ {TARGET_FOLLOW_MS} ms", f"{follow_median:.1f} ms", follow_median <= TARGET_FOLLOW_MS),
        (f"dev RSS flat (last sample within {FLAT_TOLERANCE:.0%} of the middle one)",
         f"{middle:.1f} → {last:.1f} MB", flat),
    ]:
        print(f"- {label}: {value} — {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
