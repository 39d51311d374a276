#!/usr/bin/env python3
"""Benchmark: what a real model provider adds to `agent-sdk run`, and how soon a streamed
piece of the reply reaches stdout.

  1. The whole `run`, against @dwmkerr/mock-llm (the third-party OpenAI-compatible server
     the tests use; `npm ci --prefix tests/mock-llm`), started on loopback with a rule that
     streams back "Echo: <the message>" in chunks of 8 characters, 1 ms apart. --runs
     iterations (1 warm-up of each discarded), interleaved, their order rotating:
     (a) server alone: one streaming chat-completions request from this script
         (http.client, the same body agent-sdk sends), read to `data: [DONE]`;
     (b) local: target/release/agent-sdk run --dir <copy of examples/acme-bot> --message M
         (the embedded model);
     (c) provider: the same with --model openai-compatible:gpt-4o-mini --base-url <mock>.
     Both runs start the same Node runtime, load the same 3 hooks and record a turn of about
     the same number of events. Reported: each median/min/max, and median(c) - median(b)
     beside median(a): what answering with the provider added to the whole command, beside
     what the server alone takes. (Start-up noise of a few ms is in both; 2. has none.)
  2. Per-turn overhead in `dev`, without process start-up: two `agent-sdk dev` servers on
     copies of examples/acme-bot (one on the local model, one on the provider as in 1.), one
     session each; --runs turns of each (1 warm-up discarded), interleaved with (a), each
     timed from the POST of the message to the end of its SSE stream (every event of the
     turn recorded and sent). The target's measure: what a provider turn takes over the
     server's own response time, overhead = median(provider turn) - median(server alone)
     (target <= 5 ms); every event of the turn is recorded and sent to the client within it.
     The local turn is shown for scale. The session's history grows by one exchange a turn
     (the mock's answer does not depend on it).
  3. First delta to stdout. mock-llm cannot say when it wrote a chunk, so this script serves
     the stream itself (a thread of this process, on loopback): it answers agent-sdk's
     request with the response headers, waits 300 ms (the runtime is up and waiting), writes
     the first chunk and notes time.monotonic() right after the write; it reads agent-sdk's
     stdout through a pipe and notes time.monotonic() when the first byte arrives. Both are
     CLOCK_MONOTONIC in one process. latency = seen - written, over --runs runs (target
     <= 5 ms): median, 90th percentile, max.

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/provider.py [--runs 20] [--no-build]

It prints a markdown report and exits 0 whether or not the targets are met; it exits 1 if a
run fails (an exit code other than 0, or a reply other than the one served).
"""

import argparse
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import AGENT_SDK, REPO, SanityError, build_release, copy_project, interleaved, node_version

MESSAGE = "What is the refund policy for orders shipped abroad?"
MOCK = REPO / "tests" / "mock-llm"
RULES = """streaming:
  chunkSize: 8
  chunkIntervalMs: 1
rules:
  - path: "/v1/chat/completions"
    method: "POST"
    match: "@"
    response:
      status: 200
      content: |
        {"id":"chatcmpl-1","object":"chat.completion","model":"{{jmes request body.model}}","choices":[{"message":{"role":"assistant","content":"Echo: {{jmes request body.messages[-1].content}}"},"finish_reason":"stop"}]}
"""


def start_mock(config: Path) -> tuple[subprocess.Popen, int]:
    if not (MOCK / "node_modules" / "@dwmkerr" / "mock-llm").is_dir():
        sys.exit("the mock server is not installed: run `npm ci --prefix tests/mock-llm` first")
    process = subprocess.Popen(
        ["node", str(MOCK / "start.cjs"), str(config)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    for line in process.stdout:
        if line.startswith("listening "):
            port = int(line.split()[1])
            # It logs each request: keep its pipe drained.
            threading.Thread(target=lambda: [None for _ in process.stdout], daemon=True).start()
            return process, port
    sys.exit("mock-llm did not start")


def server_alone(port: int) -> float:
    """One streaming request read to [DONE], as agent-sdk makes it: wall ms."""
    body = json.dumps(
        {
            "model": "gpt-4o-mini",
            "messages": [{"role": "user", "content": MESSAGE}],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
    )
    started = time.perf_counter()
    connection = http.client.HTTPConnection("127.0.0.1", port)
    connection.request("POST", "/v1/chat/completions", body, {"content-type": "application/json"})
    response = connection.getresponse()
    seen = b""
    while b"[DONE]" not in seen:
        piece = response.read1(65536)
        if not piece:
            raise SanityError("the mock server's stream ended without [DONE]")
        seen += piece
    connection.close()
    return (time.perf_counter() - started) * 1000


def agent_run(project: Path, model: list[str], expect: str) -> float:
    started = time.perf_counter()
    ran = subprocess.run(
        [str(AGENT_SDK), "run", "--dir", str(project), "--message", MESSAGE, *model],
        capture_output=True,
        text=True,
        env=clean_env(),
    )
    elapsed = (time.perf_counter() - started) * 1000
    if ran.returncode != 0 or expect not in ran.stdout:
        raise SanityError(f"agent-sdk exited {ran.returncode} with stdout {ran.stdout!r}", ran.stderr)
    return elapsed


def clean_env() -> dict:
    env = dict(os.environ)
    for name in ("AGENT_SDK_MODEL", "OPENAI_API_KEY", "OPENAI_BASE_URL", "OPENAI_COMPATIBLE_API_KEY", "XAI_API_KEY"):
        env.pop(name, None)
    return env


class DevServer:
    """`agent-sdk dev` on a free port; stopped with SIGTERM."""

    def __init__(self, project: Path, model: list[str]):
        self.process = subprocess.Popen(
            [str(AGENT_SDK), "dev", "--dir", str(project), "--port", "0", *model],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
            env=clean_env(),
        )
        dev_file = project / ".agent-sdk" / "dev.json"
        started = time.monotonic()
        while True:
            try:
                info = json.loads(dev_file.read_text())
                self.port = int(info["url"].rsplit(":", 1)[1])
                self.token = info["token"]
                socket.create_connection(("127.0.0.1", self.port)).close()
                break
            except (OSError, ValueError, KeyError):
                if time.monotonic() - started > 30:
                    raise SanityError("agent-sdk dev did not start")
                time.sleep(0.05)
        self.session = json.loads(self.request("POST", "/v1/sessions", None))["id"]

    def request(self, method: str, path: str, body) -> str:
        connection = http.client.HTTPConnection("127.0.0.1", self.port)
        headers = {"authorization": f"Bearer {self.token}", "content-type": "application/json"}
        connection.request(method, path, None if body is None else json.dumps(body), headers)
        response = connection.getresponse()
        text = response.read().decode()
        connection.close()
        if response.status >= 300:
            raise SanityError(f"dev answered {response.status}: {text}")
        return text

    def turn(self, expect: str) -> float:
        started = time.perf_counter()
        text = self.request("POST", f"/v1/sessions/{self.session}/messages", {"text": MESSAGE})
        elapsed = (time.perf_counter() - started) * 1000
        if "turn.completed" not in text or expect not in text:
            raise SanityError(f"the turn did not complete with {expect!r}: {text[-500:]}")
        return elapsed

    def stop(self):
        self.process.terminate()
        self.process.wait()


def dev_overhead(runs: int, work: Path, port: int) -> list[str]:
    provider = ["--model", "openai-compatible:gpt-4o-mini", "--base-url", f"http://127.0.0.1:{port}/v1"]
    servers = []
    try:
        local = DevServer(copy_project(REPO / "examples" / "acme-bot", work / "dev-local"), [])
        servers.append(local)
        remote = DevServer(copy_project(REPO / "examples" / "acme-bot", work / "dev-provider"), provider)
        servers.append(remote)
        times = interleaved(
            {
                "server alone": lambda: server_alone(port),
                "dev turn, local model": lambda: local.turn("I am the local model"),
                "dev turn, provider": lambda: remote.turn("Echo: "),
            },
            runs,
        )
    finally:
        for server in servers:
            server.stop()
    added = statistics.median(times["dev turn, provider"]) - statistics.median(times["server alone"])
    return [
        f"### 2. Per-turn overhead in `dev` ({runs} turns each, interleaved)",
        "",
        *time_table(times),
        "",
        f"**Provider overhead: {added:.1f} ms per turn** over the server's own response time "
        "(dev turn with the provider − server alone; target ≤ 5 ms)",
    ]


def time_table(times: dict[str, list[float]]) -> list[str]:
    return ["| | wall time |", "|---|---|", *(f"| {name} | {summary(values)} |" for name, values in times.items())]


def summary(values: list[float]) -> str:
    return f"{statistics.median(values):.1f} ms (min {min(values):.1f}, max {max(values):.1f})"


def overhead(runs: int, work: Path, port: int) -> list[str]:
    project = copy_project(REPO / "examples" / "acme-bot", work / "overhead")
    provider = ["--model", "openai-compatible:gpt-4o-mini", "--base-url", f"http://127.0.0.1:{port}/v1"]
    times = interleaved(
        {
            "server alone": lambda: server_alone(port),
            "run, local model": lambda: agent_run(project, [], "I am the local model"),
            "run, provider": lambda: agent_run(project, provider, f"Echo: {MESSAGE}"),
        },
        runs,
    )
    added = statistics.median(times["run, provider"]) - statistics.median(times["run, local model"])
    return [
        f"### 1. The whole `run` ({runs} runs each, interleaved)",
        "",
        *time_table(times),
        "",
        f"run with the provider − run with the local model: {added:.1f} ms, beside the server alone's "
        f"{statistics.median(times['server alone']):.1f} ms",
    ]


class StreamServer:
    """Serves each request: headers, a 300 ms wait, a first chunk (its write time noted), the rest."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.written: list[float] = []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            connection, _ = self.listener.accept()
            threading.Thread(target=self.answer, args=(connection,), daemon=True).start()

    def answer(self, connection: socket.socket):
        with connection:
            connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            request = b""
            while b"\r\n\r\n" not in request:
                request += connection.recv(65536)
            head, _, body = request.partition(b"\r\n\r\n")
            length = next(
                (int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")),
                0,
            )
            while len(body) < length:
                body += connection.recv(65536)
            connection.sendall(b"HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\nconnection: close\r\n\r\n")
            time.sleep(0.3)

            def chunk(text: str) -> bytes:
                data = {"choices": [{"index": 0, "delta": {"content": text}, "finish_reason": None}]}
                return f"data: {json.dumps(data)}\n\n".encode()

            connection.sendall(chunk("First"))
            self.written.append(time.monotonic())
            connection.sendall(chunk(" piece."))
            done = {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}
            connection.sendall(f"data: {json.dumps(done)}\n\ndata: [DONE]\n\n".encode())


def first_delta(runs: int, work: Path) -> list[str]:
    server = StreamServer()
    project = copy_project(REPO / "examples" / "acme-bot", work / "latency")
    model = ["--model", "openai-compatible:gpt-4o-mini", "--base-url", f"http://127.0.0.1:{server.port}/v1"]
    latencies = []
    for iteration in range(runs + 1):
        process = subprocess.Popen(
            [str(AGENT_SDK), "run", "--dir", str(project), "--message", MESSAGE, *model],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=clean_env(),
        )
        first = os.read(process.stdout.fileno(), 1)
        seen = time.monotonic()
        rest = first + process.stdout.read()
        stderr = process.stderr.read().decode()
        if process.wait() != 0 or rest.decode() != "First piece.\n":
            raise SanityError(f"agent-sdk exited {process.returncode} with stdout {rest!r}", stderr)
        if iteration > 0:
            latencies.append((seen - server.written[-1]) * 1000)
    latencies.sort()
    p90 = latencies[min(len(latencies) - 1, int(len(latencies) * 0.9))]
    return [
        f"### 3. First delta to stdout ({runs} runs)",
        "",
        f"**median {statistics.median(latencies):.2f} ms, 90th percentile {p90:.2f} ms, max {max(latencies):.2f} ms** "
        "from the server's write of the first chunk to its first byte on agent-sdk's stdout (target ≤ 5 ms)",
    ]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    build_release(args.no_build)
    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-provider-") as work:
        work = Path(work)
        config = work / "mock-llm.yaml"
        config.write_text(RULES)
        mock, port = start_mock(config)
        try:
            report = [
                "## agent-sdk run with a model provider",
                "",
                f"node {node_version()}, {os.cpu_count()} CPUs",
                "",
                *overhead(args.runs, work, port),
                "",
                *dev_overhead(args.runs, work, port),
                "",
                *first_delta(args.runs, work),
            ]
        except SanityError as error:
            print(f"sanity check failed: {error}\n{error.stderr_tail}", file=sys.stderr)
            return 1
        finally:
            mock.kill()
            mock.wait()
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
