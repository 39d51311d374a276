#!/usr/bin/env python3
"""Benchmark: `agent-sdk run` (cold turn, replay throughput, memory).

What it measures, wall time being time.perf_counter around each process and peak RSS the
ru_maxrss of that child alone (via os.wait4), in one run:

  1. Cold run vs bare Node. --runs iterations (1 warm-up of each discarded), interleaved:
     (a) target/release/agent-sdk run --dir <copy> --message "hello", where <copy> is a fresh
         copy of examples/acme-bot without its .agent-sdk/ folder (made before the clock
         starts), so every timed run is cold: empty state root, compile, Node start, 3 hooks
         loaded, the whole turn dispatched; (b) node -e ''.
     Reported: median/min/max ms of each and the ratio run median / node median.
  2. Replay throughput. A generated session of --events envelopes (repeated turns of
     message.received, several message.appended, message.completed, turn.completed with
     usage and cost) is replayed with `agent-sdk run --dir <copy> --replay <file>` into one
     copy of a project: 1 warm-up replay discarded (so the compile is warm), then --runs
     timed replays (each appends a new session). The target is measured on
     bench/replay-hooks (an otel counter, an awaited kv write per turn, a "*" handler);
     examples/acme-bot is reported beside it: its transcript hook creates one file per
     turn, so its number mostly measures how fast the disk creates files. Reported: events/s = N / median wall s of
     the whole command, start-up included. Every replay's serve log summary line
     (`summary: <n> events dispatched …`) must say n == N.
  3. Memory at --memory-events replayed events (default 100,000): one replay into a fresh
     copy; peak RSS of the agent-sdk process alone (VmHWM, polled from /proc: wait4's
     ru_maxrss would include the Node.js runtime it waited for), its wall time and events/s.

stdout and stderr go to /dev/null except the replays' stderr (the serve log), which is kept
in a temp file to read the summary line.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/run.py [--runs 10] [--events 10000] [--memory-events 100000] [--no-build]

It builds the release binary first unless --no-build. It prints a markdown report and exits
0; it exits 1 (showing the tail of agent-sdk's stderr) only if a sanity check fails: a
nonzero exit of agent-sdk or a dispatched count other than the number of replayed events.
"""

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import AGENT_SDK, REPO, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_version

EXAMPLE = REPO / "examples" / "acme-bot"
# Three hooks that do what hooks do without touching the disk per turn: an otel counter,
# an awaited kv write per turn, and a "*" handler that sees every event.
REPLAY_PROJECT = REPO / "bench" / "replay-hooks"
TARGET_RATIO = 1.6
TARGET_EVENTS_PER_S = 20_000
TARGET_PEAK_MB = 200
SUMMARY = re.compile(r"summary: (\d+) events? dispatched")

# The reply of every generated turn, streamed as message.appended deltas.
REPLY_WORDS = ("Sure, the refund policy is on the billing page: refunds are issued within "
               "five business days to the original payment method (see docs/billing#refunds).").split(" ")


def generate_events(path: Path, count: int) -> None:
    """Writes `count` NDJSON envelopes of one session: whole turns of message.received, 4–12
    message.appended, message.completed and turn.completed (the last turn takes up any rest)."""
    session_id = "ses_bench0000000000"
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    index = turn = 0
    with path.open("w") as out:
        while index < count:
            left = count - index
            appended = 4 + turn % 9
            if left - (appended + 3) < 4:  # too few would be left for another whole turn
                appended = max(left - 3, 0)
            question = f"Question {turn}: how do I get a refund for order #{10_000 + turn}?"
            deltas = [f"{REPLY_WORDS[(2 * k) % len(REPLY_WORDS)]} {REPLY_WORDS[(2 * k + 1) % len(REPLY_WORDS)]} "
                      for k in range(appended)]
            text = "".join(deltas).strip()
            events = [("message.received", {"text": question})]
            events += [("message.appended", {"delta": delta}) for delta in deltas]
            events.append(("message.completed", {"text": text}))
            events.append(("turn.completed", {
                "result": text,
                "usage": {"inputTokens": 10 + len(question) // 4, "outputTokens": 20 + appended,
                          "cacheReadTokens": 0, "cacheWriteTokens": 0},
                "cost": {"totalUsd": 0, "model": "local"},
            }))
            for event_type, data in events[:left]:  # truncated only if count < 3
                at = start + timedelta(milliseconds=7 * index)
                envelope = {"type": event_type, "index": index, "sessionId": session_id,
                            "turnId": f"turn_bench{turn:08d}",
                            "at": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "data": data}
                out.write(json.dumps(envelope, separators=(",", ":")) + "\n")
                index += 1
            turn += 1


def measure(cmd: list[str], stderr_file=None) -> tuple[float, float, int]:
    """Runs cmd once (stdout to /dev/null); returns (wall ms, peak RSS MB, exit code) of that child."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr_file or subprocess.DEVNULL)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed_ms = (time.perf_counter() - start) * 1000
    process.returncode = code = os.waitstatus_to_exitcode(status)
    return elapsed_ms, usage.ru_maxrss / 1024, code  # ru_maxrss is in KiB on Linux


def run_checked(cmd: list[str], expect_events: int | None = None) -> tuple[float, float]:
    """measure() with agent-sdk's stderr kept; exit 0 and, if given, the dispatched count are checked."""
    with tempfile.TemporaryFile("w+") as stderr_file:
        elapsed_ms, peak_mb, code = measure(cmd, stderr_file)
        stderr_file.seek(0)
        stderr = stderr_file.read()
    if code != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited {code} (expected 0)", stderr)
    if expect_events is not None:
        found = SUMMARY.findall(stderr)
        if not found or int(found[-1]) != expect_events:
            seen = found[-1] if found else "no summary line"
            raise SanityError(f"`{' '.join(cmd)}`: dispatched {seen}, expected {expect_events} events", stderr)
    return elapsed_ms, peak_mb


def cold_vs_node(tmp: Path, runs: int) -> dict[str, list[float]]:
    samples: dict[str, list[float]] = {"agent-sdk run (cold)": [], "node -e ''": []}
    for run in range(runs + 1):  # run 0 is the warm-up, discarded
        project = copy_project(EXAMPLE, tmp / f"cold{run}")
        cold_ms, _ = run_checked([str(AGENT_SDK), "run", "--dir", str(project), "--message", "hello"])
        node_ms, _, code = measure(["node", "-e", ""])
        if code != 0:
            raise SanityError(f"`node -e ''` exited {code}")
        shutil.rmtree(project)
        if run > 0:
            samples["agent-sdk run (cold)"].append(cold_ms)
            samples["node -e ''"].append(node_ms)
            print(f"cold run {run}/{runs}: agent-sdk {cold_ms:.1f} ms, node {node_ms:.1f} ms", file=sys.stderr)
    return samples


def replay_throughput(tmp: Path, runs: int, events: int, source: Path) -> list[float]:
    replay = tmp / f"events-{events}.jsonl"
    if not replay.exists():
        generate_events(replay, events)
    project = copy_project(source, tmp / f"replay-{source.name}")
    cmd = [str(AGENT_SDK), "run", "--dir", str(project), "--replay", str(replay)]
    run_checked(cmd, events)  # warm-up: compiles the hooks, discarded
    times = []
    for run in range(runs):
        elapsed_ms, _ = run_checked(cmd, events)
        times.append(elapsed_ms)
        print(f"replay {run + 1}/{runs}: {events} events in {elapsed_ms:.1f} ms", file=sys.stderr)
    return times


def peak_rss_of_process_alone(cmd: list[str]) -> tuple[float, float, str]:
    """Runs cmd and returns (wall ms, peak RSS MB of that process alone, its stderr).

    os.wait4's ru_maxrss is no good here: Linux folds the peak of every child the process
    waited for (the Node.js runtime) into it. VmHWM in /proc/<pid>/status is the process's
    own high-water mark and only grows, so it is read until the process exits."""
    with tempfile.TemporaryFile("w+") as stderr_file:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr_file)
        peak_kb = 0
        while process.poll() is None:
            try:
                status = Path(f"/proc/{process.pid}/status").read_text()
                peak_kb = max(peak_kb, int(status.split("VmHWM:")[1].split()[0]))
            except (OSError, IndexError, ValueError):
                pass  # the process is exiting
            time.sleep(0.002)
        elapsed_ms = (time.perf_counter() - start) * 1000
        stderr_file.seek(0)
        stderr = stderr_file.read()
    if process.returncode != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited with {process.returncode}", stderr)
    return elapsed_ms, peak_kb / 1024, stderr


def replay_memory(tmp: Path, events: int) -> tuple[float, float]:
    replay = tmp / f"events-{events}.jsonl"
    generate_events(replay, events)
    project = copy_project(EXAMPLE, tmp / "memory")
    elapsed_ms, peak_mb, stderr = peak_rss_of_process_alone(
        [str(AGENT_SDK), "run", "--dir", str(project), "--replay", str(replay)])
    dispatched = SUMMARY.search(stderr)
    if not dispatched or int(dispatched.group(1)) != events:
        raise SanityError(f"the memory replay did not dispatch {events} events", stderr)
    print(f"memory replay: {events} events in {elapsed_ms:.1f} ms, peak RSS {peak_mb:.1f} MB", file=sys.stderr)
    return elapsed_ms, peak_mb


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each measurement (default 10)")
    parser.add_argument("--events", type=int, default=10000, help="events in the throughput replay (default 10000)")
    parser.add_argument("--memory-events", type=int, default=100000,
                        help="events in the memory replay (default 100000)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()

    build_release(args.no_build)
    node = node_version()

    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-run-") as tmp:
            cold = cold_vs_node(Path(tmp), args.runs)
            replay_times = replay_throughput(Path(tmp), args.runs, args.events, REPLAY_PROJECT)
            example_times = replay_throughput(Path(tmp), args.runs, args.events, EXAMPLE)
            memory_ms, memory_mb = replay_memory(Path(tmp), args.memory_events)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{os.cpu_count()} cores, node {node}, projects examples/acme-bot and bench/replay-hooks (3 hooks each), "
          f"{args.runs} timed runs each (1 warm-up discarded)\n")

    print("### 1. Cold `agent-sdk run --message hello` vs bare `node -e ''`\n")
    print("| command | median wall ms | min ms | max ms |")
    print("|---|---:|---:|---:|")
    medians = {}
    for name, times in cold.items():
        medians[name] = statistics.median(times)
        print(f"| {name} | {medians[name]:.1f} | {min(times):.1f} | {max(times):.1f} |")
    ratio = medians["agent-sdk run (cold)"] / medians["node -e ''"]
    print(f"\nratio run median / node median: {ratio:.2f}\n")

    replay_median_s = statistics.median(replay_times) / 1000
    throughput = args.events / replay_median_s
    example_median_s = statistics.median(example_times) / 1000
    print(f"### 2. Replay throughput: `agent-sdk run --replay` of {args.events} events (warm compile)\n")
    print("| project (3 hooks each) | median wall ms | min ms | max ms | events/s (N / median, start-up included) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| bench/replay-hooks | {replay_median_s * 1000:.1f} | {min(replay_times):.1f} | {max(replay_times):.1f} "
          f"| {throughput:,.0f} |")
    print(f"| examples/acme-bot (creates a file per turn) | {example_median_s * 1000:.1f} | {min(example_times):.1f} "
          f"| {max(example_times):.1f} | {args.events / example_median_s:,.0f} |")
    print(f"\nevery replay's serve log summary: {args.events} events dispatched\n")

    memory_throughput = args.memory_events / (memory_ms / 1000)
    print(f"### 3. Memory: one `agent-sdk run --replay` of {args.memory_events} events (cold project)\n")
    print("| peak RSS MB (agent-sdk process alone: VmHWM) | wall ms | events/s |")
    print("|---:|---:|---:|")
    print(f"| {memory_mb:.1f} | {memory_ms:.1f} | {memory_throughput:,.0f} |\n")

    print("targets:")
    for label, value, met in [
        (f"cold run / node ratio ≤ {TARGET_RATIO}", f"{ratio:.2f}", ratio <= TARGET_RATIO),
        (f"replay throughput ≥ {TARGET_EVENTS_PER_S:,} events/s", f"{throughput:,.0f} events/s",
         throughput >= TARGET_EVENTS_PER_S),
        (f"peak RSS at {args.memory_events:,} events ≤ {TARGET_PEAK_MB} MB", f"{memory_mb:.1f} MB",
         memory_mb <= TARGET_PEAK_MB),
    ]:
        print(f"- {label}: {value} — {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
