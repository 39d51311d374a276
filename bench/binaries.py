#!/usr/bin/env python3
"""Benchmark: two agent-sdk binaries side by side on the commands every user starts often.

For the released binary (scripts/release-build) against another build (--baseline, e.g. a
`target/release/agent-sdk` of an older commit), in turns after a discarded warm-up (the
order rotating each round), --runs times each: `--version`, `validate` of examples/acme-bot,
and `run --event turn.completed` on a copy of it that has run once (with --node, or node on
PATH). Reported: the median wall ms of each and released / baseline.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/binaries.py --baseline <agent-sdk> [--released <agent-sdk>] [--runs 40] [--node <path>]

Without --released it builds the released binary with scripts/release-build first.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import REPO, copy_project, node_binary, interleaved, timed


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", type=Path, required=True, help="the agent-sdk binary to compare with")
    parser.add_argument("--released", type=Path, help="the released binary (default: build it)")
    parser.add_argument("--runs", type=int, default=40, help="timed runs of each (default 40)")
    parser.add_argument("--node", type=node_binary, default="node", help="the Node.js `run` starts (default: node on PATH)")
    args = parser.parse_args()

    released = args.released or REPO / subprocess.run(
        [str(REPO / "scripts" / "release-build")], capture_output=True, text=True, check=True
    ).stdout.strip()
    env = dict(os.environ, AGENT_SDK_NODE=args.node)
    binaries = {"baseline": args.baseline.resolve(), "released": Path(released).resolve()}
    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-binaries-") as tmp:
        project = copy_project(REPO / "examples" / "acme-bot", Path(tmp) / "acme-bot")
        commands = {
            "--version": ["--version"],
            "validate": ["validate"],
            "run --event turn.completed, warm": ["run", "--event", "turn.completed"],
        }
        print(f"| command ({args.runs} runs of each) | baseline, median ms | released, median ms | released / baseline |")
        print("|---|---:|---:|---:|")
        for label, tail in commands.items():
            kinds = {name: (lambda binary=binary: timed([str(binary), *tail], project, env)) for name, binary in binaries.items()}
            times = interleaved(kinds, args.runs)
            base, rel = statistics.median(times["baseline"]), statistics.median(times["released"])
            print(f"| `{label}` | {base:.1f} | {rel:.1f} | {rel / base:.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
