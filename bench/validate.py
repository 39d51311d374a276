#!/usr/bin/env python3
"""Benchmark: `agent-sdk validate` against `oxlint` on a generated project of N hooks.

What it measures: wall time (time.perf_counter around each process) and peak RSS
(ru_maxrss of that child alone, via os.wait4) of

  (a) target/release/agent-sdk validate --dir <project>       (stdout to /dev/null)
  (b) bench/node_modules/.bin/oxlint <project>/bot             (default rules, no config)

run alternately, one warm-up run of each discarded, then --runs runs of each. The project
(`package.json` + N small hooks under bot/hooks/gen/g<k>/) is generated in a temp dir and
first validated once with `--format json` as a sanity check (exit 0, summary.hooks == N).

With --realistic, the project is bench/realistic instead (nine hooks importing zod,
date-fns, @opentelemetry/api and @slack/webhook, installed with `npm ci --prefix
bench/realistic` when missing): what `validate` reads of real packages to link their
imports. With --baseline BINARY, that binary's `validate` runs too, interleaved, and the
report adds the median of the per-run ratios (this build / baseline). With --staged K, two
more commands run interleaved: `validate <K files>` (what a pre-commit hook runs on K staged
hooks, spread over the project) and `oxlint <the same K files>`, the peer's pre-commit run.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/validate.py [--hooks 10000] [--runs 10] [--no-build] [--realistic] [--baseline BINARY] [--staged K]

It builds the release binary first unless --no-build, and installs oxlint (pinned in
bench/package.json) with `npm ci` if bench/node_modules/.bin/oxlint is missing. It prints a
markdown report and exits 0; it exits 1 only if the sanity check fails.
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, REPO, build_release, measure, npm_ci_when_missing

BENCH = REPO / "bench"
OXLINT = BENCH / "node_modules" / ".bin" / "oxlint"
REALISTIC = BENCH / "realistic"
SUBFOLDERS = 100
TARGET_MEDIAN_MS = 150
TARGET_PEAK_MB = 150
TARGET_RATIO = 1.0

# Two shapes of a realistic small hook, alternated so no two files are identical; each
# meters live sessions only, as the Hooks guide advises, so no lint reports them.
HOOK_SHAPES = [
    """import {{ defineHook }} from "@cursor/bdk/hooks";

export default defineHook({{
  events: {{
    "turn.completed"(event, ctx) {{
      if (ctx.session.purpose === "eval") return;
      ctx.host.otel.increment("bench.tokens.{i}", event.data.usage?.outputTokens ?? 0);
    }},
    "turn.failed": async (event, ctx) => {{
      await ctx.host.kv.set("last-failure-{i}", event.data.message);
    }},
  }},
}});
""",
    """import {{ defineHook }} from "@cursor/bdk/hooks";

export default defineHook({{
  events: {{
    "message.completed"(event, ctx) {{
      if (ctx.session.purpose === "eval") return;
      ctx.host.otel.increment("bench.chars.{i}", event.data.text.length);
    }},
    "action.result": async (event, ctx) => {{
      if (event.data.isError) {{
        await ctx.host.kv.set("failed-tool-{i}", event.data.toolName);
      }}
    }},
  }},
}});
""",
]


def generate(root: Path, hooks: int) -> None:
    (root / "package.json").write_text('{"name":"bench-bot"}\n')
    for i in range(hooks):
        folder = root / "bot" / "hooks" / "gen" / f"g{i % SUBFOLDERS}"
        folder.mkdir(parents=True, exist_ok=True)
        (folder / f"hook{i}.ts").write_text(HOOK_SHAPES[i % len(HOOK_SHAPES)].format(i=i))


def sanity_check(project: Path, hooks: int) -> bool:
    cmd = [str(AGENT_SDK), "validate", "--dir", str(project), "--format", "json"]
    result = subprocess.run(cmd, capture_output=True, text=True)
    try:
        summary = json.loads(result.stdout)["summary"]
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        print(f"sanity check FAILED: cannot read summary from --format json ({error!r})", file=sys.stderr)
        print(f"stdout (first 2000 chars):\n{result.stdout[:2000]}\nstderr:\n{result.stderr[:2000]}", file=sys.stderr)
        return False
    if result.returncode != 0 or summary.get("hooks") != hooks:
        print(f"sanity check FAILED: exit {result.returncode}, summary {summary}, expected hooks == {hooks}", file=sys.stderr)
        print(f"stdout (first 2000 chars):\n{result.stdout[:2000]}\nstderr:\n{result.stderr[:2000]}", file=sys.stderr)
        return False
    print(f"sanity check ok: exit 0, summary {summary}", file=sys.stderr)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hooks", type=int, default=10000, help="hooks to generate (default 10000)")
    parser.add_argument("--runs", type=int, default=10, help="timed runs per tool (default 10)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    parser.add_argument("--realistic", action="store_true", help="validate bench/realistic instead of generated hooks")
    parser.add_argument("--baseline", type=Path, help="another agent-sdk binary to time beside this build")
    parser.add_argument("--staged", type=int, metavar="K", help="also time validate and oxlint of K hook files")
    args = parser.parse_args()

    build_release(args.no_build)
    npm_ci_when_missing(BENCH, OXLINT)
    oxlint_version = subprocess.run([str(OXLINT), "--version"], capture_output=True, text=True, check=True)

    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-") as tmp:
        if args.realistic:
            project = REALISTIC
            args.hooks = len(list((project / "bot" / "hooks").glob("*.ts")))
            if not (project / "node_modules").is_dir():
                print("installing bench/realistic's packages with npm ci", file=sys.stderr)
                subprocess.run(["npm", "ci", "--prefix", str(project), "--no-audit", "--no-fund"], check=True)
        else:
            project = Path(tmp)
            print(f"generating {args.hooks} hooks in {project}", file=sys.stderr)
            generate(project, args.hooks)
        if not sanity_check(project, args.hooks):
            return 1

        tools = {
            "agent-sdk validate": ([str(AGENT_SDK), "validate", "--dir", str(project)], (0,)),
            "oxlint": ([str(OXLINT), str(project / "bot")], (0, 1)),
        }
        if args.staged:
            hooks = sorted((project / "bot" / "hooks").rglob("*.ts"))
            step = max(1, len(hooks) // args.staged)
            staged = [str(hook) for hook in hooks[::step][: args.staged]]
            tools[f"agent-sdk validate {len(staged)} files"] = ([str(AGENT_SDK), "validate", *staged], (0,))
            tools[f"oxlint {len(staged)} files"] = ([str(OXLINT), *staged], (0, 1))
        if args.baseline:
            tools["baseline validate"] = ([str(args.baseline), "validate", "--dir", str(project)], (0,))
        for cmd, ok_codes in tools.values():  # warm-up, discarded
            measure(cmd, ok_codes)
        samples: dict[str, list[tuple[float, float]]] = {name: [] for name in tools}
        for run in range(args.runs):  # interleaved: a, b, a, b, ...
            for name, (cmd, ok_codes) in tools.items():
                samples[name].append(measure(cmd, ok_codes))
            print(f"run {run + 1}/{args.runs} done", file=sys.stderr)

    stats = {}
    print(f"\nN = {args.hooks} hooks, {args.runs} warm runs each (1 warm-up discarded), "
          f"{os.cpu_count()} cores, oxlint {oxlint_version.stdout.strip().removeprefix('Version: ')}\n")
    print("| tool | median wall ms | min ms | max ms | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    for name, runs in samples.items():
        times = [ms for ms, _ in runs]
        stats[name] = (statistics.median(times), max(mb for _, mb in runs))
        print(f"| {name} | {stats[name][0]:.1f} | {min(times):.1f} | {max(times):.1f} | {stats[name][1]:.1f} |")

    if args.baseline:
        pairs = [a / b for (a, _), (b, _) in zip(samples["agent-sdk validate"], samples["baseline validate"])]
        print(f"\nthis build / baseline ({args.baseline}), median of {len(pairs)} paired runs: "
              f"{statistics.median(pairs):.3f}")
    median, peak = stats["agent-sdk validate"]
    ratio = median / stats["oxlint"][0]
    print(f"\nratio agent-sdk median / oxlint median: {ratio:.2f}\n")
    print("targets:")
    for label, value, met in [
        (f"validate median ≤ {TARGET_MEDIAN_MS} ms", f"{median:.1f} ms", median <= TARGET_MEDIAN_MS),
        (f"validate peak RSS ≤ {TARGET_PEAK_MB} MB", f"{peak:.1f} MB", peak <= TARGET_PEAK_MB),
        (f"ratio ≤ {TARGET_RATIO}", f"{ratio:.2f}", ratio <= TARGET_RATIO),
    ]:
        print(f"- {label}: {value} — {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
