#!/usr/bin/env python3
"""Benchmark: `agent-sdk validate` of N generated hooks beside importing each of them with node and tsx.

What a check that runs the hooks would pay: tsx (pinned in bench/package.json) compiling and
Node importing every hook. In one temporary project of --hooks hooks (bench/validate.py's
generator: two shapes of a small hook, in 100 folders), with the SDK packages written by
`agent-sdk sdk` so that `@cursor/bdk/hooks` resolves under plain Node too:

  (a) agent-sdk validate --dir <project>                     (exit 0: every hook checked)
  (b) node --import tsx <project>/import-all.ts              (one `import` of each hook)
  (c) the same with TSX_DISABLE_CACHE=1                      (tsx compiling every hook, as on
                                                              a fresh CI machine, whose tsx
                                                              cache is empty)

after one discarded warm-up each, --runs times each, taking turns (the order rotating).
Reported: the median wall ms of each, (b) / (a) and (c) / (a), the target being >= 100
(issue 35). (b) runs with tsx's cache filled by the runs before it; `validate` keeps no cache
of its own for these hooks (they import only the SDK, so none is compiled).

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/validate_tsx.py [--hooks 2000] [--runs 5] [--node <path>] [--no-build]

It builds the release binary first unless --no-build, and installs bench/package.json's
packages with `npm ci` when tsx is missing. It prints a markdown report; it exits 1 when a run
fails (with its stderr).
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, REPO, TSX_LOADER, SanityError, build_release, interleaved, node_binary, npm_ci_when_missing, timed
from validate import generate

TARGET = 100


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hooks", type=int, default=2000, help="hooks to generate (default 2000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs of each (default 5)")
    parser.add_argument("--node", type=node_binary, default="node", help="the Node.js to import with (default: node on PATH)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()

    build_release(args.no_build)
    npm_ci_when_missing(REPO / "bench", TSX_LOADER)
    version = subprocess.run([args.node, "--version"], capture_output=True, text=True, check=True).stdout.strip()

    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-tsx-") as tmp:
            project = Path(tmp)
            print(f"generating {args.hooks} hooks in {project}", file=sys.stderr)
            generate(project, args.hooks)
            timed([str(AGENT_SDK), "sdk", "--dir", "."], project)
            hooks = sorted((project / "bot" / "hooks").rglob("*.ts"))
            imports = "".join(f'import "./{hook.relative_to(project).as_posix()}";\n' for hook in hooks)
            (project / "import-all.ts").write_text(imports)
            tsx = [args.node, "--import", TSX_LOADER.as_uri(), "import-all.ts"]
            no_cache = dict(os.environ, TSX_DISABLE_CACHE="1")
            times = interleaved(
                {
                    "agent-sdk validate": lambda: timed([str(AGENT_SDK), "validate", "--dir", "."], project),
                    "node --import tsx": lambda: timed(tsx, project),
                    "node --import tsx, no cache": lambda: timed(tsx, project, no_cache),
                },
                args.runs,
            )
    except SanityError as error:
        print(f"error: {error}\n{error.stderr_tail}", file=sys.stderr)
        return 1

    print(f"\n{args.hooks} generated hooks, {args.runs} runs each (1 warm-up discarded), {os.cpu_count()} cores, "
          f"Node {version}\n")
    print("| command | median wall ms | min ms | max ms |")
    print("|---|---:|---:|---:|")
    for name, runs in times.items():
        print(f"| {name} | {statistics.median(runs):.1f} | {min(runs):.1f} | {max(runs):.1f} |")
    validate = statistics.median(times["agent-sdk validate"])
    print()
    for peer, what in [("node --import tsx", "tsx's cache filled"), ("node --import tsx, no cache", "no tsx cache")]:
        ratio = statistics.median(times[peer]) / validate
        print(f"- importing them with tsx ({what}) / validate: {ratio:.0f} × (target ≥ {TARGET}): "
              f"{'met' if ratio >= TARGET else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
