#!/usr/bin/env python3
"""Benchmark: what a `dev` session costs now that one hook runtime serves them all, beside a
build that started a runtime per session (--vs), in the same run.

On copies of bench/dev-hooks (one "*" hook; bench/dev.py says more), each served by
`<binary> dev --port 0 --session-idle 10m` (so no session rests while measured):

  1. Memory per live session. Sessions are created one after another, each sending one turn
     (and its hook having recorded every event of it) before the next; after the 1st and the
     --sessions-th (default 50), the RSS of dev and every process under it (the Node
     runtimes) is summed from /proc (VmRSS). Reported: both totals and the cost of each
     session after the first, (RSS(N) - RSS(1)) / (N - 1).
  2. Turn latency at --clients concurrent clients (default 10): each client creates a session
     and sends --turns turns (default 20) one after the other; a turn's latency is the latest
     time the hook recorded for its events minus the `at` of its first envelope (as in
     bench/dev.py's section 3). Reported: p50, p99 and max.

Each of the two is measured --runs times (default 3) for each binary, the binaries taking
turns; the medians are reported.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/sessions.py [--vs <older agent-sdk binary>] [--runs 3] [--sessions 50] [--clients 10] [--turns 20] [--no-build]

It builds the release binary first unless --no-build. It exits 1 (with the tail of dev's
stderr) only if a sanity check fails: dev does not start, a request fails, or the hook never
records a turn's events.
"""

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_version
from dev import PROJECT, concurrent_sessions, dev_server, percentile, wait_for

TARGET_MB_PER_SESSION = 2.0


def memory(tmp: Path, binary: Path, sessions: int, name: str) -> tuple[float, float]:
    """Total RSS in MB (dev and the processes under it) with 1 and with `sessions` live sessions."""
    project, record = copy_project(PROJECT, tmp / name), tmp / f"{name}-record.txt"
    totals = {}
    with dev_server(project, {"AGENT_SDK_TEST_RECORD": str(record)}, binary, ("--session-idle", "10m")) as dev:
        events = 0
        for n in range(1, sessions + 1):
            session = dev.create_session()
            events += len(dev.send(session, f"Question {n}: where is my order?"))
            wait_for(lambda: record.exists() and record.read_text().count("\n") >= events,
                     f"the hook to record {events} events", dev.stderr_text)
            if n in (1, sessions):
                totals[n] = dev.total_rss_mb()
    print(f"memory {name}: {totals[1]:.1f} MB with 1 session, {totals[sessions]:.1f} MB with {sessions}",
          file=sys.stderr)
    return totals[1], totals[sessions]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--vs", type=Path, help="an older agent-sdk binary to measure beside this one")
    parser.add_argument("--runs", type=int, default=3, help="measurements of each (default 3)")
    parser.add_argument("--sessions", type=int, default=50, help="live sessions for the memory row (default 50)")
    parser.add_argument("--clients", type=int, default=10, help="concurrent clients for the latency row (default 10)")
    parser.add_argument("--turns", type=int, default=20, help="turns per client (default 20)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()

    build_release(args.no_build)
    binaries = {"this build": AGENT_SDK}
    if args.vs is not None:
        binaries[f"--vs {args.vs.name}"] = args.vs.resolve()
    rss = {name: [] for name in binaries}
    latency = {name: [] for name in binaries}
    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-sessions-") as tmp:
            for run in range(args.runs):
                for index, (name, binary) in enumerate(binaries.items()):
                    label = f"{index}-{run}"
                    rss[name].append(memory(Path(tmp), binary, args.sessions, f"memory-{label}"))
                    _, every, _ = concurrent_sessions(Path(tmp), args.clients, args.turns, binary, f"latency-{label}")
                    latency[name].append(every)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{os.cpu_count()} cores, node {node_version()}, project bench/dev-hooks (one \"*\" hook), "
          f"release builds, medians of {args.runs} runs\n")
    print(f"### 1. RSS of dev and its Node runtimes, 1 and {args.sessions} live sessions (one turn each)\n")
    print(f"| build | 1 session MB | {args.sessions} sessions MB | each session after the first MB |")
    print("|---|---:|---:|---:|")
    per_session = {}
    for name, samples in rss.items():
        one = statistics.median(first for first, _ in samples)
        many = statistics.median(last for _, last in samples)
        per_session[name] = statistics.median((last - first) / (args.sessions - 1) for first, last in samples)
        print(f"| {name} | {one:.1f} | {many:.1f} | {per_session[name]:.2f} |")
    print(f"\n### 2. {args.clients} concurrent clients × {args.turns} turns: first event recorded to last hook "
          "finished\n")
    print("| build | p50 ms | p99 ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, runs in latency.items():
        p50 = statistics.median(percentile(values, 50) for values in runs)
        p99 = statistics.median(percentile(values, 99) for values in runs)
        worst = statistics.median(max(values) for values in runs)
        print(f"| {name} | {p50:.1f} | {p99:.1f} | {worst:.1f} |")
    mine = per_session["this build"]
    met = "met" if mine <= TARGET_MB_PER_SESSION else "NOT met"
    print(f"\ntargets:\n- each live session after the first ≤ {TARGET_MB_PER_SESSION} MB: {mine:.2f} MB — {met}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
