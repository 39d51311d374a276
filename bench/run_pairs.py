#!/usr/bin/env python3
"""Benchmark: one build's warm (or cold) `run --event turn.completed` beside another's, in pairs.

A lever worth 1 to 3 % of a one-event run is below what bench/node.py's rounds can tell apart
on this machine (its cold / floor ratio moves by ±0.05 from one run to the next); pairs can:
each pair runs both builds back to back on copies of examples/acme-bot of their own (the
order alternating), and the median of the pairs' ratios is reported. docs/performance.md's
"alternating pairs" numbers come from this script.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/run_pairs.py --baseline <agent-sdk> [--pairs 60] [--node <path>]… [--cold] [--no-build]

This build is target/release/agent-sdk (built first unless --no-build). --cold removes each
copy's `.agent-sdk/` state before every run (compile, state root, Node); warm keeps it. It
exits 1 when a run fails (with its stderr).
"""

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, REPO, SanityError, build_release, copy_project, node_binary, timed

EXAMPLE = REPO / "examples" / "acme-bot"


def pairs_on(node: str, baseline: Path, pairs: int, cold: bool, tmp: Path) -> None:
    env = dict(os.environ, AGENT_SDK_NODE=node, NO_COLOR="1")
    builds = {"this build": AGENT_SDK, "baseline": baseline}
    copies = {name: copy_project(EXAMPLE, tmp / f"{name.replace(' ', '-')}-{abs(hash(node))}") for name in builds}

    def run(name: str) -> float:
        if cold:
            shutil.rmtree(copies[name] / ".agent-sdk", ignore_errors=True)
        return timed([str(builds[name]), "run", "--dir", ".", "--event", "turn.completed"], copies[name], env)

    for name in builds:  # warm-up, discarded
        run(name)
    times: dict[str, list[float]] = {name: [] for name in builds}
    for index in range(pairs):
        order = list(builds) if index % 2 == 0 else list(reversed(builds))
        for name in order:
            times[name].append(run(name))
    ratios = [this / base for this, base in zip(times["this build"], times["baseline"])]
    quartiles = statistics.quantiles(ratios, n=4)
    version = subprocess.run([node, "--version"], capture_output=True, text=True, check=True).stdout.strip()
    print(f"| {version} | {'cold' if cold else 'warm'} | {statistics.median(times['this build']):.2f} | "
          f"{statistics.median(times['baseline']):.2f} | **{statistics.median(ratios):.3f}** "
          f"({quartiles[0]:.3f}–{quartiles[2]:.3f}) |")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the other agent-sdk build")
    parser.add_argument("--pairs", type=int, default=60, help="pairs per Node (default 60)")
    parser.add_argument("--node", type=node_binary, action="append", help="a node binary (repeatable; default: node on PATH)")
    parser.add_argument("--cold", action="store_true", help="remove the copies' state before every run")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()
    build_release(args.no_build)
    print(f"\n{args.pairs} alternating pairs of `run --event turn.completed` of examples/acme-bot, "
          f"{os.cpu_count()} cores; this build {AGENT_SDK}, baseline {args.baseline}\n")
    print("| Node | run | this build, median ms | baseline, median ms | this / baseline, median of the pairs (quartiles) |")
    print("|---|---|---:|---:|---:|")
    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-pairs-") as tmp:
        try:
            for node in args.node or ["node"]:
                pairs_on(shutil.which(node) or node, args.baseline.resolve(), args.pairs, args.cold, Path(tmp))
        except SanityError as error:
            print(f"error: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
