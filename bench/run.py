#!/usr/bin/env python3
"""Benchmark: `agent-sdk run` (cold and warm turn, a big dist/, cache reuse, replay throughput, memory).

What it measures, wall time being time.perf_counter around each process and peak RSS the
ru_maxrss of that child alone (via os.wait4), in one run:

  1. Cold and warm run vs bare Node. --runs iterations (1 warm-up of each discarded), the
     four commands interleaved (their order rotates by one each iteration):
     (a) cold: target/release/agent-sdk run --dir <copy> --message "hello", where <copy> is a
         fresh copy of examples/acme-bot without its .agent-sdk/ folder (made before the clock
         starts, deleted after), so every timed run is cold: empty state root, the hooks'
         TypeScript compiled into .agent-sdk/cache/, Node started with agent-sdk's loader
         (module.register()), 3 hooks loaded, the whole turn dispatched;
     (b) warm: the same command on one copy that has already run once before the first
         iteration, so its cache is populated and nothing is compiled (its state root keeps
         growing by one session per run);
     (c) node -e '';
     (d) node --import <tmp>/noop-loader.mjs -e '', where noop-loader.mjs (written at bench
         time) calls module.register() with a resolve hook that only calls nextResolve: the
         least any module.register()-based loader costs on this machine (Node starts its
         loader worker thread).
     Reported: median/min/max ms of each; the ratios of medians cold / node (target <= 1.3),
     cold / node+no-op loader, warm / node and warm / node+no-op loader, and what the no-op
     loader costs over node.
  2. A big dist/. Two copies of examples/acme-bot; into one, dist/ gets 5,000 generated
     files of build output that no hook imports (two builds, esm/ and cjs/, in nested
     folders of .js, .d.ts and .js.map, and a few .ts sources under dist/src/ that import
     the SDK and define hooks). --runs cold runs of each (1 warm-up of each discarded),
     interleaved, alternating which goes first; every run is cold: a copy's .agent-sdk/ is
     moved out of it after each of its runs (not timed; deleted at the end). Reported: median/min/max ms of each and
     the ratio with dist / without (target <= 1.1). After every run both
     caches must hold the same number of entries (nothing under dist/ was compiled).
  3. Cache reuse. A fresh copy of examples/acme-bot is run once (cold); its .agent-sdk/cache/
     is snapshotted (every file's name, size, mtime_ns and inode); it is run again and
     snapshotted again: the snapshots must be equal (the binary writes an entry, by
     temporary file and rename, only when it compiled a module, so an unchanged project
     writes nothing). Then one hook's content is changed (a comment appended to
     bot/hooks/pager.ts) and the project run a third time: exactly one new entry (<hash>.js and <hash>.json) must have
     appeared and no existing file changed. Reported: the entry counts.
  4. Replay throughput. A generated session of --events envelopes (repeated turns of
     message.received, several message.appended, message.completed, turn.completed with
     usage and cost) is replayed with `agent-sdk run --dir <copy> --replay <file>` into one
     copy of a project: 1 warm-up replay discarded (so the compile is warm), then --runs
     timed replays (each appends a new session). The target is measured on
     bench/replay-hooks (an otel counter, an awaited kv write per turn, a "*" handler);
     examples/acme-bot is reported beside it: its transcript hook creates one file per
     turn, so its number mostly measures how fast the disk creates files. Reported: events/s = N / median wall s of
     the whole command, start-up included. Every replay's serve log summary line
     (`summary: <n> events dispatched …`) must say n == N.
     (bench/replay.py measures the same replay beside its plain-Node floor, on each Node
     given.)
  5. Memory at --memory-events replayed events (default 100,000): one replay into a fresh
     copy; peak RSS of the agent-sdk process alone (VmHWM, polled from /proc: wait4's
     ru_maxrss would include the Node.js runtime it waited for), its wall time and events/s.

stdout and stderr go to /dev/null except agent-sdk's stderr (the serve log), which is kept
in a temp file to check and, on failure, show.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/run.py [--runs 10] [--events 10000] [--memory-events 100000] [--no-build]
                      [--baseline <another agent-sdk binary>]

--baseline adds that binary's cold run (interleaved with section 1) and its replay of
bench/replay-hooks (section 4, taking turns with this build's replays, each into a copy of
its own, and reported pair by pair as well: the median of this / baseline over the pairs):
e.g. an older commit's release build, to see what a change costs on the same machine in
the same run.

It builds the release binary first unless --no-build. It prints a markdown report and exits
0, whether or not the timing targets are met; it exits 1 (showing the tail of agent-sdk's
stderr) only if a sanity check fails: an exit code of agent-sdk other than 0 (`run` exits 3
when a hook failed to load, threw or timed out), of node other than 0, a dispatched count
other than the number of replayed events, or a cache check of 2. or 3. that does not hold.
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
from typing import Callable

from common import AGENT_SDK, REPO, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_version

EXAMPLE = REPO / "examples" / "acme-bot"
# Three hooks that do what hooks do without touching the disk per turn: an otel counter,
# an awaited kv write per turn, and a "*" handler that sees every event.
REPLAY_PROJECT = REPO / "bench" / "replay-hooks"
TARGET_RATIO = 1.3
# Files generated into the big dist/ of measurement 2, and its target ratio with / without.
DIST_FILES = 5_000
TARGET_DIST_RATIO = 1.1
TARGET_EVENTS_PER_S = 20_000
TARGET_PEAK_MB = 200
# The rows of measurement 1.
COLD, WARM, NODE, NOOP = ("agent-sdk run (cold)", "agent-sdk run (warm: cache populated)",
                          "node -e ''", "node --import noop-loader.mjs -e ''")
SUMMARY = re.compile(r"summary: (\d+) events? dispatched")
BASELINE_COLD = "baseline agent-sdk run (cold; --baseline)"

# A module.register() loader whose one hook passes every specifier on: the floor of any
# loader registered this way (Node starts a worker thread for the hooks).
NOOP_LOADER = """import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent(
  'export async function resolve(specifier, context, nextResolve) { return nextResolve(specifier, context); }'));
"""

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


def measure(cmd: list[str], stderr_file=None, env: dict[str, str] | None = None) -> tuple[float, float, int]:
    """Runs cmd once (stdout to /dev/null; in `env`, or this process's environment); returns
    (wall ms, peak RSS MB, exit code) of that child."""
    start = time.perf_counter()
    process = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=stderr_file or subprocess.DEVNULL, env=env)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed_ms = (time.perf_counter() - start) * 1000
    process.returncode = code = os.waitstatus_to_exitcode(status)
    return elapsed_ms, usage.ru_maxrss / 1024, code  # ru_maxrss is in KiB on Linux


def run_checked(cmd: list[str], expect_events: int | None = None,
                env: dict[str, str] | None = None) -> tuple[float, float]:
    """measure() with agent-sdk's stderr kept; exit 0 and, if given, the dispatched count are checked."""
    with tempfile.TemporaryFile("w+") as stderr_file:
        elapsed_ms, peak_mb, code = measure(cmd, stderr_file, env)
        stderr_file.seek(0)
        stderr = stderr_file.read()
    if code != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited {code} (expected 0; 3 means a hook misbehaved)", stderr)
    if expect_events is not None:
        found = SUMMARY.findall(stderr)
        if not found or int(found[-1]) != expect_events:
            seen = found[-1] if found else "no summary line"
            raise SanityError(f"`{' '.join(cmd)}`: dispatched {seen}, expected {expect_events} events", stderr)
    return elapsed_ms, peak_mb


def run_command(project: Path, binary: Path = AGENT_SDK) -> list[str]:
    return [str(binary), "run", "--dir", str(project), "--message", "hello"]


def node_checked(cmd: list[str]) -> float:
    """measure() of a node command that must exit 0; returns its wall ms."""
    elapsed_ms, _, code = measure(cmd)
    if code != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited {code} (expected 0)")
    return elapsed_ms


def interleaved(rows: dict[str, Callable[[], float]], runs: int, label: str) -> dict[str, list[float]]:
    """Calls each row's timed function once per iteration, runs + 1 iterations (the first, a
    warm-up, discarded), rotating the order by one each iteration so none always goes first."""
    names = list(rows)
    samples: dict[str, list[float]] = {name: [] for name in names}
    for run in range(runs + 1):
        shift = run % len(names)
        timed = {name: rows[name]() for name in names[shift:] + names[:shift]}
        if run > 0:
            for name in names:
                samples[name].append(timed[name])
            shown = ", ".join(f"{name} {timed[name]:.1f} ms" for name in names)
            print(f"{label} {run}/{runs}: {shown}", file=sys.stderr)
    return samples


def cold_warm_vs_node(tmp: Path, runs: int, baseline: Path | None) -> dict[str, list[float]]:
    loader = tmp / "noop-loader.mjs"
    loader.write_text(NOOP_LOADER)
    warm = copy_project(EXAMPLE, tmp / "warm")
    run_checked(run_command(warm))  # populates its cache; every timed run of it is a later one

    def cold() -> float:
        project = copy_project(EXAMPLE, tmp / "cold")
        elapsed_ms, _ = run_checked(run_command(project))
        shutil.rmtree(project)
        return elapsed_ms

    def baseline_cold() -> float:
        project = copy_project(EXAMPLE, tmp / "baseline-cold")
        elapsed_ms, _ = run_checked(run_command(project, baseline))
        shutil.rmtree(project)
        return elapsed_ms

    rows = {
        COLD: cold,
        WARM: lambda: run_checked(run_command(warm))[0],
        NODE: lambda: node_checked(["node", "-e", ""]),
        NOOP: lambda: node_checked(["node", "--import", str(loader), "-e", ""]),
    }
    if baseline is not None:
        rows[BASELINE_COLD] = baseline_cold
    return interleaved(rows, runs, "cold/warm run")


def generate_dist(project: Path, count: int) -> None:
    """Writes `count` files of build output into project/dist/: two builds (esm/, cjs/) of
    modules in nested folders, each module a .js, a .d.ts and a .js.map, cjs/ marked
    "type": "commonjs" by its own package.json, plus a few .ts sources under src/ that import
    the SDK and define hooks. No hook imports any of it."""
    areas = ["billing", "support", "channels", "tools", "memory", "otel", "kv", "transcript", "retry", "auth"]
    kinds = ["handlers", "internal", "schema", "adapters", "util"]
    modules = (count - 1 - 50) // 3  # 1: cjs/package.json; about 50 .ts sources
    sources = count - 1 - 3 * modules
    dist = project / "dist"
    (dist / "cjs").mkdir(parents=True)
    (dist / "cjs" / "package.json").write_text('{ "type": "commonjs" }\n')
    per_folder = 30
    for index in range(modules):
        folder_index = index // per_folder
        build = "esm" if folder_index % 2 == 0 else "cjs"
        area = areas[(folder_index // 2) % len(areas)]
        kind = kinds[(folder_index // (2 * len(areas))) % len(kinds)]
        folder = dist / build / area / kind
        folder.mkdir(parents=True, exist_ok=True)
        name = f"{area}{kind.capitalize()}{index}"
        source_path = f"../../../../src/{area}/{kind}/{name}.ts"
        # each module imports the one before it in its folder; the first imports the last
        first = folder_index * per_folder
        previous = index - 1 if index > first else min(first + per_folder, modules) - 1
        sibling = f"./{area}{kind.capitalize()}{previous}.js"
        if build == "esm":
            code = (f'import {{ format }} from "{sibling}";\n'
                    f"export function {name}(input, options = {{}}) {{\n"
                    f"  const value = {{ ...options, id: {index}, area: \"{area}\" }};\n"
                    f"  return format ? format(input, value) : [input, value];\n}}\n"
                    f"export const format = (input, value) => `${{input}}:${{value.id}}`;\n"
                    f"//# sourceMappingURL={name}.js.map\n")
        else:
            code = ('"use strict";\nObject.defineProperty(exports, "__esModule", { value: true });\n'
                    f"exports.format = exports.{name} = void 0;\n"
                    f'const sibling = require("{sibling}");\n'
                    f"function {name}(input, options = {{}}) {{\n"
                    f"  return sibling.format(input, {{ ...options, id: {index} }});\n}}\n"
                    f"exports.{name} = {name};\n"
                    f"const format = (input, value) => `${{input}}:${{value.id}}`;\nexports.format = format;\n"
                    f"//# sourceMappingURL={name}.js.map\n")
        (folder / f"{name}.js").write_text(code)
        (folder / f"{name}.d.ts").write_text(
            f"export declare function {name}(input: string, options?: Record<string, unknown>): unknown;\n"
            "export declare const format: (input: string, value: { id: number }) => string;\n")
        (folder / f"{name}.js.map").write_text(json.dumps({
            "version": 3, "file": f"{name}.js", "sourceRoot": "", "sources": [source_path], "names": [],
            "mappings": "AAAA,OAAO,EAAE,MAAM,EAAE,MAAM,IAAI,CAAC;AAC5B,MAAM,UAAU," + "AAAA;" * 4,
        }))
    for index in range(sources):
        folder = dist / "src" / areas[index % len(areas)]
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"hook{index}.ts").write_text(
            'import { defineHook } from "@cursor/bdk/hooks";\n\n'
            "export default defineHook({\n"
            '  events: { "turn.completed"(event, ctx) { '
            f'ctx.host.otel.increment("dist.hook{index}", 1); }} }},\n}});\n')


def cache_files(project: Path) -> dict[str, tuple[int, int, int]]:
    """Every file in the project's .agent-sdk/cache/: name → (size, mtime_ns, inode)."""
    cache = project / ".agent-sdk" / "cache"
    if not cache.is_dir():
        return {}
    stats = {path.relative_to(cache).as_posix(): path.stat() for path in cache.rglob("*") if path.is_file()}
    return {name: (stat.st_size, stat.st_mtime_ns, stat.st_ino) for name, stat in stats.items()}


def code_entries(files: dict[str, tuple[int, int, int]]) -> int:
    return sum(name.endswith(".js") for name in files)


def with_and_without_dist(tmp: Path, runs: int) -> dict[str, list[float]]:
    plain = copy_project(EXAMPLE, tmp / "without-dist")
    big = copy_project(EXAMPLE, tmp / "with-dist")
    generate_dist(big, DIST_FILES)
    written = sum(1 for path in (big / "dist").rglob("*") if path.is_file())
    if written != DIST_FILES:
        raise SanityError(f"generated {written} files into dist/, expected {DIST_FILES}")

    entries: dict[Path, set[int]] = {plain: set(), big: set()}
    used_state = tmp / "used-state"  # renaming is one metadata write; deleting is left to the end
    used_state.mkdir()

    def cold(project: Path) -> float:
        """One timed run; then its state root is moved away, so the next run is cold too."""
        elapsed_ms = run_checked(run_command(project))[0]
        entries[project].add(code_entries(cache_files(project)))
        (project / ".agent-sdk").rename(used_state / f"{project.name}-{len(list(used_state.iterdir()))}")
        return elapsed_ms

    rows = {"without dist/": lambda: cold(plain), f"with dist/ ({DIST_FILES:,} files)": lambda: cold(big)}
    samples = interleaved(rows, runs, "dist")
    # keys differ (a module's path is part of its key), so the counts are compared
    if entries[big] != entries[plain]:
        raise SanityError(f"the cache of the project with dist/ held {sorted(entries[big])} entries after a run, "
                          f"without dist/ {sorted(entries[plain])}: something under dist/ was compiled")
    return samples


def cache_reuse(tmp: Path) -> dict[str, int]:
    project = copy_project(EXAMPLE, tmp / "cache-reuse")
    run_checked(run_command(project))
    first = cache_files(project)
    if not first:
        raise SanityError(f"a cold run wrote nothing into {project / '.agent-sdk' / 'cache'}")
    run_checked(run_command(project))
    second = cache_files(project)
    if second != first:
        changed = sorted(name for name in first.keys() | second.keys() if first.get(name) != second.get(name))
        raise SanityError(f"the second run of an unchanged project wrote into its cache: {', '.join(changed)}")

    hook = project / "bot" / "hooks" / "pager.ts"
    hook.write_text(hook.read_text() + "// changed by bench/run.py\n")
    run_checked(run_command(project))
    third = cache_files(project)
    changed = sorted(name for name in second if third.get(name) != second[name])
    new = sorted(set(third) - set(second))
    keys = {name.rsplit(".", 1)[0] for name in new}
    if changed or len(keys) != 1 or sorted(new) != sorted(f"{key}.{ext}" for key in keys for ext in ("js", "json")):
        raise SanityError(f"after one hook changed: new files {new or 'none'}, changed files {changed or 'none'} "
                          "(expected exactly one new <hash>.js and <hash>.json, nothing changed)")
    print(f"cache reuse: {code_entries(first)} entries after the cold run, unchanged after the second, "
          f"{code_entries(third)} after one hook changed", file=sys.stderr)
    return {"files": len(first), "entries": code_entries(first), "entries_after_change": code_entries(third),
            "new_files": len(new)}


def replay_throughput(tmp: Path, runs: int, events: int, source: Path,
                      baseline: Path | None = None) -> tuple[list[float], list[float] | None]:
    """`runs` timed replays of `source` (one warm-up each discarded); with a `baseline`
    binary, its replays too, into a copy of its own, the two taking turns replay by replay
    (pair by pair: the machine's drift touches both alike). (this build's ms, the baseline's ms or None)."""
    replay = tmp / f"events-{events}.jsonl"
    if not replay.exists():
        generate_events(replay, events)
    binaries = {"this": AGENT_SDK} | ({"baseline": baseline} if baseline else {})
    commands = {}
    for which, binary in binaries.items():
        project = copy_project(source, tmp / f"replay-{source.name}-{which}")
        commands[which] = [str(binary), "run", "--dir", str(project), "--replay", str(replay)]
        run_checked(commands[which], events)  # warm-up: compiles the hooks, discarded
    times = {which: [] for which in commands}
    for run in range(runs):
        for which, cmd in commands.items():
            elapsed_ms, _ = run_checked(cmd, events)
            times[which].append(elapsed_ms)
            print(f"replay {run + 1}/{runs} ({which}): {events} events in {elapsed_ms:.1f} ms", file=sys.stderr)
    return times["this"], times.get("baseline")


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


def print_timings(samples: dict[str, list[float]]) -> dict[str, float]:
    """Prints a markdown table of each row's median/min/max; returns the medians."""
    print("| command | median wall ms | min ms | max ms |")
    print("|---|---:|---:|---:|")
    medians = {}
    for name, times in samples.items():
        medians[name] = statistics.median(times)
        print(f"| {name} | {medians[name]:.1f} | {min(times):.1f} | {max(times):.1f} |")
    return medians


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each measurement (default 10)")
    parser.add_argument("--events", type=int, default=10000, help="events in the throughput replay (default 10000)")
    parser.add_argument("--memory-events", type=int, default=100000,
                        help="events in the memory replay (default 100000)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    parser.add_argument("--baseline", type=Path, metavar="AGENT_SDK",
                        help="another agent-sdk binary (e.g. an older commit's release build) whose cold run and "
                             "replay are measured beside this build's, in the same run")
    args = parser.parse_args()

    build_release(args.no_build)
    node = node_version()

    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-run-") as tmp:
            cold = cold_warm_vs_node(Path(tmp), args.runs, args.baseline)
            dist = with_and_without_dist(Path(tmp), args.runs)
            reuse = cache_reuse(Path(tmp))
            replay_times, baseline_times = replay_throughput(
                Path(tmp), args.runs, args.events, REPLAY_PROJECT, args.baseline)
            example_times, _ = replay_throughput(Path(tmp), args.runs, args.events, EXAMPLE)
            memory_ms, memory_mb = replay_memory(Path(tmp), args.memory_events)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{os.cpu_count()} cores, node {node}, projects examples/acme-bot and bench/replay-hooks (3 hooks each), "
          f"{args.runs} timed runs each (1 warm-up discarded)\n")

    print("### 1. `agent-sdk run --message hello`, cold and warm, vs bare Node and Node with a no-op loader\n")
    medians = print_timings(cold)
    ratio = medians[COLD] / medians[NODE]
    print(f"\nratios of medians: cold / node {ratio:.2f}, cold / node+no-op loader {medians[COLD] / medians[NOOP]:.2f}, "
          f"warm / node {medians[WARM] / medians[NODE]:.2f}, warm / node+no-op loader "
          f"{medians[WARM] / medians[NOOP]:.2f}; the no-op loader alone costs "
          f"{medians[NOOP] - medians[NODE]:.1f} ms over node\n")

    print(f"### 2. Cold `agent-sdk run --message hello` with and without a {DIST_FILES:,}-file dist/\n")
    dist_medians = print_timings(dist)
    without, with_dist = dist_medians.values()
    dist_ratio = with_dist / without
    print(f"\nratio with / without: {dist_ratio:.2f}; both caches hold the same number of entries after a run\n")

    print("### 3. Cache reuse: examples/acme-bot run cold, again unchanged, then after one hook changed\n")
    print(f"- after the cold run: {reuse['entries']} entries ({reuse['files']} files: <hash>.js + <hash>.json)")
    print("- after the second run: the same files, sizes, mtimes and inodes (nothing compiled or written)")
    print(f"- after changing bot/hooks/pager.ts and running again: {reuse['entries_after_change']} entries, "
          f"{reuse['new_files']} new files (one new entry), no existing file changed\n")

    replay_median_s = statistics.median(replay_times) / 1000
    throughput = args.events / replay_median_s
    example_median_s = statistics.median(example_times) / 1000
    print(f"### 4. Replay throughput: `agent-sdk run --replay` of {args.events} events (warm compile)\n")
    print("| project (3 hooks each) | median wall ms | min ms | max ms | events/s (N / median, start-up included) |")
    print("|---|---:|---:|---:|---:|")
    print(f"| bench/replay-hooks | {replay_median_s * 1000:.1f} | {min(replay_times):.1f} | {max(replay_times):.1f} "
          f"| {throughput:,.0f} |")
    print(f"| examples/acme-bot (creates a file per turn) | {example_median_s * 1000:.1f} | {min(example_times):.1f} "
          f"| {max(example_times):.1f} | {args.events / example_median_s:,.0f} |")
    if baseline_times:
        baseline_median_s = statistics.median(baseline_times) / 1000
        print(f"| bench/replay-hooks with the baseline ({args.baseline}) | {baseline_median_s * 1000:.1f} "
              f"| {min(baseline_times):.1f} | {max(baseline_times):.1f} | {args.events / baseline_median_s:,.0f} |")
        pairs = [this / base for this, base in zip(replay_times, baseline_times)]
        print(f"\nthis build / the baseline, replay by replay (they took turns): median {statistics.median(pairs):.3f} "
              f"(min {min(pairs):.3f}, max {max(pairs):.3f}, {len(pairs)} pairs)")
    print(f"\nevery replay's serve log summary: {args.events} events dispatched\n")

    memory_throughput = args.memory_events / (memory_ms / 1000)
    print(f"### 5. Memory: one `agent-sdk run --replay` of {args.memory_events} events (cold project)\n")
    print("| peak RSS MB (agent-sdk process alone: VmHWM) | wall ms | events/s |")
    print("|---:|---:|---:|")
    print(f"| {memory_mb:.1f} | {memory_ms:.1f} | {memory_throughput:,.0f} |\n")

    print("targets:")
    for label, value, met in [
        (f"cold run / node ratio ≤ {TARGET_RATIO}", f"{ratio:.2f}", ratio <= TARGET_RATIO),
        (f"cold run with / without a {DIST_FILES:,}-file dist/ ≤ {TARGET_DIST_RATIO}", f"{dist_ratio:.2f}",
         dist_ratio <= TARGET_DIST_RATIO),
        ("second run of an unchanged project transforms nothing", "0 cache files written", True),
        (f"replay throughput ≥ {TARGET_EVENTS_PER_S:,} events/s", f"{throughput:,.0f} events/s",
         throughput >= TARGET_EVENTS_PER_S),
        (f"peak RSS at {args.memory_events:,} events ≤ {TARGET_PEAK_MB} MB", f"{memory_mb:.1f} MB",
         memory_mb <= TARGET_PEAK_MB),
    ]:
        print(f"- {label}: {value} — {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
