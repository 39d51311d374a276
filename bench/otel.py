#!/usr/bin/env python3
"""Benchmark: what OTLP export costs `agent-sdk run`, export off vs on, in one run.

Export on means OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:<port> of a collector this
script serves itself, in a thread of its own process (so it adds nothing to the measured
command's time but what the exporter really spends): a ThreadingHTTPServer that decodes
nothing, answers 200 to every POST (an empty body, or {} to OTLP/JSON) and counts the
requests and bytes it got. Export off means no OTEL_* variable at all (every one this script
was started with is removed from both). Wall time is time.perf_counter around each process,
as bench/run.py measures it (its helpers do the timing, the interleaving and the checks).

  1. Cold run: target/release/agent-sdk run --dir <copy> --message hello, each run on a
     fresh copy of examples/acme-bot without .agent-sdk/ (made before the clock starts,
     deleted after), off and on interleaved: --runs iterations (1 warm-up of each
     discarded), the order swapping each iteration. Target: on costs <= 10 ms over off.
  2. Replay: `agent-sdk run --dir <copy> --replay <file>` of the generated --events-event
     session of bench/run.py, through bench/replay-hooks (an otel counter, an awaited kv
     write per turn, a "*" handler), one copy of the project for off and one for on (each
     replay appends a session to its copy's store), interleaved as in 1. Every replay's serve
     log must say it dispatched all the events. Target: on costs <= 5 % of off.

Reported: median/min/max ms of each, the ratio on / off pair by pair (median, min, max: the
two runs of a pair are neighbours in time, so the machine's drift touches both alike), the
difference of the medians, and what the collector received while the runs with export on
ran (requests by path, bytes): a build that does not export sends nothing, and the report
says so plainly rather than failing.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/otel.py [--runs 10] [--events 10000] [--no-build]

It builds the release binary first unless --no-build. It prints a markdown report and exits
0 whether or not the targets are met (or anything was exported); it exits 1 (showing the tail
of agent-sdk's stderr) only if a run fails bench/run.py's checks: an exit code other than 0,
or a dispatched count other than the number of replayed events.
"""

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Callable

from common import AGENT_SDK, STDERR_TAIL_LINES, SanityError, build_release, copy_project, node_version
from run import EXAMPLE, REPLAY_PROJECT, generate_events, interleaved, print_timings, run_checked, run_command

TARGET_COLD_MS = 10.0
TARGET_REPLAY_RATIO = 1.05
OFF, ON = "export off", "export on"


class Collector:
    """An OTLP/HTTP endpoint on loopback, in threads of this process, that only counts."""

    def __init__(self):
        self.lock = threading.Lock()
        self.requests: Counter[str] = Counter()  # path → requests
        self.bytes = 0  # bodies as sent (compressed, if they were)
        self.content_types: set[str] = set()
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self.handler())
        self.server.daemon_threads = True
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def handler(self) -> type[BaseHTTPRequestHandler]:
        collector = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive, as exporters use it

            def log_message(self, *_args) -> None:
                pass

            def do_POST(self) -> None:
                body = self.read_body()
                content_type = self.headers.get("Content-Type", "")
                with collector.lock:
                    collector.requests[self.path] += 1
                    collector.bytes += len(body)
                    collector.content_types.add(content_type)
                reply = b"{}" if content_type.startswith("application/json") else b""
                self.send_response(200)
                self.send_header("Content-Type", content_type or "application/x-protobuf")
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def read_body(self) -> bytes:
                if self.headers.get("Transfer-Encoding", "").lower() != "chunked":
                    return self.rfile.read(int(self.headers.get("Content-Length") or 0))
                chunks = []
                while size := int(self.rfile.readline().split(b";")[0] or b"0", 16):
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
                while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return b"".join(chunks)

        return Handler

    @property
    def endpoint(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}"

    def received(self) -> tuple[Counter[str], int]:
        """(requests by path, bytes) so far."""
        with self.lock:
            return Counter(self.requests), self.bytes

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


class Exported:
    """What the collector received during the runs with export on, run by run."""

    def __init__(self, collector: Collector):
        self.collector = collector
        self.requests: Counter[str] = Counter()
        self.bytes = 0
        self.runs = 0

    def during(self, timed: Callable[[], float]) -> float:
        """timed(), with what reached the collector meanwhile added up (the command has exited
        when it returns, so nothing of it arrives later)."""
        requests_before, bytes_before = self.collector.received()
        elapsed_ms = timed()
        requests_after, bytes_after = self.collector.received()
        self.requests += requests_after - requests_before
        self.bytes += bytes_after - bytes_before
        self.runs += 1
        return elapsed_ms

    def describe(self) -> str:
        total = sum(self.requests.values())
        if total == 0:
            return (f"the collector received 0 requests in {self.runs} runs with OTEL_EXPORTER_OTLP_ENDPOINT set: "
                    "this build exports nothing, so export on measured the same work as export off")
        paths = ", ".join(f"{path} {count}" for path, count in sorted(self.requests.items()))
        with self.collector.lock:
            content_types = ", ".join(sorted(self.collector.content_types))
        return (f"the collector received {total} requests ({paths}), {self.bytes:,} bytes in {self.runs} runs "
                f"(per run: {total / self.runs:.1f} requests, {self.bytes / self.runs:,.0f} bytes; "
                f"Content-Type {content_types})")


def environments(endpoint: str) -> dict[str, dict[str, str]]:
    """The environment of each mode: this one without any OTEL_* variable, and with the endpoint."""
    off = {name: value for name, value in os.environ.items() if not name.startswith("OTEL_")}
    return {OFF: off, ON: off | {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}}


def cold_runs(tmp: Path, runs: int, env: dict[str, dict[str, str]], exported: Exported) -> dict[str, list[float]]:
    def cold(mode: str) -> float:
        project = copy_project(EXAMPLE, tmp / f"cold-{mode.replace(' ', '-')}")
        elapsed_ms, _ = run_checked(run_command(project), env=env[mode])
        shutil.rmtree(project)
        return elapsed_ms

    return interleaved({OFF: lambda: cold(OFF), ON: lambda: exported.during(lambda: cold(ON))}, runs, "cold run")


def replays(tmp: Path, runs: int, events: int, env: dict[str, dict[str, str]],
            exported: Exported) -> dict[str, list[float]]:
    replay = tmp / f"events-{events}.jsonl"
    generate_events(replay, events)
    commands = {}
    for mode in (OFF, ON):
        project = copy_project(REPLAY_PROJECT, tmp / f"replay-{mode.replace(' ', '-')}")
        commands[mode] = [str(AGENT_SDK), "run", "--dir", str(project), "--replay", str(replay)]

    def replayed(mode: str) -> float:
        return run_checked(commands[mode], events, env[mode])[0]

    return interleaved({OFF: lambda: replayed(OFF), ON: lambda: exported.during(lambda: replayed(ON))},
                       runs, "replay")


def print_pairs(samples: dict[str, list[float]]) -> tuple[float, float]:
    """Prints the table and the on / off ratios pair by pair; returns (median difference ms, median ratio)."""
    medians = print_timings(samples)
    pairs = [on / off for off, on in zip(samples[OFF], samples[ON])]
    differences = [on - off for off, on in zip(samples[OFF], samples[ON])]
    difference = medians[ON] - medians[OFF]
    print(f"\non / off, pair by pair: median {statistics.median(pairs):.3f} (min {min(pairs):.3f}, "
          f"max {max(pairs):.3f}, {len(pairs)} pairs); median on - median off: {difference:+.1f} ms "
          f"(on - off pair by pair: median {statistics.median(differences):+.1f} ms)")
    return difference, statistics.median(pairs)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10, help="timed runs of each measurement (default 10)")
    parser.add_argument("--events", type=int, default=10000, help="events in the replay (default 10000)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()

    build_release(args.no_build)
    node = node_version()
    collector = Collector()
    env = environments(collector.endpoint)
    cold_exported, replay_exported = Exported(collector), Exported(collector)
    try:
        with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-otel-") as tmp:
            cold = cold_runs(Path(tmp), args.runs, env, cold_exported)
            replay = replays(Path(tmp), args.runs, args.events, env, replay_exported)
    except SanityError as error:
        print(f"sanity check FAILED: {error}", file=sys.stderr)
        if error.stderr_tail:
            print(f"stderr (last {STDERR_TAIL_LINES} lines):\n{error.stderr_tail}", file=sys.stderr)
        return 1
    finally:
        collector.close()

    print(f"\n{os.cpu_count()} cores, node {node}, {args.runs} timed runs of each (1 warm-up discarded), off and on "
          f"interleaved; export on: OTEL_EXPORTER_OTLP_ENDPOINT={collector.endpoint} (a collector in this script's "
          "process that answers 200 and decodes nothing)\n")

    print("### 1. Cold `agent-sdk run --message hello` (examples/acme-bot), export off vs on\n")
    cold_ms, _ = print_pairs(cold)
    print(f"\n{cold_exported.describe()}\n")

    print(f"### 2. `agent-sdk run --replay` of {args.events:,} events (bench/replay-hooks), export off vs on\n")
    _, replay_ratio = print_pairs(replay)
    for mode in (OFF, ON):
        print(f"- {mode}: {args.events / (statistics.median(replay[mode]) / 1000):,.0f} events/s "
              "(N / median, start-up included)")
    print(f"\n{replay_exported.describe()}; every replay's serve log summary: {args.events} events dispatched\n")

    exporting = sum(cold_exported.requests.values()) > 0 and sum(replay_exported.requests.values()) > 0
    print("targets" + ("" if exporting else " (not meaningful until export on sends requests)") + ":")
    for label, value, met in [
        (f"cold run: export on costs ≤ {TARGET_COLD_MS:.0f} ms", f"{cold_ms:+.1f} ms", cold_ms <= TARGET_COLD_MS),
        (f"replay: export on costs ≤ {(TARGET_REPLAY_RATIO - 1) * 100:.0f} % (on / off ≤ {TARGET_REPLAY_RATIO})",
         f"{replay_ratio:.3f}", replay_ratio <= TARGET_REPLAY_RATIO),
    ]:
        print(f"- {label}: {value} — {'met' if met else 'NOT met'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
