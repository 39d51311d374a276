#!/usr/bin/env python3
"""Benchmark: what `memoryHook()` costs per turn, from turn 1 to turn 50,000 (and with a long journal).

Two projects, written at bench time into a temporary folder, replayed with
`agent-sdk run --dir <project> --replay <file>`:

  - memory: one hook, `bot/hooks/memory.ts`, exactly as `agent-sdk init` scaffolds it
    (`export default memoryHook()`): one line appended to memory/journal.jsonl per turn;
  - floor: one hook with handlers for the same four events (message.received,
    message.completed, turn.completed, turn.failed) that do nothing: the same events cross
    to Node and are dispatched, so the difference is the memory hook's own work.

The replayed session is generated: N turns of message.received, message.completed and
turn.completed (with result and usage), one session, 3N events.

  1. Turns in one session. For each N of --turns (default 1,000, 10,000 and 50,000), the two
     projects' replays of N turns take turns, --runs times each (after one warm-up of each,
     discarded, which compiles the hooks). Before every replay the project's files/ are
     removed (not timed), so each starts with an empty journal. Reported: the medians of
     each replay's wall time and CPU time (user + system of agent-sdk and of the Node.js
     runtime, which it waits for: os.wait4 counts both; on a shared machine CPU time moves
     less than wall time), the memory hook's cost per turn, (memory - floor) / N, and its
     cost of the turns between two sizes (the difference of the costs over the difference
     of N, so start-up and other fixed costs fall out). A cost that grew with the session (as
     the hook's earlier design, which rewrote a file of the whole session on every event)
     would show here as a per-turn cost rising with N.
  2. A long journal. 1,000 turns replayed onto a journal that already holds J records (J
     from --journal, default 0, 50,000 and 500,000; written by the script before each replay,
     not timed, about 300 bytes a record), beside the floor, --runs times each: the per-turn
     cost must not depend on what the journal already holds.

  3. The lock. What `files.append` does on disk, 100,000 times per row (--appends): open the
     file in append mode, write a 300-byte line, close it, with and without an exclusive
     flock around the write (the host takes one), taking turns in 5 rounds. Reported: the
     median µs per append of each (Python's os calls, so a little above the binary's own).

Sanity checks (exit 1, with the tail of agent-sdk's serve log): every replay exits 0 and
its summary line says 3N events were dispatched, and after every memory replay the journal
holds exactly J + N whole JSON lines, the last one the last turn's.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/memory.py [--runs 5] [--turns 1000,10000,50000] [--journal 0,50000,500000] [--no-build]

It builds the release binary first unless --no-build and prints a markdown report.
"""

import argparse
import fcntl
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timedelta, timezone
from pathlib import Path

from common import AGENT_SDK, STDERR_TAIL_LINES, SanityError, build_release, node_version
from run import SUMMARY

MEMORY_HOOK = """import { memoryHook } from "@cursor/bdk/memory";

export default memoryHook();
"""
FLOOR_HOOK = """import { defineHook } from "@cursor/bdk/hooks";

// The memory hook's four events, handled with nothing done: the floor of dispatching them.
export default defineHook({
  events: {
    "message.received"() {},
    "message.completed"() {},
    "turn.completed"() {},
    "turn.failed"() {},
  },
});
"""
# The turns of the long-journal measurement (2.).
JOURNAL_TURNS = 1_000
JOURNAL = Path(".agent-sdk") / "files" / "deployment" / "memory" / "journal.jsonl"


def write_project(folder: Path, hook_name: str, hook: str) -> Path:
    (folder / "bot" / "hooks").mkdir(parents=True)
    (folder / "package.json").write_text(json.dumps({"name": folder.name, "type": "module"}) + "\n")
    (folder / "bot" / "hooks" / hook_name).write_text(hook)
    return folder


def generate_turns(path: Path, turns: int) -> None:
    """Writes `turns` whole turns of one session as --replay lines: 3 events a turn."""
    start = datetime(2026, 1, 1, tzinfo=timezone.utc)
    with path.open("w") as out:
        for turn in range(turns):
            question = f"Question {turn}: how do I get a refund for order #{10_000 + turn}?"
            reply = f"Refunds for order #{10_000 + turn} are issued within five business days."
            usage = {"inputTokens": 10 + len(question) // 4, "outputTokens": 20, "cacheReadTokens": 0,
                     "cacheWriteTokens": 0}
            events = [("message.received", {"text": question}), ("message.completed", {"text": reply}),
                      ("turn.completed", {"result": reply, "usage": usage})]
            for offset, (event_type, data) in enumerate(events):
                at = start + timedelta(milliseconds=30 * turn + 10 * offset)
                line = {"type": event_type, "turnId": f"turn_{turn:08d}",
                        "at": at.isoformat(timespec="milliseconds").replace("+00:00", "Z"), "data": data}
                out.write(json.dumps(line, separators=(",", ":")) + "\n")


def journal_record(turn: int) -> str:
    """One earlier session's record, as the memory hook writes it (about 300 bytes)."""
    return json.dumps({
        "at": "2025-12-31T23:59:59.000Z", "sessionId": f"ses_earlier{turn:010d}", "channelId": "local",
        "status": "completed", "title": None,
        "userMessage": f"Question {turn}: how do I get a refund for order #{turn}?",
        "result": f"Refunds for order #{turn} are issued within five business days.",
        "usage": {"inputTokens": 24, "outputTokens": 20, "cacheReadTokens": 0, "cacheWriteTokens": 0},
    }, separators=(",", ":")) + "\n"


def reset_files(project: Path, journal_records: int) -> None:
    """Removes the project's ctx.host.files; writes a journal of `journal_records` earlier records."""
    shutil.rmtree(project / ".agent-sdk" / "files", ignore_errors=True)
    if journal_records:
        (project / JOURNAL).parent.mkdir(parents=True)
        with (project / JOURNAL).open("w") as out:
            for turn in range(journal_records):
                out.write(journal_record(turn))


def check_journal(project: Path, expected: int, last_message: str) -> None:
    with (project / JOURNAL).open("rb") as journal:
        data = journal.read()
    lines = data.split(b"\n")
    if lines[-1] != b"" or len(lines) - 1 != expected:
        raise SanityError(f"{project / JOURNAL} holds {len(lines) - 1} lines (whole: {lines[-1] == b''}), "
                          f"expected {expected}")
    last = json.loads(lines[-2])
    if last["userMessage"] != last_message or last["status"] != "completed":
        raise SanityError(f"the journal's last record is {last}, expected the last turn's ({last_message!r})")


def timed_replay(cmd: list[str], events: int) -> tuple[float, float]:
    """Runs a replay; (wall ms, CPU ms): user + system time of agent-sdk and of the Node.js
    runtime it waited for (wait4 counts waited-for children in). Exit 0 and the dispatched
    count are checked."""
    with tempfile.TemporaryFile("w+") as stderr_file:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr_file)
        _, status, usage = os.wait4(process.pid, 0)
        wall_ms = (time.perf_counter() - start) * 1000
        process.returncode = os.waitstatus_to_exitcode(status)
        stderr_file.seek(0)
        stderr = stderr_file.read()
    if process.returncode != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited {process.returncode} (expected 0)", stderr)
    found = SUMMARY.findall(stderr)
    if not found or int(found[-1]) != events:
        raise SanityError(f"`{' '.join(cmd)}`: dispatched {found[-1] if found else 'no summary line'}, "
                          f"expected {events} events", stderr)
    return wall_ms, (usage.ru_utime + usage.ru_stime) * 1000


def replay(project: Path, events_file: Path, turns: int, journal_records: int, memory: bool) -> tuple[float, float]:
    """One timed replay of `turns` turns (the reset before it is not timed): (wall ms, CPU ms)."""
    reset_files(project, journal_records)
    cmd = [str(AGENT_SDK), "run", "--dir", str(project), "--replay", str(events_file)]
    measured = timed_replay(cmd, 3 * turns)
    if memory:
        check_journal(project, journal_records + turns, f"Question {turns - 1}: how do I get a refund for order "
                                                        f"#{10_000 + turns - 1}?")
    return measured


def append_cost_us(folder: Path, appends: int, rounds: int = 5) -> dict[str, float]:
    """Median µs per open + append + close of a 300-byte line, without and with an exclusive flock."""
    line = ("x" * 299 + "\n").encode()
    samples: dict[str, list[float]] = {"without a lock": [], "with flock": []}
    for round_number in range(rounds):
        for name in samples if round_number % 2 == 0 else reversed(list(samples)):
            path = folder / f"append-{round_number}-{name.replace(' ', '-')}.jsonl"
            start = time.perf_counter()
            for _ in range(appends):
                fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_CLOEXEC, 0o644)
                if name == "with flock":
                    fcntl.flock(fd, fcntl.LOCK_EX)
                os.write(fd, line)
                os.close(fd)
            samples[name].append((time.perf_counter() - start) * 1e6 / appends)
            if path.stat().st_size != appends * len(line):
                raise SanityError(f"{path} holds {path.stat().st_size} bytes, expected {appends * len(line)}")
            path.unlink()
    return {name: statistics.median(values) for name, values in samples.items()}


Samples = dict[str, dict[str, list[float]]]  # project → "wall" | "cpu" → ms of each replay


def paired(projects: dict[str, Path], events_file: Path, turns: int, journal_records: int, runs: int,
           label: str) -> Samples:
    """runs + 1 replays of each project, taking turns (which goes first alternates); the first discarded."""
    samples: Samples = {name: {"wall": [], "cpu": []} for name in projects}
    for run in range(runs + 1):
        order = list(projects) if run % 2 == 0 else list(reversed(projects))
        timed = {name: replay(projects[name], events_file, turns, journal_records, name == "memory")
                 for name in order}
        if run > 0:
            for name, (wall, cpu) in timed.items():
                samples[name]["wall"].append(wall)
                samples[name]["cpu"].append(cpu)
        shown = ", ".join(f"{name} {timed[name][0]:.0f} ms ({timed[name][1]:.0f} ms CPU)" for name in projects)
        print(f"{label} {'warm-up' if run == 0 else f'{run}/{runs}'}: {shown}", file=sys.stderr)
    return samples


def median(samples: Samples, project: str, kind: str) -> float:
    return statistics.median(samples[project][kind])


def memory_cost_ms(samples: Samples, kind: str) -> float:
    """What the memory hook added: the medians' difference, memory - floor."""
    return median(samples, "memory", kind) - median(samples, "floor", kind)


def row(first: str, samples: Samples, turns: int) -> str:
    cells = [first, f"{3 * turns:,}"]
    for kind in ("wall", "cpu"):
        cells += [f"{median(samples, 'floor', kind):,.0f}", f"{median(samples, 'memory', kind):,.0f}"]
    cells += [f"{memory_cost_ms(samples, 'wall') * 1000 / turns:,.0f}",
              f"**{memory_cost_ms(samples, 'cpu') * 1000 / turns:,.0f}**"]
    return f"| {' | '.join(cells)} |"


HEADER = ("| {first} | events | floor wall ms | memory wall ms | floor CPU ms | memory CPU ms "
          "| memory's wall µs / turn | memory's CPU µs / turn |\n|---:|---:|---:|---:|---:|---:|---:|---:|")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed replays of each project per size (default 5)")
    parser.add_argument("--turns", default="1000,10000,50000", help="turns of the session replays (default "
                        "1000,10000,50000)")
    parser.add_argument("--journal", default="0,50000,500000", help="records already in the journal before a "
                        f"{JOURNAL_TURNS:,}-turn replay (default 0,50000,500000)")
    parser.add_argument("--appends", type=int, default=100_000, help="appends per row of the lock measurement "
                        "(default 100000)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()
    sizes = [int(value) for value in args.turns.split(",")]
    journals = [int(value) for value in args.journal.split(",")]

    build_release(args.no_build)
    node = node_version()
    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-memory-") as tmp:
            tmp = Path(tmp)
            projects = {"floor": write_project(tmp / "floor", "floor.ts", FLOOR_HOOK),
                        "memory": write_project(tmp / "memory", "memory.ts", MEMORY_HOOK)}
            by_turns = {}
            for turns in sizes:
                events_file = tmp / f"turns-{turns}.jsonl"
                generate_turns(events_file, turns)
                by_turns[turns] = paired(projects, events_file, turns, 0, args.runs, f"{turns:,} turns")
            events_file = tmp / f"turns-{JOURNAL_TURNS}.jsonl"
            generate_turns(events_file, JOURNAL_TURNS)
            by_journal = {records: paired(projects, events_file, JOURNAL_TURNS, records, args.runs,
                                          f"{JOURNAL_TURNS:,} turns onto {records:,} records")
                          for records in journals}
            lock = append_cost_us(tmp, args.appends)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{os.cpu_count()} cores, node {node}; medians of {args.runs} replays of each project "
          "(1 warm-up discarded), the two taking turns\n")
    print("### 1. `memoryHook()` over one session of N turns (empty journal at the start)\n")
    print(HEADER.format(first="turns"))
    for turns, samples in by_turns.items():
        print(row(f"{turns:,}", samples, turns))
    print("\nthe memory hook's cost of the turns between two sizes (the difference of its costs over the "
          "difference of turns: start-up and other fixed costs fall out):\n")
    for (small, fewer), (large, more) in zip(list(by_turns.items()), list(by_turns.items())[1:]):
        per_turn = {kind: (memory_cost_ms(more, kind) - memory_cost_ms(fewer, kind)) * 1000 / (large - small)
                    for kind in ("wall", "cpu")}
        print(f"- turns {small + 1:,} to {large:,}: {per_turn['wall']:,.0f} µs wall, "
              f"**{per_turn['cpu']:,.0f} µs CPU** a turn")
    print(f"\n### 2. {JOURNAL_TURNS:,} turns appended to a journal already holding J records\n")
    print(HEADER.format(first="J (records before)"))
    for records, samples in by_journal.items():
        print(row(f"{records:,}", samples, JOURNAL_TURNS))
    print(f"\n### 3. One append on disk (open, write 300 bytes, close), {args.appends:,} times\n")
    print("| | µs per append (median of 5 rounds) |\n|---|---:|")
    for name, cost in lock.items():
        print(f"| {name} | {cost:.2f} |")
    print(f"\nthe lock costs {lock['with flock'] - lock['without a lock']:.2f} µs an append")
    print(f"\nevery replay dispatched all of its events; after every memory replay the journal held J + N "
          "whole lines, the last turn's last")
    return 0


if __name__ == "__main__":
    sys.exit(main())
