#!/usr/bin/env python3
"""Benchmark: how soon `agent-sdk lsp` publishes the diagnostics of an edited hook in a
project of N hooks, after its debounce.

What it measures: the project of bench/validate.py (`package.json` + N small hooks under
bot/hooks/gen/g<k>/) is generated in a temp dir and `target/release/agent-sdk lsp` started
on it over pipes. One hook is opened with a misspelt event key (so its diagnostics are
published), which makes the server check the whole project once (timed as "first check").
Then --edits unsaved edits (didChange, full text) of that hook alternate between two
misspellings, one every --pause ms; each edit's latency is the time from sending its
didChange to receiving the publishDiagnostics of that document version, minus the server's
debounce (100 ms, `agent_sdk::lsp::DEBOUNCE`). The first --warmup edits are discarded.

The floor, in the same run and interleaved: the round trip of a `textDocument/hover` at the
file's first character, which the server answers from the buffer's text without checking
anything (what JSON-RPC over the pipes costs).

Run from the repo root (Python 3.11, stdlib only):

  python3 bench/lsp.py [--hooks 10000] [--edits 50] [--pause 300] [--no-build]

It builds the release binary first unless --no-build. It prints a markdown report and
exits 0; it exits 1 if a publish never arrives or the target is not met.
"""

import argparse
import json
import os
import queue
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from common import AGENT_SDK, build_release
from validate import HOOK_SHAPES, generate

DEBOUNCE_MS = 100
TARGET_P95_MS = 50
WAIT_S = 120


class Server:
    """`agent-sdk lsp` over its pipes: requests, notifications, and what it sends."""

    def __init__(self, root: Path):
        self.process = subprocess.Popen(
            [str(AGENT_SDK), "lsp", "--stdio"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL
        )
        self.incoming: queue.Queue = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.next_id = 1
        uri = root.as_uri()
        self.request("initialize", {"processId": os.getpid(), "rootUri": uri,
                                    "workspaceFolders": [{"uri": uri, "name": root.name}], "capabilities": {}})
        self.notify("initialized", {})

    def _read(self) -> None:
        stdout = self.process.stdout
        while True:
            length = None
            while True:
                line = stdout.readline()
                if not line:
                    return
                line = line.strip()
                if not line:
                    break
                if line.lower().startswith(b"content-length:"):
                    length = int(line.split(b":")[1])
            body = stdout.read(length)
            self.incoming.put((time.perf_counter(), json.loads(body)))

    def send(self, message: dict) -> float:
        body = json.dumps({"jsonrpc": "2.0", **message}).encode()
        sent = time.perf_counter()
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n%s" % (len(body), body))
        self.process.stdin.flush()
        return sent

    def notify(self, method: str, params: dict) -> float:
        return self.send({"method": method, "params": params})

    def request(self, method: str, params: dict) -> tuple[float, dict]:
        """Sends a request; returns (round trip ms, result)."""
        request_id = self.next_id
        self.next_id += 1
        sent = self.send({"id": request_id, "method": method, "params": params})
        at, message = self.wait_for(lambda message: message.get("id") == request_id and "method" not in message)
        return (at - sent) * 1000, message.get("result")

    def wait_for(self, wanted) -> tuple[float, dict]:
        deadline = time.monotonic() + WAIT_S
        while True:
            try:
                at, message = self.incoming.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                sys.exit(f"error: no such message from agent-sdk lsp within {WAIT_S} s")
            if wanted(message):
                return at, message

    def stop(self) -> None:
        self.request("shutdown", None)
        self.notify("exit", None)
        self.process.wait(timeout=30)


def misspelt(text: str, edit: int) -> str:
    """The hook with its first key misspelt, differently on odd and even edits."""
    return text.replace('"turn.completed"', '"turn.complete"' if edit % 2 == 0 else '"turn.complet"', 1)


def percentile(values: list[float], fraction: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(fraction * (len(ordered) - 1)))]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--hooks", type=int, default=10000, help="hooks to generate (default 10000)")
    parser.add_argument("--edits", type=int, default=50, help="timed edits (default 50)")
    parser.add_argument("--warmup", type=int, default=3, help="edits discarded first (default 3)")
    parser.add_argument("--pause", type=int, default=300, help="ms between edits (default 300)")
    parser.add_argument("--no-build", action="store_true", help="skip `cargo build --release`")
    args = parser.parse_args()
    build_release(args.no_build)

    with tempfile.TemporaryDirectory(prefix="agent-sdk-bench-lsp-") as tmp:
        project = Path(tmp).resolve()
        print(f"generating {args.hooks} hooks in {project}", file=sys.stderr)
        generate(project, args.hooks)
        hook = project / "bot" / "hooks" / "gen" / "g0" / "hook0.ts"
        text = HOOK_SHAPES[0].format(i=0)
        uri = hook.as_uri()
        server = Server(project)

        def published(version: int):
            return lambda message: (message.get("method") == "textDocument/publishDiagnostics"
                                    and message["params"]["uri"] == uri and message["params"].get("version") == version)

        opened = server.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "typescript", "version": 0, "text": misspelt(text, 0)}})
        at, first = server.wait_for(published(0))
        first_check_ms = (at - opened) * 1000
        codes = [diagnostic["code"] for diagnostic in first["params"]["diagnostics"]]
        if codes != ["hooks::unknown-event"]:
            print(f"sanity check FAILED: the opened hook's diagnostics are {codes}", file=sys.stderr)
            return 1
        print(f"sanity check ok: the whole project checked and published in {first_check_ms:.0f} ms", file=sys.stderr)

        latencies, floors = [], []
        hover = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 0}}
        for edit in range(1, args.warmup + args.edits + 1):
            time.sleep(args.pause / 1000)
            floor_ms, _ = server.request("textDocument/hover", hover)
            sent = server.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": edit},
                                                            "contentChanges": [{"text": misspelt(text, edit)}]})
            at, message = server.wait_for(published(edit))
            message_text = message["params"]["diagnostics"][0]["message"]
            expected = "turn.complete`" if edit % 2 == 0 else "turn.complet`"
            if expected not in message_text:
                print(f"sanity check FAILED: edit {edit} published {message_text!r}", file=sys.stderr)
                return 1
            if edit > args.warmup:
                latencies.append((at - sent) * 1000 - DEBOUNCE_MS)
                floors.append(floor_ms)
        server.stop()

    print(f"\nN = {args.hooks} hooks, {args.edits} edits of one hook ({args.warmup} discarded), one every "
          f"{args.pause} ms, {os.cpu_count()} cores; debounce {DEBOUNCE_MS} ms subtracted\n")
    print("| measure | median ms | p95 ms | min ms | max ms |")
    print("|---|---:|---:|---:|---:|")
    for name, values in [("didChange → publishDiagnostics, minus debounce", latencies),
                         ("floor: hover round trip (no check)", floors)]:
        print(f"| {name} | {statistics.median(values):.1f} | {percentile(values, 0.95):.1f} | "
              f"{min(values):.1f} | {max(values):.1f} |")
    print(f"\nfirst check of the whole project (didOpen → publishDiagnostics): {first_check_ms:.0f} ms")
    p95 = percentile(latencies, 0.95)
    met = p95 <= TARGET_P95_MS
    print(f"\ntarget: p95 ≤ {TARGET_P95_MS} ms after the debounce: {p95:.1f} ms — {'met' if met else 'NOT met'}")
    return 0 if met else 1


if __name__ == "__main__":
    sys.exit(main())
