#!/usr/bin/env python3
"""Benchmark: what mounting an extension costs `validate`.

Three commands, timed side by side in the same run, taking turns:

  - without: `agent-sdk validate` of the example project (examples/acme-bot, 3 hooks), which
    is checked statically: no Node.js starts;
  - with one mount: the same project plus `bot/extensions/ci.ts`, mounting a small extension
    kept in the project (`bot/lib/ci.ts`, made with defineExtension, 2 hooks), which
    `validate` must run once in Node to learn its hooks and check its options;
  - the hook runtime's start: `node <the user's cache>/agent-sdk/runtime/<hash>/host.mjs` with
    its channel closed, which starts, registers its module loader and exits: the Node.js
    process a mount is run in, and the floor of running one;
  - node -e '': one bare Node.js start.

And `run --event turn.completed` of the two projects: `run` starts the hook runtime anyway,
and runs the mounts in a Node of their own while that runtime boots.

The mount's cost should be about one Node start. Both projects are copies in a temporary
folder; the warm-up runs (discarded) fill the compile cache, as a project's second
`validate` finds it. Reported: the median wall time of each over --runs runs, and the
mount's cost (with - without) beside one Node start.

Sanity checks (exit 1): every command exits 0, and `validate` says 3 hooks would load
without the mount and 5 with it.

With --baseline BINARY, that binary's `validate` of the project with the mount runs too,
taking turns, and the report adds the median of the paired ratios (this build / baseline).

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/extensions.py [--runs 30] [--no-build] [--baseline BINARY]

It builds the release binary first unless --no-build and prints a markdown report.
"""

import argparse
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from common import AGENT_SDK, REPO, SanityError, build_release, copy_project, node_version, runtime_folder

FACTORY = """import { defineExtension } from "@cursor/bdk/extensions";
import { defineHook } from "@cursor/bdk/hooks";

export default defineExtension((options: { org: string }) => {
  if (typeof options?.org !== "string") throw new Error("ci: `org` must be a string");
  return {
    hooks: {
      triage: defineHook({ events: { "turn.failed"(event) { console.log(options.org, event.data.message); } } }),
      summary: defineHook({ events: { "turn.completed"(event) { console.log(options.org, event.turnId); } } }),
    },
  };
});
"""

NODE_START = "node -e ''"
BASELINE = "baseline validate, one mount"
RUNTIME_START = "the hook runtime's start"

MOUNT = """import ci from "../lib/ci.js";

export default ci({ org: "acme" });
"""


def projects(root: Path) -> tuple[Path, Path]:
    without = copy_project(REPO / "examples" / "acme-bot", root / "without")
    with_mount = copy_project(REPO / "examples" / "acme-bot", root / "with-mount")
    (with_mount / "bot" / "lib").mkdir(parents=True, exist_ok=True)
    (with_mount / "bot" / "lib" / "ci.ts").write_text(FACTORY)
    (with_mount / "bot" / "extensions").mkdir()
    (with_mount / "bot" / "extensions" / "ci.ts").write_text(MOUNT)
    return without, with_mount


def timed(command: list[str], cwd: Path) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    return time.perf_counter() - started, done


def check(done: subprocess.CompletedProcess, hooks: int) -> None:
    said = f"{hooks} hooks would load"
    if done.returncode != 0 or said not in done.stderr + done.stdout:
        raise SanityError(f"validate did not say {said!r} (exit {done.returncode})", done.stdout + done.stderr)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("--no-build", action="store_true")
    parser.add_argument("--baseline", type=Path, help="another agent-sdk binary to time beside this build")
    args = parser.parse_args()
    build_release(args.no_build)
    with tempfile.TemporaryDirectory() as temp:
        without, with_mount = projects(Path(temp))
        # One run first, so that the runtime's files are in the user's cache.
        subprocess.run([str(AGENT_SDK), "run", "--event", "turn.completed"], cwd=with_mount, capture_output=True, check=True)
        commands = {
            "validate, without a mount": ([str(AGENT_SDK), "validate"], without, 3),
            "validate, one mount": ([str(AGENT_SDK), "validate"], with_mount, 5),
            # (`validate` writes nothing into the project; the runtime's files are in the
            # user's cache, see common.runtime_folder.)
            "run --event, without a mount": ([str(AGENT_SDK), "run", "--event", "turn.completed"], without, None),
            "run --event, one mount": ([str(AGENT_SDK), "run", "--event", "turn.completed"], with_mount, None),
            RUNTIME_START: (
                ["bash", "-c", f"node {runtime_folder() / 'host.mjs'} 3</dev/null 4>/dev/null"],
                with_mount,
                None,
            ),
            NODE_START: (["node", "-e", ""], Path(temp), None),
        }
        if args.baseline:
            commands[BASELINE] = ([str(args.baseline), "validate"], with_mount, 5)
        times: dict[str, list[float]] = {name: [] for name in commands}
        try:
            for round_ in range(args.runs + 2):
                for name, (command, cwd, hooks) in commands.items():
                    seconds, done = timed(command, cwd)
                    if hooks is not None:
                        check(done, hooks)
                    elif done.returncode != 0:
                        raise SanityError(f"{name} exited {done.returncode}", done.stdout + done.stderr)
                    if round_ >= 2:
                        times[name].append(seconds)
        except SanityError as error:
            print(f"sanity check failed: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    median = {name: statistics.median(values) * 1000 for name, values in times.items()}
    print(f"`validate` with and without one mount (examples/acme-bot), Node {node_version()}, "
          f"median of {args.runs} runs each, taking turns:\n")
    print("| command | median |")
    print("|---|---|")
    for name, ms in median.items():
        print(f"| {name} | {ms:.1f} ms |")
    cost = median["validate, one mount"] - median["validate, without a mount"]
    run_cost = median["run --event, one mount"] - median["run --event, without a mount"]
    print(
        f"\nThe mount costs validate {cost:.1f} ms: the hook runtime's start is {median[RUNTIME_START]:.1f} ms, "
        f"a bare Node start {median[NODE_START]:.1f} ms. It costs run {run_cost:.1f} ms."
    )
    if args.baseline:
        pairs = [a / b for a, b in zip(times["validate, one mount"], times[BASELINE])]
        print(f"\nthis build / baseline ({args.baseline}), `validate` with the mount, median of "
              f"{len(pairs)} paired runs: {statistics.median(pairs):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
