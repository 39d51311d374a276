#!/usr/bin/env python3
"""Benchmark: `agent-sdk run --replay` of 10,000 events beside its plain-Node floor, on each Node given.

For each --node (default: `node` on PATH; give it several times to compare majors in one
run), in one temporary copy of bench/replay-hooks (an otel counter, an awaited kv.set per
turn, a "*" handler):

  1. One warm-up replay of a generated session of --events envelopes (bench/run.py's:
     repeated turns of message.received, 4-12 message.appended, message.completed and
     turn.completed), which compiles the hooks into the copy's .agent-sdk/cache/.
  2. The floor's hooks: the code agent-sdk compiled for each hook (`agent-sdk __load-module`
     names its cache file), with its imports pointed at the files the binary resolved them
     to (the SDK's: the runtime's own copy), in discovery order (`agent-sdk info --json`).
  3. --runs rounds (after one discarded), the commands taking turns, their order reversed
     every other round: (a) `agent-sdk run --dir <copy> --replay <file>` with AGENT_SDK_NODE
     set to that Node (every replay appends a new session to the copy's store), (b) with
     --baseline, the same with that binary (an older build) in a copy of its own, and (c)
     that Node running bench/replay-floor.mjs with the events piped into its stdin: the
     same handlers, one event at a time, an in-memory key-value store for the host.

Reported per Node: the median wall ms and events/s (N / median wall s, start-up included)
of each, and agent-sdk / floor (and / baseline) round by round. Sanity checks
(exit 1, with the tail of agent-sdk's serve log): every replay exits 0 and its summary says
N events were dispatched; the floor prints `N events`.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/replay.py [--runs 10] [--events 10000] [--node <path>]… [--baseline <agent-sdk>] [--no-build]

It builds the release binary first unless --no-build and prints a markdown report.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import AGENT_SDK, REPO, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_binary
from run import REPLAY_PROJECT, SUMMARY, generate_events

FLOOR = REPO / "bench" / "replay-floor.mjs"
TARGETS = {"22": 35_000, "24": 50_000}


def timed(cmd: list[str], env: dict[str, str], stdin_path: Path | None = None) -> tuple[float, int, str, str]:
    """Runs cmd once; (wall ms, exit code, stdout, stderr)."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        stdin = stdin_path.open("rb") if stdin_path else subprocess.DEVNULL
        start = time.perf_counter()
        process = subprocess.Popen(cmd, stdin=stdin, stdout=out, stderr=err, env=env)
        code = process.wait()
        elapsed_ms = (time.perf_counter() - start) * 1000
        if stdin_path:
            stdin.close()
        out.seek(0)
        err.seek(0)
        return elapsed_ms, code, out.read(), err.read()


def replay_checked(cmd: list[str], env: dict[str, str], events: int) -> float:
    elapsed_ms, code, _, stderr = timed(cmd, env)
    found = SUMMARY.findall(stderr)
    if code != 0 or not found or int(found[-1]) != events:
        said = found[-1] if found else "no summary line"
        raise SanityError(f"`{' '.join(cmd)}` exited {code}, dispatched {said} (expected 0 and {events})", stderr)
    return elapsed_ms


def floor_checked(cmd: list[str], env: dict[str, str], replay: Path, events: int) -> float:
    elapsed_ms, code, stdout, stderr = timed(cmd, env, replay)
    if code != 0 or stdout.strip() != f"{events} events":
        raise SanityError(f"`{' '.join(cmd)}` exited {code} and said {stdout.strip()!r} (expected {events} events)",
                          stderr)
    return elapsed_ms


def floor_hooks(project: Path, into: Path) -> list[Path]:
    """The code agent-sdk compiled for the project's hooks, in discovery order, as .cjs or
    .mjs files (as compiled) whose imports name the files the binary resolved them to (the
    SDK's: the runtime's copy)."""
    info = subprocess.run([str(AGENT_SDK), "info", "--dir", str(project), "--json"], capture_output=True, text=True,
                          check=True)
    hooks = [project / hook["path"] for agent in json.loads(info.stdout)["agents"] for hook in agent["hooks"]]
    into.mkdir()
    written = []
    for hook in hooks:
        answer = subprocess.run([str(AGENT_SDK), "__load-module", "--dir", str(project), str(hook)],
                                capture_output=True, text=True, check=True)
        manifest = json.loads(answer.stdout)["manifest"]
        module = manifest["modules"][str(hook.resolve())]
        code = Path(module["code"]).read_text()
        # The specifiers the binary resolved for it (the SDK's among them), as absolute paths.
        for specifier, path in manifest["resolutions"].get(str(hook.resolve()), {}).items():
            code = code.replace(json.dumps(specifier), json.dumps(path))
        target = into / f"{hook.stem}.{'cjs' if module['format'] == 'commonjs' else 'mjs'}"
        target.write_text(code)
        written.append(target)
    return written


def node_version(node: str) -> str:
    return subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()


def measure_node(tmp: Path, node: str, runs: int, events: int, replay: Path, baseline: Path | None) -> dict:
    version = node_version(node)
    env = dict(os.environ, AGENT_SDK_NODE=node)
    binaries = {"agent-sdk": AGENT_SDK} | ({"baseline": baseline} if baseline else {})
    rows = {}
    for name, binary in binaries.items():
        project = copy_project(REPLAY_PROJECT, tmp / f"replay-{version}-{name}")
        command = [str(binary), "run", "--dir", str(project), "--replay", str(replay)]
        replay_checked(command, env, events)  # compiles the hooks
        rows[name] = lambda command=command: replay_checked(command, env, events)
        if name == "agent-sdk":
            floor = [node, str(FLOOR), *map(str, floor_hooks(project, tmp / f"floor-{version}"))]
    rows["floor"] = lambda: floor_checked(floor, env, replay, events)
    samples = {name: [] for name in rows}
    for run in range(runs + 1):
        order = list(rows) if run % 2 == 0 else list(reversed(rows))
        timings = {name: rows[name]() for name in order}
        if run > 0:
            for name in rows:
                samples[name].append(timings[name])
            print(f"{version} {run}/{runs}: " + ", ".join(f"{name} {wall:.1f} ms" for name, wall in timings.items()),
                  file=sys.stderr)
    return {"version": version, "samples": samples, "baseline": baseline}


def report(measured: dict, events: int) -> None:
    version = measured["version"]
    walls = measured["samples"]
    rate = {name: events / (statistics.median(times) / 1000) for name, times in walls.items()}
    print(f"\n### Node {version}\n")
    print("| command | median wall ms | min ms | max ms | events/s |")
    print("|---|---:|---:|---:|---:|")
    labels = {"agent-sdk": "agent-sdk run --replay", "baseline": f"the same with the baseline ({measured['baseline']})",
              "floor": "plain Node (bench/replay-floor.mjs)"}
    for name, times in walls.items():
        print(f"| {labels[name]} | {statistics.median(times):.1f} | {min(times):.1f} | {max(times):.1f} "
              f"| {rate[name]:,.0f} |")

    def ratios(other: str) -> str:
        pairs = [ours / theirs for ours, theirs in zip(walls["agent-sdk"], walls[other])]
        return f"median {statistics.median(pairs):.2f} (min {min(pairs):.2f}, max {max(pairs):.2f}, {len(pairs)} rounds)"

    print(f"\nagent-sdk {rate['agent-sdk']:,.0f} ev/s beside plain Node {rate['floor']:,.0f} ev/s; "
          f"agent-sdk / floor round by round: {ratios('floor')}")
    if "baseline" in walls:
        print(f"\nagent-sdk / baseline round by round: {ratios('baseline')}")
    target = TARGETS.get(version.lstrip("v").split(".")[0])
    if target:
        met = "met" if rate["agent-sdk"] >= target else "NOT met"
        print(f"\ntarget ≥ {target:,} ev/s on this major: {rate['agent-sdk']:,.0f} — {met}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed pairs per Node (default 10)")
    parser.add_argument("--events", type=int, default=10000, help="events replayed (default 10000)")
    parser.add_argument("--node", type=node_binary, action="append", help="a node binary (repeatable; default: node on PATH)")
    parser.add_argument("--baseline", type=Path, metavar="AGENT_SDK",
                        help="another agent-sdk binary (an older build) replayed beside this one, in the same rounds")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()
    build_release(args.no_build)
    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-replay-") as tmp:
            replay = Path(tmp) / f"events-{args.events}.jsonl"
            generate_events(replay, args.events)
            measured = [measure_node(Path(tmp), node, args.runs, args.events, replay, args.baseline)
                        for node in args.node or ["node"]]
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1
    print(f"{os.cpu_count()} cores; `--replay` of {args.events:,} events through bench/replay-hooks, "
          f"{args.runs} rounds per Node (1 discarded), the commands taking turns")
    for each in measured:
        report(each, args.events)
    return 0


if __name__ == "__main__":
    sys.exit(main())
