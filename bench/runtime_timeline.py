#!/usr/bin/env python3
"""Where a one-event `run`'s time goes inside the hook runtime, from Node's own clock.

Runs `agent-sdk run --event turn.completed` of a copy of examples/acme-bot (warm: it has run
once) --runs times on the Node given, with an instrumented copy of the runtime's bundle: the
binary writes its runtime files into a cache of this script's own (XDG_CACHE_HOME), and the
script then rewrites that copy's host.mjs with `performance.now()` marks (ms since Node's
process started) as each source module esbuild put in it is evaluated, before "hello", when
"init" is read, around each hook's import, at "ready", when the event is dispatched, when
"shutdown" is read and at "bye". The binary itself is not changed, and nothing is written
outside the temporary folder. Prints each mark's median and the step from the one before,
and the median wall time of the whole run beside `node -e ''` (Node's own start and end).

A mark whose anchor is no longer in the bundle (its code changed) stops the script with the
anchor's text: update ANCHORS.

  python3 bench/runtime_timeline.py [--node PATH] [--runs 20] [--no-build]
"""

import argparse
import json
import os
import re
import statistics
import sys
import tempfile
from pathlib import Path

from common import AGENT_SDK, REPO, SanityError, build_release, copy_project, node_binary, runtime_folder, timed

EXAMPLE = REPO / "examples" / "acme-bot"

# (text in the bundle, mark name, where: "before" the line holding the text, or "after" it).
ANCHORS = [
    ('send({ t: "hello"', "hello sent", "before"),
    ('case "init":', "init read", "after"),
    ('send({ t: "loading", hook: name })', "hook import starts", "before"),
    ('send({ t: "loaded", hook: name', "hook imported", "before"),
    ('send({ t: "ready" })', "ready sent", "before"),
    ("function dispatch(lane, {", "event dispatched", "after"),
    ('case "shutdown":', "shutdown read", "after"),
]
BYE = 'process.on("exit", () => send({ t: "bye" }));'


def mark(name: str) -> str:
    return f'globalThis.__marks?.push([{json.dumps(name)}, performance.now()]);'


def instrument(bundle: str, out: Path) -> str:
    """The bundle with its marks; at "bye" the marks are written to `out` (before the line,
    as agent-sdk ends Node once it reads it)."""
    lines = bundle.split("\n")
    for text, _, _ in ANCHORS:
        if not any(text in line for line in lines):
            raise SanityError(f"the runtime bundle no longer holds {text!r}: update ANCHORS")
    if not any(BYE in line for line in lines):
        raise SanityError(f"the runtime bundle no longer holds {BYE!r}: update BYE")
    marked = [lines[0], "globalThis.__marks = [];", mark("the bundle starts")]
    module = None
    for line in lines[1:]:
        starts = re.match(r"^// (\S+\.(?:mjs|cjs|js))$", line)
        if starts:
            if module is not None:
                marked.append(mark(f"{module} evaluated"))
            module = starts.group(1)
        anchored = [(name, where) for text, name, where in ANCHORS if text in line]
        marked.extend(mark(name) for name, where in anchored if where == "before")
        if BYE in line:
            write = f'process.getBuiltinModule("node:fs").writeFileSync({json.dumps(str(out))}, JSON.stringify(globalThis.__marks));'
            line = line.replace('send({ t: "bye" })', "{ " + mark("bye") + " " + write + ' send({ t: "bye" }); }')
        marked.append(line)
        marked.extend(mark(name) for name, where in anchored if where == "after")
    return "\n".join(marked)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--node", type=node_binary, default="node", help="the node binary (default: node on PATH)")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    build_release(args.no_build)
    with tempfile.TemporaryDirectory() as tmp:
        tmp = Path(tmp)
        env = dict(os.environ, XDG_CACHE_HOME=str(tmp / "cache"), AGENT_SDK_NODE=args.node)
        project = copy_project(EXAMPLE, tmp / "acme-bot")
        cmd = [str(AGENT_SDK), "run", "--dir", str(project), "--event", "turn.completed"]
        try:
            timed(cmd, tmp, env)
            host = runtime_folder(env) / "host.mjs"
            out = tmp / "marks.json"
            host.write_text(instrument(host.read_text(), out))
            timed(cmd, tmp, env)
            marks: dict[str, list[float]] = {}
            walls, bare = [], []
            for _ in range(args.runs):
                out.unlink(missing_ok=True)
                walls.append(timed(cmd, tmp, env))
                bare.append(timed([args.node, "-e", ""], tmp, env))
                seen: dict[str, int] = {}
                for name, at in json.loads(out.read_text()):
                    seen[name] = seen.get(name, 0) + 1
                    key = name if seen[name] == 1 else f"{name} #{seen[name]}"
                    marks.setdefault(key, []).append(at)
        except SanityError as error:
            print(f"error: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
    print(f"{'mark (ms since Node started)':40} {'median':>8} {'step':>8}")
    before = 0.0
    for name, times in marks.items():
        median = statistics.median(times)
        print(f"{name:40} {median:8.2f} {median - before:+8.2f}")
        before = median
    print(f"\nwhole run (wall): {statistics.median(walls):.2f} ms; node -e '': {statistics.median(bare):.2f} ms")
    return 0


if __name__ == "__main__":
    sys.exit(main())
