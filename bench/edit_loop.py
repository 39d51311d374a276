#!/usr/bin/env python3
"""The edit-one-library-line → tests-run loop: how long after a one-line change to a
library file the unit tests, and then one integration test, have run again.

Each round appends a comment line to a leaf library file (its text changes, so cargo
rebuilds the crate and every test binary that links it) and times, one after the other:

- `cargo test --lib -q` (the unit tests: build, link, run);
- `cargo test --test it -q -- floors::` (the integration binary: build, link, run a few).

The file is put back as it was at the end. `--tree DIR` measures another checkout (another
commit's), so two trees can be timed alternately in the same run:

    python3 bench/edit_loop.py --runs 5 --tree . --tree ../before

Each tree is built once before it is timed (`cargo test --no-run`), so a round pays only for
the edit. The file edited is the first of `--file`'s candidates that exists in the tree (a
module that moved keeps its measurement comparable).
"""

import argparse
import statistics
import subprocess
import sys
import time
from pathlib import Path

from common import REPO

# A leaf module every other depends on, at its path before and after the ground floor's rooms.
CANDIDATES = ["src/time/clock.rs", "src/clock.rs"]

# Each step: what it runs, as the command that builds it and the one that runs it.
TARGETS = {"cargo test --lib": ["--lib"], "cargo test --test it -- floors::": ["--test", "it"]}
FILTERS = {"cargo test --lib": [], "cargo test --test it -- floors::": ["--", "floors::"]}


def build(target: list[str]) -> list[str]:
    return ["cargo", "test", "--locked", *target, "--no-run"]


def run(step: str) -> list[str]:
    return ["cargo", "test", "--locked", *TARGETS[step], "-q", *FILTERS[step]]


def leaf(tree: Path, candidates: list[str]) -> Path:
    for candidate in candidates:
        if (tree / candidate).is_file():
            return tree / candidate
    sys.exit(f"error: none of {candidates} is in {tree}")


def timed(command: list[str], tree: Path) -> float:
    started = time.perf_counter()
    subprocess.run(command, cwd=tree, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="timed rounds per tree (default 5)")
    parser.add_argument("--tree", type=Path, action="append", help="a checkout to time (repeatable; default: this one)")
    parser.add_argument("--file", action="append", help="the library file to edit, relative to the tree (repeatable)")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in (args.tree or [REPO])]
    candidates = args.file or CANDIDATES
    for tree in trees:
        print(f"building {tree} once", file=sys.stderr)
        for target in TARGETS.values():
            subprocess.run(build(target), cwd=tree, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    times = {(tree, step): [] for tree in trees for step in TARGETS}
    originals = {tree: leaf(tree, candidates).read_text() for tree in trees}
    try:
        for round_ in range(args.runs):
            for tree in trees:
                file = leaf(tree, candidates)
                file.write_text(originals[tree] + f"// edit {round_} {time.time()}\n")
                for step in TARGETS:
                    times[(tree, step)].append(timed(run(step), tree))
    finally:
        for tree, text in originals.items():
            leaf(tree, candidates).write_text(text)
    print(f"| tree | step | median of {args.runs} | min | max |")
    print("|---|---|---:|---:|---:|")
    for (tree, step), seconds in times.items():
        print(f"| {tree} | `{step}` | {statistics.median(seconds):.1f} s | {min(seconds):.1f} s | {max(seconds):.1f} s |")


if __name__ == "__main__":
    main()
