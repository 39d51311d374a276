#!/usr/bin/env python3
"""Benchmark: a one-event `agent-sdk run` on each Node.js given, beside plain Node and tsx.

For each --node (default: `node` on PATH; give several, e.g. Node 22, 24 and 26 installed
with `npm install node@24`, to compare them), --runs rounds (1 warm-up round discarded), the
commands of a round interleaved and their order rotating by one each round:

  cold      target/release/agent-sdk run --dir <copy> --event turn.completed, where <copy>
            is a fresh copy of examples/acme-bot without .agent-sdk/ (made before the clock
            starts): the hooks' TypeScript compiled into the cache, the state root created,
            Node started, 3 hooks loaded, one turn.completed dispatched to them (the
            runtime's own files are in the user's cache since this binary's first run);
  warm      the same on one copy that has already run (nothing to compile);
  warm, worker  the same as warm with AGENT_SDK_MODULE_HOOKS=worker: the module hooks on
            Node's loader thread (module.register()), the path of Node 20.6-22.14, to show
            what the in-thread hooks (module.registerHooks(), Node >= 22.15) change;
  floor     node <tmp>/floor.mjs, importing the same three compiled hooks (agent-sdk's
            compiled output, copied from the warm copy's cache, their SDK import pointing at
            the runtime's copy of the SDK in the user's cache): what any design that runs
            the hooks in Node costs;
  tsx       node --import tsx <copy>/tsx-peer.ts (tsx pinned in bench/package.json),
            importing the three hooks from their TypeScript sources and dispatching one
            turn.completed to them with the SDK's test kit: what a user would write to run
            their hooks without agent-sdk;
  node -e   node -e '' (Node's own start);
  realistic warm  agent-sdk run --event turn.completed of bench/realistic (9 hooks over zod,
            date-fns, @opentelemetry/api and @slack/webhook, pinned in its
            package-lock.json), on a copy that has already run;
  realistic floor node <copy>/packages.mjs, importing those four packages as the hooks do;
  test      agent-sdk test in a project `agent-sdk init` made (its hook tests, with the test kit);
  tsx --test  node --import tsx --test bot/hooks/usage.test.ts in the same project: the same
            tests through tsx and Node's test runner;
  cold, baseline / warm, baseline  with --baseline AGENT_SDK (another build): cold and warm
            with that binary (a warm copy of its own), to compare two builds in one run.

Wall time is time.perf_counter around each process. Reported per Node: median/min/max ms of
each command, and the median (and spread) of the rounds' ratios, a round's commands running
back to back: cold / floor and warm / floor (target <= 1.3), cold / tsx (target <= 0.5),
warm, worker / warm, realistic warm / realistic floor (target <= 1.15), test / tsx --test
(target <= 0.8), and with --baseline cold / cold, baseline and warm / warm, baseline. The
npm packages (tsx; bench/realistic's) are installed with `npm ci` when missing. It exits 1 only if a command fails (showing its
stderr); otherwise 0, whether or not the targets are met.

  python3 bench/node.py [--node PATH]... [--runs 20] [--no-build] [--baseline AGENT_SDK]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import (AGENT_SDK, REPO, TSX_LOADER, SanityError, build_release, copy_project, node_binary, interleaved,
                    npm_ci_when_missing, runtime_folder, timed)

EXAMPLE = REPO / "examples" / "acme-bot"
COLD_FLOOR_TARGET = 1.3
TSX_TARGET = 0.5

TEST_TARGET = 0.8
REALISTIC = REPO / "bench" / "realistic"
REALISTIC_TARGET = 1.15
REALISTIC_PACKAGES = """\
import "@opentelemetry/api";
import "@slack/webhook";
import "date-fns";
import "zod";
"""

TSX_PEER = """\
import { createTestContext, dispatch, events } from "@cursor/bdk/testing";
import usage from "./bot/hooks/audit/usage.ts";
import pager from "./bot/hooks/pager.ts";
import transcript from "./bot/hooks/transcript.ts";

const ctx = createTestContext();
const event = events["turn.completed"]();
for (const hook of [usage, pager, transcript]) await dispatch(hook, event, ctx);
"""


def floor_script(warm: Path, into: Path) -> Path:
    """floor.mjs importing the warm copy's compiled hooks, their SDK import made a file URL."""
    sdk = (runtime_folder() / "sdk" / "hooks.mjs").as_uri()
    modules = sorted((warm / ".agent-sdk" / "cache").glob("*.js"))
    if len(modules) != 3:
        raise SanityError(f"expected the 3 compiled hooks in {warm}/.agent-sdk/cache, found {len(modules)}")
    lines = []
    for index, module in enumerate(modules):
        code = module.read_text().replace('"@cursor/bdk/hooks"', json.dumps(sdk))
        (into / f"hook{index}.mjs").write_text(code)
        lines.append(f'import "./hook{index}.mjs";')
    script = into / "floor.mjs"
    script.write_text("\n".join(lines) + "\n")
    return script


def bench_node(node: str, runs: int, tmp: Path, baseline: Path | None) -> None:
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    env = dict(os.environ, AGENT_SDK_NODE=node, NO_COLOR="1")
    env.pop("AGENT_SDK_MODULE_HOOKS", None)
    worker_env = dict(env, AGENT_SDK_MODULE_HOOKS="worker")
    base = tmp / version
    base.mkdir()
    warm = copy_project(EXAMPLE, base / "warm")
    run = [str(AGENT_SDK), "run", "--dir", ".", "--event", "turn.completed"]
    timed(run, warm, env)
    floor = floor_script(warm, base)
    peer = copy_project(EXAMPLE, base / "peer")
    timed([str(AGENT_SDK), "sdk", "--dir", "."], peer, env)
    (peer / "tsx-peer.ts").write_text(TSX_PEER)
    realistic = base / "realistic"
    shutil.copytree(REALISTIC, realistic, ignore=shutil.ignore_patterns(".agent-sdk"), symlinks=True)
    timed(run, realistic, env)
    (realistic / "packages.mjs").write_text(REALISTIC_PACKAGES)
    timed([str(AGENT_SDK), "init", "scaffold"], base, env)
    scaffold = base / "scaffold"
    test = [str(AGENT_SDK), "test"]
    tsx_test = [node, "--import", TSX_LOADER.as_uri(), "--test", "bot/hooks/usage.test.ts"]
    cold_copies = iter(range(10**9))

    def cold(command: list[str] = run) -> float:
        copy = copy_project(EXAMPLE, base / f"cold{next(cold_copies)}")
        try:
            return timed(command, copy, env)
        finally:
            shutil.rmtree(copy)

    commands = {
        "cold": cold,
        "warm": lambda: timed(run, warm, env),
        "warm, worker": lambda: timed(run, warm, worker_env),
        "floor": lambda: timed([node, str(floor)], base, env),
        "tsx": lambda: timed([node, "--import", TSX_LOADER.as_uri(), "tsx-peer.ts"], peer, env),
        "node -e": lambda: timed([node, "-e", ""], base, env),
        "realistic warm": lambda: timed(run, realistic, env),
        "realistic floor": lambda: timed([node, "packages.mjs"], realistic, env),
        "test": lambda: timed(test, scaffold, env),
        "tsx --test": lambda: timed(tsx_test, scaffold, env),
    }
    if baseline is not None:
        # The same runs with another build, on a warm copy of its own (its cache files are its own).
        run_baseline = [str(baseline), *run[1:]]
        warm_baseline = copy_project(EXAMPLE, base / "warm-baseline")
        timed(run_baseline, warm_baseline, env)
        commands["cold, baseline"] = lambda: cold(run_baseline)
        commands["warm, baseline"] = lambda: timed(run_baseline, warm_baseline, env)
    names = list(commands)
    samples = interleaved(commands, runs)
    median = {name: statistics.median(samples[name]) for name in names}
    print(f"\n### Node {version} ({runs} rounds, {os.cpu_count()} cores)\n")
    print("| command | median ms | min | max |")
    print("|---|---|---|---|")
    for name in names:
        print(f"| {name} | {median[name]:.1f} | {min(samples[name]):.1f} | {max(samples[name]):.1f} |")
    print()
    def ratio(a: str, b: str) -> str:
        """The median of round-by-round ratios (rounds drift less than the whole run), with its spread."""
        ratios = [x / y for x, y in zip(samples[a], samples[b])]
        return f"{statistics.median(ratios):.2f} ({min(ratios):.2f}-{max(ratios):.2f})"

    print(f"- cold / floor: {ratio('cold', 'floor')} (target <= {COLD_FLOOR_TARGET})")
    print(f"- warm / floor: {ratio('warm', 'floor')}")
    print(f"- cold / tsx: {ratio('cold', 'tsx')} (target <= {TSX_TARGET})")
    print(f"- warm, worker / warm: {ratio('warm, worker', 'warm')}")
    print(f"- floor / node -e: {ratio('floor', 'node -e')}")
    print(f"- realistic warm / realistic floor: {ratio('realistic warm', 'realistic floor')} (target <= {REALISTIC_TARGET})")
    print(f"- test / tsx --test: {ratio('test', 'tsx --test')} (target <= {TEST_TARGET})")
    if baseline is not None:
        print(f"- cold / cold, baseline: {ratio('cold', 'cold, baseline')}")
        print(f"- warm / warm, baseline: {ratio('warm', 'warm, baseline')}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--node", type=node_binary, action="append", help="a node binary (repeatable; default: node on PATH)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--baseline", type=Path, metavar="AGENT_SDK",
                        help="another agent-sdk build: its cold and warm runs take turns with this one's")
    args = parser.parse_args()
    # The peers and the realistic project's packages, from the npm registry, as pinned.
    for folder, installed in [(REPO / "bench", TSX_LOADER), (REALISTIC, REALISTIC / "node_modules" / "zod")]:
        npm_ci_when_missing(folder, installed)
    build_release(args.no_build)
    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-node-") as tmp:
        try:
            for node in args.node or ["node"]:
                bench_node(shutil.which(node) or node, args.runs, Path(tmp), args.baseline)
        except SanityError as error:
            print(f"sanity check failed: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
