"""What the benchmark scripts share: where the binary is, building it, the Node version,
copying a project without its state, and the error for a run that cannot be counted."""

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
AGENT_SDK = REPO / "target" / "release" / "agent-sdk"
# tsx's loader, from bench/package.json's packages.
TSX_LOADER = REPO / "bench" / "node_modules" / "tsx" / "dist" / "loader.mjs"
# How much of agent-sdk's stderr a failed sanity check shows.
STDERR_TAIL_LINES = 40


class SanityError(Exception):
    """A run that cannot be counted: its message says why, stderr_tail shows agent-sdk's."""

    def __init__(self, message: str, stderr: str = ""):
        super().__init__(message)
        self.stderr_tail = "\n".join(stderr.splitlines()[-STDERR_TAIL_LINES:])


def node_binary(arg: str) -> str:
    """--node's argparse type: a path (one with a `/`) made absolute, since the scripts start
    agent-sdk and Node in other folders; a bare name is left for the PATH search."""
    return os.path.abspath(arg) if os.sep in arg else arg


def build_release(skip: bool) -> None:
    """`cargo build --release` of the agent-sdk binary, unless `skip` (--no-build)."""
    if not skip:
        print("building: cargo build --release --bin agent-sdk", file=sys.stderr)
        subprocess.run(["cargo", "build", "--release", "--quiet", "--bin", "agent-sdk"], cwd=REPO, check=True)


def npm_ci_when_missing(folder: Path, installed: Path) -> None:
    """`npm ci --prefix folder` (its packages as its lock file pins them), unless `installed` exists."""
    if not installed.exists():
        print(f"installing: npm ci --prefix {folder}", file=sys.stderr)
        subprocess.run(["npm", "ci", "--prefix", str(folder), "--no-audit", "--no-fund"], check=True)


def timed(cmd: list[str], cwd: Path, env: dict[str, str] | None = None) -> float:
    """Runs `cmd` in `cwd`; its wall time in ms. A non-zero exit is a SanityError with its stderr."""
    start = time.perf_counter()
    done = subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    elapsed = (time.perf_counter() - start) * 1000
    if done.returncode != 0:
        raise SanityError(f"`{' '.join(cmd)}` exited {done.returncode}", done.stderr)
    return elapsed


def measure(cmd: list[str], ok_codes: tuple[int, ...], cwd: Path | None = None) -> tuple[float, float]:
    """Runs cmd once (in cwd) with stdout to /dev/null; (wall ms, peak RSS MB) of that child
    alone (ru_maxrss via os.wait4). An exit status outside ok_codes ends the bench (exit 1)
    with the tail of its stderr (kept in a file: a pipe read after the wait could fill)."""
    with tempfile.TemporaryFile() as stderr:
        start = time.perf_counter()
        process = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=stderr)
        _, status, usage = os.wait4(process.pid, 0)
        elapsed_ms = (time.perf_counter() - start) * 1000
        process.returncode = code = os.waitstatus_to_exitcode(status)
        if code not in ok_codes:
            stderr.seek(0)
            said = stderr.read().decode(errors="replace")[-4000:]
            sys.exit(f"error: `{' '.join(cmd)}` exited {code} (expected one of {ok_codes})\n{said}")
    return elapsed_ms, usage.ru_maxrss / 1024  # ru_maxrss is in KiB on Linux


def node_version() -> str:
    return subprocess.run(["node", "--version"], capture_output=True, text=True, check=True).stdout.strip()


def runtime_folder(env: dict[str, str] | None = None) -> Path:
    """The folder of the hook runtime's files the binary last ran from: its set in the user's
    cache (`$XDG_CACHE_HOME/agent-sdk/runtime/<hash>/`, touched at each start), the cache
    named by `env` (the environment the binary ran with), else by this process's."""
    cache = Path((env or os.environ).get("XDG_CACHE_HOME") or Path.home() / ".cache")
    sets = sorted((cache / "agent-sdk" / "runtime").glob("*/host.mjs"), key=lambda host: host.parent.stat().st_mtime)
    if not sets:
        raise SanityError(f"no runtime files in {cache / 'agent-sdk' / 'runtime'}: has agent-sdk run yet?")
    return sets[-1].parent


def copy_project(source: Path, dest: Path) -> Path:
    """A copy of a project without any .agent-sdk/ state (so a run starts cold) or node_modules."""
    shutil.copytree(source, dest, ignore=shutil.ignore_patterns(".agent-sdk", "node_modules"))
    return dest


def interleaved(kinds: dict, runs: int) -> dict[str, list[float]]:
    """Each of `kinds` timed `runs` times after one discarded warm-up, in turn, the order
    rotating each round: {name: [ms, …]}."""
    times = {name: [] for name in kinds}
    names = list(kinds)
    for iteration in range(runs + 1):
        order = names[iteration % len(names) :] + names[: iteration % len(names)]
        for name in order:
            elapsed = kinds[name]()
            if iteration > 0:
                times[name].append(elapsed)
    return times
