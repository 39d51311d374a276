#!/usr/bin/env python3
"""A loopback OTLP/HTTP receiver for the tests: it decodes what an exporter sends with the
official OpenTelemetry protobuf definitions (PyPI `opentelemetry-proto`, pinned in
requirements.txt beside this file) and writes one JSON line per request on stdout.

  python3 tests/otlp/receiver.py [--port 0] [--status N | --hang]

The first line is {"listening": <port>}. Then, per request, as soon as it is read:

  {"method": "POST", "path": "/v1/traces", "contentType": "application/x-protobuf",
   "headers": {<lowercased name>: <value>}, "body": <the decoded request>, "error": null}

- POST /v1/traces, /v1/metrics and /v1/logs are decoded as ExportTraceServiceRequest,
  ExportMetricsServiceRequest and ExportLogsServiceRequest: `application/x-protobuf` as
  protobuf, `application/json` as OTLP/JSON, after `Content-Encoding: gzip` is undone.
  OTLP/JSON writes traceId, spanId and parentSpanId as hex where proto3 JSON writes bytes as
  base64, so they are turned into base64 and the whole body is then parsed by protobuf's own
  json_format against the same definitions; a field the definitions do not have is an error
  (stricter than the OTLP spec asks of a collector, so a misspelt field fails a test).
- `body` is json_format.MessageToDict of the decoded request: camelCase field names (the
  protobuf default, as OTLP/JSON writes them), 64-bit integers as strings, enums by name,
  fields at their default value left out; every traceId, spanId and parentSpanId (in spans,
  links, log records and exemplars) is lowercase hex, as Node and W3C traceparent write
  them, whichever encoding the request came in.
- A request that does not decode is answered 400 and recorded with body null and `error`
  saying why; any other path (or a method other than POST) is recorded too, with an error,
  and answered 404 (405).
- The answer is an empty Export*ServiceResponse in the request's own encoding, status 200;
  `--status N` answers every request with N instead (still decoding and recording it);
  `--hang` records each request and then never answers (its handler thread sleeps).

It never logs requests on stderr, and exits on SIGTERM or when its stdin closes (so a test
that dies takes it along).
"""

import argparse
import base64
import gzip
import json
import signal
import sys
import threading
import time
import zlib
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

INSTALL = "python3 -m pip install -r tests/otlp/requirements.txt"
try:
    from google.protobuf import json_format
    from google.protobuf.message import DecodeError
    from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import (
        ExportLogsServiceRequest, ExportLogsServiceResponse)
    from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
        ExportMetricsServiceRequest, ExportMetricsServiceResponse)
    from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
        ExportTraceServiceRequest, ExportTraceServiceResponse)
except ImportError as error:
    print(f"receiver.py: cannot import the OpenTelemetry protobuf definitions ({error}); "
          f"install them with: {INSTALL}", file=sys.stderr)
    sys.exit(3)

# The OTLP/HTTP paths and what each carries: (request type, response type).
SIGNALS = {
    "/v1/traces": (ExportTraceServiceRequest, ExportTraceServiceResponse),
    "/v1/metrics": (ExportMetricsServiceRequest, ExportMetricsServiceResponse),
    "/v1/logs": (ExportLogsServiceRequest, ExportLogsServiceResponse),
}
PROTOBUF = "application/x-protobuf"
JSON = "application/json"
# The bytes fields OTLP/JSON writes as hex, by both names proto3 JSON accepts.
ID_FIELDS = {"traceId", "spanId", "parentSpanId", "trace_id", "span_id", "parent_span_id"}


class BadRequest(Exception):
    """A body that is not an OTLP request of its path's kind; the message says why."""


def map_ids(value, convert):
    """`value` (parsed JSON) with every id field's string replaced by convert(string)."""
    if isinstance(value, dict):
        return {key: convert(key, item) if key in ID_FIELDS and isinstance(item, str) else map_ids(item, convert)
                for key, item in value.items()}
    if isinstance(value, list):
        return [map_ids(item, convert) for item in value]
    return value


def hex_to_base64(key: str, text: str) -> str:
    try:
        raw = bytes.fromhex(text)
    except ValueError:
        raise BadRequest(f"{key} {text!r} is not hex (OTLP/JSON writes ids as hex strings)") from None
    return base64.b64encode(raw).decode()


def base64_to_hex(_key: str, text: str) -> str:
    return base64.b64decode(text).hex()


def decode(path: str, content_type: str, raw: bytes):
    """The request on `path` as a dict (ids in hex), or BadRequest."""
    request_type = SIGNALS[path][0]
    if content_type == PROTOBUF:
        try:
            message = request_type.FromString(raw)
        except DecodeError as error:
            raise BadRequest(f"not a protobuf {request_type.__name__}: {error}") from None
    elif content_type == JSON:
        try:
            parsed = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError) as error:
            raise BadRequest(f"not JSON: {error}") from None
        message = request_type()
        try:
            json_format.ParseDict(map_ids(parsed, hex_to_base64), message)
        except json_format.ParseError as error:
            raise BadRequest(f"not an OTLP/JSON {request_type.__name__}: {error}") from None
    else:
        raise BadRequest(f"Content-Type {content_type or '(none)'} is neither {PROTOBUF} nor {JSON}")
    return map_ids(json_format.MessageToDict(message), base64_to_hex)


def answer_body(path: str, content_type: str) -> tuple[bytes, str]:
    """An empty Export*ServiceResponse for `path`, in the request's encoding."""
    response = SIGNALS[path][1]()
    if content_type == JSON:
        return json_format.MessageToJson(response).encode(), JSON
    return response.SerializeToString(), PROTOBUF


def uncompress(encoding: str, raw: bytes) -> bytes:
    if encoding in ("", "identity"):
        return raw
    try:
        if encoding == "gzip":
            return gzip.decompress(raw)
        if encoding == "deflate":
            return zlib.decompress(raw)
    except (OSError, EOFError, zlib.error) as error:
        raise BadRequest(f"Content-Encoding {encoding}, but the body does not decompress: {error}") from None
    raise BadRequest(f"Content-Encoding {encoding} is not supported (gzip, deflate or none)")


class Recorder:
    """Writes one line per request on stdout, whole and flushed, from any handler thread."""

    def __init__(self):
        self.lock = threading.Lock()

    def write(self, record: dict) -> None:
        line = json.dumps(record, separators=(",", ":"))
        with self.lock:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()


def handler_class(recorder: Recorder, status: int | None, hang: bool):
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive, as exporters use it

        def log_message(self, *_args) -> None:  # quiet: the recorded lines say it all
            pass

        def do_POST(self) -> None:
            self.handle_request()

        def do_GET(self) -> None:
            self.handle_request()

        def do_PUT(self) -> None:
            self.handle_request()

        def handle_request(self) -> None:
            path = self.path.split("?", 1)[0]
            content_type = self.headers.get("Content-Type", "").split(";", 1)[0].strip().lower()
            record = {"method": self.command, "path": self.path, "contentType": self.headers.get("Content-Type"),
                      "headers": self.header_map(), "body": None, "error": None}
            code, body, answer_type = 200, b"", "text/plain"
            try:
                raw = self.read_body()
                if path not in SIGNALS:
                    code, record["error"] = 404, f"no OTLP signal at {path} (/v1/traces, /v1/metrics, /v1/logs)"
                elif self.command != "POST":
                    code, record["error"] = 405, f"{self.command} {path}: OTLP/HTTP exports with POST"
                else:
                    record["body"] = decode(path, content_type, uncompress(
                        self.headers.get("Content-Encoding", "").strip().lower(), raw))
                    body, answer_type = answer_body(path, content_type)
            except BadRequest as error:
                code, record["error"] = 400, str(error)
            except Exception as error:  # noqa: BLE001 — recorded, so a test sees it rather than a traceback
                code, record["error"] = 500, f"receiver failed: {type(error).__name__}: {error}"
            if status is not None:
                code = status
            if code == 204:
                body = b""
            elif code >= 300:  # no Export*ServiceResponse: say in plain text why
                body = (record["error"] or f"every request is answered {status} (--status)").encode()
                answer_type = "text/plain"
            recorder.write(record)
            if hang:
                while True:
                    time.sleep(3600)
            self.answer(code, body, answer_type)

        def header_map(self) -> dict:
            headers: dict[str, str] = {}
            for name, value in self.headers.items():
                name = name.lower()
                headers[name] = f"{headers[name]}, {value}" if name in headers else value
            return headers

        def read_body(self) -> bytes:
            if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                chunks = []
                while True:
                    size = int(self.rfile.readline().split(b";", 1)[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass  # trailers
                        return b"".join(chunks)
                    chunks.append(self.rfile.read(size))
                    self.rfile.readline()
            try:
                length = int(self.headers.get("Content-Length") or 0)
            except ValueError:
                raise BadRequest(f"Content-Length {self.headers.get('Content-Length')!r} is not a number") from None
            return self.rfile.read(length)

        def answer(self, code: int, body: bytes, content_type: str) -> None:
            try:
                self.send_response(code)
                self.send_header("Content-Type", content_type)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            except OSError:
                pass  # the exporter hung up; its request is recorded all the same

    return Handler


def main() -> int:
    parser = argparse.ArgumentParser(description="A loopback OTLP/HTTP receiver that prints what it decodes.")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1 (default 0: any free port)")
    mode = parser.add_mutually_exclusive_group()
    mode.add_argument("--status", type=int, metavar="N", help="answer every request with status N")
    mode.add_argument("--hang", action="store_true", help="record every request, then never answer it")
    args = parser.parse_args()

    recorder = Recorder()
    server = ThreadingHTTPServer(("127.0.0.1", args.port), handler_class(recorder, args.status, args.hang))
    server.daemon_threads = True  # a hanging handler does not keep the process alive
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(0))
    recorder.write({"listening": server.server_address[1]})
    threading.Thread(target=server.serve_forever, daemon=True).start()
    sys.stdin.buffer.read()  # until stdin closes
    return 0


if __name__ == "__main__":
    sys.exit(main())
