#!/usr/bin/env python3
"""Benchmark: a computed `import()` (a module no string literal imports), its first call and
the calls after it.

A project is generated: a hook whose "*" handler imports a plugin by a name computed at run
time through a tsconfig `paths` alias (`await import(`@plugins/${name}.js`)`: Node cannot
resolve it, so the runtime asks agent-sdk for it), timing each `await import(...)` with
performance.now() in the hook and writing the milliseconds to a file; the plugin imports
--modules generated TypeScript modules (default 1,500, a big plugin). Each binary replays
--events events (default 20) through it with `agent-sdk run --replay`: the first event's
import asks agent-sdk, compiles (cold) or finds in the cache (warm) and loads the plugin;
every later one imports the same specifier again. Each event then imports the same module
by a path Node resolves itself (`../plugins/big.ts`): the floor, what a second import of an
already loaded module costs in Node with agent-sdk's module hooks, agent-sdk never asked.
With --floor-first that import comes first in each handler (the first import a handler
makes waits for Node's loader thread to wake; on Node 20 the module hooks run there), and
the first call column is then the computed import of a module already loaded.

For each binary (this build, and --baseline's), --runs times (after one warm-up), the
binaries taking turns:
  - cold: a fresh copy of the project (empty .agent-sdk/: the plugin's modules are compiled
    at the first call);
  - warm: a copy that ran once before (the first call finds every module in the cache).
Reported: the first call (median/min/max ms over the runs) and the later calls (median,
90th percentile and max ms over every later call of every run), and the whole command's
wall time.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/on_demand.py [--runs 5] [--events 20] [--modules 1500] [--no-build]
                             [--baseline <another agent-sdk binary>] [--floor-first]

It builds the release binary first unless --no-build. It exits 1 (showing the tail of
agent-sdk's stderr) if a run does not exit 0, or dispatches other than --events events, or a
hook records other than one time per event.
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
from pathlib import Path

from common import AGENT_SDK, SanityError, build_release, node_version

SUMMARY = re.compile(r"summary: (\d+) events? dispatched")

HOOK = """import { defineHook } from "@cursor/bdk/hooks";
import { appendFileSync } from "node:fs";

const name = "big";

export default defineHook({
  events: {
    async "*"() {
      // The floor: the same module by a path Node resolves itself (first with --floor-first).
      const floorFirst = process.env.BENCH_FLOOR_FIRST === "1";
      let start = performance.now();
      const first: unknown = floorFirst ? await import(`../plugins/${name}.ts`) : undefined;
      const floorBefore = performance.now() - start;
      start = performance.now();
      const plugin: { total: number } = await import(`@plugins/${name}.js`);
      const asked = performance.now() - start;
      if (plugin.total !== Number(process.env.BENCH_MODULES)) throw new Error(`total ${plugin.total}`);
      start = performance.now();
      const same: unknown = floorFirst ? first : await import(`../plugins/${name}.ts`);
      const floor = floorFirst ? floorBefore : performance.now() - start;
      if (same !== plugin) throw new Error("another instance");
      appendFileSync(process.env.BENCH_RECORD!, `${asked} ${floor}\\n`);
    },
  },
});
"""


def write_project(root: Path, modules: int) -> None:
    (root / "bot" / "hooks").mkdir(parents=True)
    (root / "bot" / "plugins" / "big").mkdir(parents=True)
    (root / "package.json").write_text(json.dumps({"name": "on-demand-bench", "type": "module"}))
    (root / "tsconfig.json").write_text(json.dumps(
        {"compilerOptions": {"module": "nodenext", "strict": True, "paths": {"@plugins/*": ["./bot/plugins/*"]}}}))
    (root / "bot" / "hooks" / "plugins.ts").write_text(HOOK)
    lines = []
    for index in range(modules):
        (root / "bot" / "plugins" / "big" / f"part-{index}.ts").write_text(
            f"export const part: number = 1;\nexport function describe(): string {{ return \"part {index}\"; }}\n")
        lines.append(f'import {{ part as p{index} }} from "./big/part-{index}.js";')
    total = " + ".join(f"p{index}" for index in range(modules))
    lines.append(f"export const total: number = {total};")
    (root / "bot" / "plugins" / "big.ts").write_text("\n".join(lines) + "\n")


def write_replay(path: Path, events: int) -> None:
    line = json.dumps({"type": "message.received", "data": {"text": "hi"}})
    path.write_text("\n".join([line] * events) + "\n")


def run_once(binary: Path, project: Path, replay: Path, events: int, modules: int,
             floor_first: bool = False) -> tuple[float, list[list[float]]]:
    """Replays into `project`: the command's wall ms and the hook's import times, per event
    [through the alias, by a path Node resolves]."""
    record = project / "times.txt"
    record.unlink(missing_ok=True)
    env = {**os.environ, "BENCH_RECORD": str(record), "BENCH_MODULES": str(modules), "NO_COLOR": "1",
           "BENCH_FLOOR_FIRST": "1" if floor_first else "0"}
    env.pop("NODE_OPTIONS", None)
    started = time.perf_counter()
    done = subprocess.run([str(binary), "run", "--dir", str(project), "--replay", str(replay)],
                          stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=env)
    wall = (time.perf_counter() - started) * 1000
    if done.returncode != 0:
        raise SanityError(f"{binary} exited {done.returncode}", done.stderr)
    found = SUMMARY.search(done.stderr)
    if not found or int(found.group(1)) != events:
        raise SanityError(f"{binary}: not {events} events dispatched", done.stderr)
    times = [[float(ms) for ms in line.split()] for line in record.read_text().splitlines()]
    if len(times) != events:
        raise SanityError(f"{binary}: {len(times)} import times for {events} events", done.stderr)
    return wall, times


def measure(binaries: dict[str, Path], template: Path, tmp: Path, runs: int, events: int, modules: int,
            floor_first: bool) -> dict:
    replay = tmp / "events.jsonl"
    write_replay(replay, events)
    results = {name: {"cold": [], "warm": []} for name in binaries}
    warm_copies = {}
    for name, binary in binaries.items():
        warm_copies[name] = tmp / f"warm-{name}"
        shutil.copytree(template, warm_copies[name])
        run_once(binary, warm_copies[name], replay, events, modules, floor_first)
    for iteration in range(runs + 1):
        order = list(binaries) if iteration % 2 == 0 else list(reversed(binaries))
        for name in order:
            cold = tmp / f"cold-{name}-{iteration}"
            shutil.copytree(template, cold)
            measured = {"cold": run_once(binaries[name], cold, replay, events, modules, floor_first),
                        "warm": run_once(binaries[name], warm_copies[name], replay, events, modules, floor_first)}
            shutil.rmtree(cold)
            if iteration > 0:
                for kind, result in measured.items():
                    results[name][kind].append(result)
    return results


def report(results: dict, runs: int, events: int, modules: int, floor_first: bool) -> None:
    order = "the floor's import first, then the computed one" if floor_first else "the computed import first"
    print(f"Computed `import()` of a plugin of {modules:,} modules, once per event, {events} events "
          f"(`run --replay`), {runs} runs of each after a warm-up, {order} in each handler; "
          f"Node {node_version()}.\n")
    print("| binary | cache | first call: median (min–max) | later calls: median, 90th percentile, max "
          "| the floor, later calls by a path Node resolves itself: the same | whole command, median |")
    print("|---|---|---:|---:|---:|---:|")
    for name, kinds in results.items():
        for kind, measured in kinds.items():
            firsts = [times[0][0] for _, times in measured]
            walls = [wall for wall, _ in measured]
            print(f"| {name} | {kind} | {statistics.median(firsts):.1f} ms ({min(firsts):.1f}–{max(firsts):.1f}) "
                  f"| {spread(measured, 0)} | {spread(measured, 1)} | {statistics.median(walls):.0f} ms |")


def spread(measured: list, column: int) -> str:
    """Median, 90th percentile and max of `column` over every call after the first."""
    laters = sorted(times[column] for _, per_event in measured for times in per_event[1:])
    p90 = laters[int(0.9 * (len(laters) - 1))]
    return f"{statistics.median(laters):.3f} ms, {p90:.3f} ms, {max(laters):.3f} ms"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--events", type=int, default=20)
    parser.add_argument("--modules", type=int, default=1500)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--baseline", type=Path)
    parser.add_argument("--floor-first", action="store_true")
    args = parser.parse_args()
    build_release(args.no_build)
    binaries = {"this build": AGENT_SDK}
    if args.baseline:
        binaries["baseline"] = args.baseline.resolve()
    with tempfile.TemporaryDirectory(prefix="agent-sdk-on-demand-") as tmp:
        template = Path(tmp) / "project"
        write_project(template, args.modules)
        try:
            results = measure(binaries, template, Path(tmp), args.runs, args.events, args.modules, args.floor_first)
        except SanityError as error:
            print(f"sanity check failed: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    report(results, args.runs, args.events, args.modules, args.floor_first)
    return 0


if __name__ == "__main__":
    sys.exit(main())
