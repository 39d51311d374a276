#!/usr/bin/env python3
"""Benchmark: dev's playground (how soon the page is ready, and what having it open costs a turn).

What it measures, in one run, on a copy of bench/dev-hooks (one "*" hook) served by
`target/release/agent-sdk dev --port 0`, in Debian's Chromium driven by playwright-core
(tests/playground/watch.mjs; `scripts/test-setup` installs both):

  1. Page ready. The playground's URL (with its #token=) is loaded --loads times, each in a
     fresh browser context; ready = the page's `playground-ready` mark (the agent described,
     the sessions listed, the first render done), in ms from the start of navigation.
     Reported: median and p95, beside the 100 ms target.
  2. A turn with the page open. One session; --turns turns, sent one after the other, in
     four blocks alternating page closed / open / closed / open (open: the page shows that
     session's timeline and follows it and the logs, and polls the Agent tab). Per turn:
     the wall time of POST /v1/sessions/{id}/messages, read to the end of its SSE stream.
     Reported: p50 and p95 for each condition. With --vs OLD (an agent-sdk built before the
     playground, which records no handler runs), the same turns on it, page closed, beside.

Run from the repo root:

  python3 bench/playground.py [--loads 10] [--turns 200] [--vs OLD-BINARY] [--no-build]

It prints a markdown report; it exits 1 only if a sanity check fails (dev does not start, a
turn fails, the page shows fewer events than the turns recorded).
"""

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import AGENT_SDK, REPO, SanityError, build_release, copy_project
from dev import PROJECT, dev_server, percentile

WATCH = REPO / "tests" / "playground" / "watch.mjs"
TARGET_READY_MS = 100


def ready_times(url: str, loads: int) -> list[float]:
    output = subprocess.run(["node", str(WATCH), "ready", url, str(loads)], capture_output=True, text=True, check=False)
    if output.returncode != 0:
        raise SanityError("the playground did not load", output.stderr)
    return json.loads(output.stdout)["readyMs"]


def timed_turns(dev, session: str, count: int) -> list[float]:
    times = []
    for i in range(count):
        started = time.perf_counter()
        dev.send(session, f"turn {i}")
        times.append((time.perf_counter() - started) * 1000)
    return times


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--loads", type=int, default=10, help="page loads timed (default 10)")
    parser.add_argument("--turns", type=int, default=200, help="turns in each condition (default 200)")
    parser.add_argument("--vs", type=Path, help="an agent-sdk built before the playground, measured beside")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()
    build_release(args.no_build)
    block = max(1, args.turns // 2)
    try:
        with tempfile.TemporaryDirectory() as tmp:
            project = copy_project(PROJECT, Path(tmp) / "project")
            with dev_server(project, {}) as dev:
                url = f"{dev.url}/playground#token={dev.token}"
                ready = ready_times(url, args.loads)
                session = dev.create_session()
                dev.send(session, "warm up")
                closed, opened = [], []
                for condition in ("closed", "open", "closed", "open"):
                    if condition == "closed":
                        closed += timed_turns(dev, session, block)
                        continue
                    watcher = subprocess.Popen(
                        ["node", str(WATCH), "follow", f"{dev.url}/playground?session={session}#token={dev.token}"],
                        stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
                    if watcher.stdout.readline().strip() != "ready":
                        raise SanityError("the playground did not open", dev.stderr_text())
                    opened += timed_turns(dev, session, block)
                    time.sleep(0.5)
                    shown, _ = watcher.communicate("")
                    shown = json.loads(shown)
                    if shown["events"] < block:
                        raise SanityError(f"the page showed {shown['events']} events", dev.stderr_text())
            old = []
            if args.vs:
                old_project = copy_project(PROJECT, Path(tmp) / "old")
                with dev_server(old_project, {}, binary=args.vs) as dev:
                    session = dev.create_session()
                    dev.send(session, "warm up")
                    old = timed_turns(dev, session, 2 * block)
    except SanityError as error:
        print(f"sanity check failed: {error}", file=sys.stderr)
        return 1
    print(f"## dev's playground ({AGENT_SDK.relative_to(REPO)})\n")
    print("| measure | p50 | p95 | target |")
    print("|---|---|---|---|")
    print(f"| page ready ({args.loads} loads) | {statistics.median(ready):.0f} ms | {percentile(ready, 95):.0f} ms | ≤ {TARGET_READY_MS} ms |")
    print(f"| turn, page closed ({len(closed)}) | {statistics.median(closed):.2f} ms | {percentile(closed, 95):.2f} ms | |")
    print(f"| turn, page open and following ({len(opened)}) | {statistics.median(opened):.2f} ms | {percentile(opened, 95):.2f} ms | within noise of closed |")
    if old:
        print(f"| turn, {args.vs} (no timeline recorded) ({len(old)}) | {statistics.median(old):.2f} ms | {percentile(old, 95):.2f} ms | |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
