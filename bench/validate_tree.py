#!/usr/bin/env python3
"""Benchmark: `agent-sdk validate` on a real tree (vercel/ai) beside `oxlint -A all` on the same files.

The row of issue 35: `validate` on a real ~5.8k-file tree, vs oxlint with no rules on the same
files, target ≤ 0.30 ×. The tree is vercel/ai, pinned at TREE_COMMIT; get it with

  git clone https://github.com/vercel/ai /tmp/vercel-ai
  git -C /tmp/vercel-ai checkout ed857f50f112e23930b0c2dd8d532cc8bebbc911

(any checkout or `git archive` of that commit works; `--tree` is its folder, which is only read).

How `validate` is made to check the tree. `validate` checks the hook modules of a project,
every module under `bot/hooks/`, and follows the imports of those that would load. vercel/ai
is no agent project (no `bot/` or `agent/`), so the script makes one in a temporary folder:
`package.json` and `bot/hooks/<the tree's path>` for each file of the tree that `validate`
discovers as a module (SPEC §3: `.ts .mts .cts .js .mjs .cjs`, not `*.test.*`/`*.spec.*`, not
declaration files, not under a dot-folder or `node_modules/`), hard-linked (copied across file
systems). Both tools are then pointed at that one folder:

  (a) agent-sdk validate --dir <project>          (its default output, to /dev/null)
  (b) oxlint -A all -c <empty config> --disable-nested-config bot/hooks   (in <project>)

so they walk the same folder and read the same files, no file being one that only one of them
reads (`.tsx`, tests and `.d.ts` files would be parsed by oxlint and skipped by `validate`;
keeping them out is what makes the files the same). Each of these files is read, parsed and
analysed by `validate` as a hook module: its scope, its default export, `events` and the
guide's lints; none is a `defineHook` hook, so each gets its verdict (mostly
`hooks::no-default-export`), and since none would load, no imports are followed (no module
resolution or compile). That is the per-file work of `validate` on every file, the same
unit oxlint does without rules (parse and semantic). The other ways were weighed: hooks that
import the tree's packages would check only what their entries reach, compile it for Node,
and need the tree's pnpm workspace installed (every `@ai-sdk/*` and `zod` import is otherwise
an error), so the files would not be oxlint's; `validate FILE…` needs the files in a project
all the same, and does the same work on them. Pointing oxlint at the whole checkout (6.3k
files with tests, `.tsx` and `.d.ts`, and the tree's own `.oxlintrc.json`, which needs its
`node_modules`) is not the same files. At TREE_COMMIT that is 4,995 modules (12.1 MB) of the
checkout's 6,302 script files: 464 `.tsx`/`.jsx`, 816 tests, 20 `.d.ts` and 7 in dot-folders
are left out (the issue's "5.8k" is its 5,826 `.ts`, `.js` and `.mjs` files, tests included).
`validate`'s output is timed as a user gets it: its default format, 5,233 findings (the
summary line says them), where oxlint prints its two syntax errors.

Sanity check, before timing: `validate --format json` must report `summary.files` equal to
the files placed and 0 hooks, and every one of those files must carry its own verdict
(`hooks::no-default-export`, `hooks::not-define-hook` or `hooks::parse-error`: what it
says of a module it parsed and found no hook in), so a fast run that skipped files cannot
pass; oxlint must say it linted that many files with 0 rules.

Wall time (time.perf_counter around each process) and peak RSS (ru_maxrss of that child, via
os.wait4) of (a) and (b), and with --baseline BINARY that binary's `validate` too: one
discarded warm-up each, then --runs runs of each taking turns (the order rotating). It prints
a markdown report: medians, min, max, validate / oxlint of the medians against the target,
and with --baseline the median of the paired ratios (this build / baseline).

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/validate_tree.py --tree /tmp/vercel-ai [--runs 10] [--no-build] [--baseline BINARY]

The binary is target/release/agent-sdk, or $AGENT_SDK when set (a copy, say, while the tree
is rebuilt). It builds the release binary first unless --no-build, and installs oxlint (pinned
in bench/package.json) with `npm ci` if bench/node_modules/.bin/oxlint is missing. It exits 1
when the sanity check fails or a run exits with an unexpected status.
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
from pathlib import Path

import common
from common import REPO, build_release, interleaved, measure, npm_ci_when_missing

AGENT_SDK = Path(os.environ.get("AGENT_SDK") or common.AGENT_SDK)
BENCH = REPO / "bench"
OXLINT = BENCH / "node_modules" / ".bin" / "oxlint"
TREE_COMMIT = "ed857f50f112e23930b0c2dd8d532cc8bebbc911"  # vercel/ai, 2026-08-22 ("Version Packages (#19296)")
TARGET_RATIO = 0.30
MODULE_EXTENSIONS = {"ts", "mts", "cts", "js", "mjs", "cjs"}  # src/check/discover.rs
# What `validate` says of a module it parsed and found no hook in: one of these per file placed
# (`hooks::unreadable`, a file not read, is not one).
VERDICTS = {"hooks::no-default-export", "hooks::not-define-hook", "hooks::parse-error"}
# Exit statuses: validate fails on the verdicts above; oxlint on the tree's few syntax errors.
VALIDATE_OK = (1,)
OXLINT_OK = (0, 1)


def kind(name: str) -> str:
    """What `validate`'s discovery makes of a file of this name (SPEC §3.1–3.2): "module", or
    why it is left out."""
    stem, dot, extension = name.rpartition(".")
    if dot and stem and extension in {"tsx", "jsx"}:
        return "test" if stem.endswith((".test", ".spec")) else ".tsx/.jsx"
    if not dot or not stem or name.startswith(".") or extension not in MODULE_EXTENSIONS:
        return "other"
    if extension.endswith("ts") and stem.endswith(".d"):
        return "declaration"
    return "test" if stem.endswith((".test", ".spec")) else "module"


def place_tree(tree: Path, project: Path) -> tuple[list[str], dict[str, int]]:
    """The project: package.json and bot/hooks/<path> for each module of `tree`, linked. Its
    files' paths (relative to the project, with `/`), and how many script files of the tree
    were left out, by why."""
    (project / "package.json").write_text('{"name":"vercel-ai-tree"}\n')
    hooks = project / "bot" / "hooks"
    placed = []
    left_out = {".tsx/.jsx": 0, "test": 0, "declaration": 0, "in a dot-folder or node_modules": 0}
    for folder, folders, files in os.walk(tree):
        skipped = [name for name in folders if name == "node_modules" or name.startswith(".")]
        for name in skipped:
            left_out["in a dot-folder or node_modules"] += sum(
                kind(file) != "other" for _, _, inside in os.walk(Path(folder) / name) for file in inside)
        folders[:] = sorted(set(folders) - set(skipped))
        for name in sorted(files):
            what = kind(name)
            if what != "module":
                if what in left_out:
                    left_out[what] += 1
                continue
            source = Path(folder) / name
            relative = source.relative_to(tree)
            target = hooks / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            try:
                os.link(source, target)
            except OSError:
                shutil.copy2(source, target)
            placed.append(f"bot/hooks/{relative.as_posix()}")
    return placed, left_out


def sanity_check(binary: Path, project: Path, placed: list[str], oxlint_cmd: list[str]) -> bool:
    """validate reports every file placed with its verdict; oxlint lints as many files, no rule."""
    result = subprocess.run([str(binary), "validate", "--dir", ".", "--format", "json"], cwd=project,
                            capture_output=True, text=True)
    try:
        report = json.loads(result.stdout)
        summary = report["summary"]
        judged = {finding["path"] for finding in report["diagnostics"] if finding["code"] in VERDICTS}
    except (json.JSONDecodeError, KeyError, TypeError) as error:
        print(f"sanity check FAILED: cannot read `{binary} validate --format json` ({error!r})\n"
              f"stdout: {result.stdout[:2000]}\nstderr: {result.stderr[-2000:]}", file=sys.stderr)
        return False
    unjudged = sorted(set(placed) - judged)
    counted = summary.get("files") == len(placed) and summary.get("hooks") == 0
    if result.returncode not in VALIDATE_OK or not counted or unjudged:
        print(f"sanity check FAILED ({binary}): exit {result.returncode}, summary {summary}, expected files == "
              f"{len(placed)} and hooks == 0; {len(unjudged)} files without a verdict, e.g. {unjudged[:5]}\n"
              f"stderr: {result.stderr[-2000:]}", file=sys.stderr)
        return False
    codes: dict[str, int] = {}
    for finding in report["diagnostics"]:
        codes[finding["code"]] = codes.get(finding["code"], 0) + 1
    print(f"sanity check ok ({binary}): summary {summary}; findings {dict(sorted(codes.items()))}", file=sys.stderr)

    linted = subprocess.run(oxlint_cmd, cwd=project, capture_output=True, text=True)
    said = re.search(r"on (\d+) files? with (\d+) rules?", linted.stdout)
    if linted.returncode not in OXLINT_OK or not said or said.groups() != (str(len(placed)), "0"):
        print(f"sanity check FAILED: oxlint exit {linted.returncode}, expected `on {len(placed)} files with 0 rules`"
              f"\nstdout: {linted.stdout[-2000:]}\nstderr: {linted.stderr[-2000:]}", file=sys.stderr)
        return False
    print(f"sanity check ok (oxlint): {said.group(0)}", file=sys.stderr)
    return True


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tree", type=Path, required=True, help=f"a checkout of vercel/ai (at {TREE_COMMIT[:12]})")
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each (default 10)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    parser.add_argument("--baseline", type=Path, help="another agent-sdk binary to time beside this build")
    args = parser.parse_args()
    tree = args.tree.resolve()
    if not tree.is_dir():
        sys.exit(f"error: --tree {args.tree} is not a folder")

    build_release(args.no_build)
    npm_ci_when_missing(BENCH, OXLINT)
    oxlint_version = subprocess.run([str(OXLINT), "--version"], capture_output=True, text=True, check=True)
    at = "not a git checkout"
    if (tree / ".git").exists():
        head = subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True)
        at = head.stdout.strip()
        if at != TREE_COMMIT:
            print(f"warning: {tree} is at {at}, not {TREE_COMMIT}: the files differ", file=sys.stderr)

    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-tree-") as tmp:
        project = Path(tmp) / "project"
        project.mkdir()
        placed, left_out = place_tree(tree, project)
        size_mb = sum((project / path).stat().st_size for path in placed) / 1e6
        print(f"placed {len(placed)} modules of {tree} ({size_mb:.1f} MB) under {project}/bot/hooks; left out "
              f"{sum(left_out.values())} script files: {left_out}", file=sys.stderr)
        empty_config = Path(tmp) / "oxlintrc.json"
        empty_config.write_text("{}\n")
        oxlint_cmd = [str(OXLINT), "-A", "all", "-c", str(empty_config), "--disable-nested-config", "bot/hooks"]
        binaries = {"agent-sdk validate": AGENT_SDK}
        if args.baseline:
            binaries["baseline validate"] = args.baseline.resolve()
        if not all(sanity_check(binary, project, placed, oxlint_cmd) for binary in binaries.values()):
            return 1

        kinds = {name: (lambda binary=binary: measure([str(binary), "validate", "--dir", "."], VALIDATE_OK, project))
                 for name, binary in binaries.items()}
        kinds["oxlint -A all"] = lambda: measure(oxlint_cmd, OXLINT_OK, project)
        samples = interleaved(kinds, args.runs)

    checkout = at[:12] if at != "not a git checkout" else at
    print(f"\nvercel/ai ({checkout}; pinned {TREE_COMMIT[:12]}): {len(placed)} modules, {size_mb:.1f} MB, under "
          f"bot/hooks/ of one project (left out, as validate skips them: "
          f"{', '.join(f'{count} {why}' for why, count in left_out.items())}); {args.runs} runs each "
          f"(1 warm-up discarded), {os.cpu_count()} cores, "
          f"oxlint {oxlint_version.stdout.strip().removeprefix('Version: ')}, {AGENT_SDK}\n")
    print("| command | median wall ms | min ms | max ms | peak RSS MB |")
    print("|---|---:|---:|---:|---:|")
    medians = {}
    for name, runs in samples.items():
        times = [ms for ms, _ in runs]
        medians[name] = statistics.median(times)
        peak = max(mb for _, mb in runs)
        print(f"| {name} | {medians[name]:.1f} | {min(times):.1f} | {max(times):.1f} | {peak:.1f} |")
    if args.baseline:
        pairs = [a / b for (a, _), (b, _) in zip(samples["agent-sdk validate"], samples["baseline validate"])]
        print(f"\nthis build / baseline ({args.baseline}), median of {len(pairs)} paired runs: "
              f"{statistics.median(pairs):.3f}")
    ratio = medians["agent-sdk validate"] / medians["oxlint -A all"]
    pairs = [a / b for (a, _), (b, _) in zip(samples["agent-sdk validate"], samples["oxlint -A all"])]
    verdict = "met" if ratio <= TARGET_RATIO else "NOT met"
    print(f"\nvalidate / oxlint -A all, of the medians: **{ratio:.2f}** (median of the paired runs "
          f"{statistics.median(pairs):.2f}); target ≤ {TARGET_RATIO:.2f}: {verdict}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
