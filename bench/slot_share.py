#!/usr/bin/env python3
"""What the handler slot costs a replay: the same binary, its runtime bundle rewritten.

The handler slot (host.mjs's top: one `pwrite` of 24 bytes before each handler) is what lets
agent-sdk name a handler that never yields, or the one a crash cut off, and start a fresh
runtime at the next: "each event reaches a hook at most once". This script measures its
share of a `--replay` of --events events through bench/replay-hooks, as docs/performance.md
reports it ("What stands between a replay and half the floor"). The binary writes its runtime
files into a cache of this script's own (XDG_CACHE_HOME); the script then swaps that copy's
host.mjs, before each run, for one of:

  per handler   the bundle as built;
  per event     the slot written at an event's first handler only (what naming only the
                event, not the handler, would cost);
  idle only     the slot written only when a lane goes idle (no record before a handler).

The variants take turns (the order reversed every other round, 1 warm-up round discarded),
each with NODE_DISABLE_COMPILE_CACHE=1 (a swapped bundle would miss the cache for one and not
another). Each run must dispatch every event. Prints the median wall ms of each and the
median of its ratios to "per handler", round by round. Nothing outside the temporary folder
is written, and the binary is not changed.

  python3 bench/slot_share.py [--node PATH] [--runs 13] [--events 10000] [--no-build]
"""

import argparse
import os
import statistics
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, SanityError, build_release, copy_project, node_binary, runtime_folder
from replay import replay_checked
from run import REPLAY_PROJECT, generate_events

# The bundle's slot writer, and what each variant puts at its start (`kind` 0 is idle).
SLOT_RUNNING = "function slotRunning(lane, seq, hook, which) {"
WRITE_SLOT = "function writeSlot(lane, kind, seq, hook) {"
VARIANTS = {
    "per handler": None,
    "per event": (SLOT_RUNNING, "  if (lane.lastSlotSeq === seq) return;\n  lane.lastSlotSeq = seq;"),
    "idle only": (WRITE_SLOT, "  if (kind !== 0) return;"),
}


def variant(bundle: str, change: tuple[str, str] | None) -> str:
    if change is None:
        return bundle
    anchor, first_lines = change
    if bundle.count(anchor) != 1:
        raise SanityError(f"the runtime bundle no longer holds {anchor!r} once: update VARIANTS")
    return bundle.replace(anchor, f"{anchor}\n{first_lines}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--node", type=node_binary, default="node", help="the node binary (default: node on PATH)")
    parser.add_argument("--runs", type=int, default=13)
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    build_release(args.no_build)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"), AGENT_SDK_NODE=args.node,
                   NODE_DISABLE_COMPILE_CACHE="1")
        replay = tmp / "events.jsonl"
        generate_events(replay, args.events)
        project = copy_project(REPLAY_PROJECT, tmp / "replay")
        cmd = [str(AGENT_SDK), "run", "--dir", str(project), "--replay", str(replay)]
        samples: dict[str, list[float]] = {name: [] for name in VARIANTS}
        try:
            replay_checked(cmd, env, args.events)  # installs the runtime, compiles the hooks
            host = runtime_folder(env) / "host.mjs"
            bundles = {name: variant(host.read_text(), change) for name, change in VARIANTS.items()}
            for run in range(args.runs + 1):
                order = list(VARIANTS) if run % 2 == 0 else list(reversed(VARIANTS))
                for name in order:
                    host.write_text(bundles[name])
                    wall = replay_checked(cmd, env, args.events)
                    if run > 0:
                        samples[name].append(wall)
                print(f"{run}/{args.runs}: " + ", ".join(f"{name} {samples[name][-1]:.1f} ms" for name in VARIANTS)
                      if run > 0 else "warm-up", file=sys.stderr)
        except SanityError as error:
            print(f"error: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    base = samples["per handler"]
    print(f"\n`--replay` of {args.events} events through bench/replay-hooks, {args.runs} rounds\n")
    print("| slot written | median wall ms | / per handler, round by round |")
    print("|---|---:|---:|")
    for name, walls in samples.items():
        ratio = statistics.median(wall / before for wall, before in zip(walls, base))
        print(f"| {name} | {statistics.median(walls):.1f} | {ratio:.3f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
