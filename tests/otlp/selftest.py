#!/usr/bin/env python3
"""Checks receiver.py beside this file: starts it in each mode, posts OTLP requests built
with the same opentelemetry-proto classes (a span with a parent, a delta sum, a histogram,
a log record), as protobuf, gzipped protobuf and OTLP/JSON, and asserts what it records and
answers. The Rust side (tests/it/common/otlp.rs) flattens these lines; this checks decoding.

  python3 tests/otlp/selftest.py

Prints one line per check and `selftest: N passed, 0 failed`; exits 1 at the first failure.
"""

import base64
import gzip
import http.client
import json
import subprocess
import sys
from pathlib import Path

from google.protobuf import json_format
from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import ExportMetricsServiceRequest
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (ExportTraceServiceRequest,
                                                                      ExportTraceServiceResponse)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue, KeyValue
from opentelemetry.proto.logs.v1.logs_pb2 import SeverityNumber
from opentelemetry.proto.metrics.v1.metrics_pb2 import AggregationTemporality
from opentelemetry.proto.trace.v1.trace_pb2 import Span

RECEIVER = Path(__file__).resolve().parent / "receiver.py"
TRACE_ID = "5b8efff798038103d269b633813fc60c"
PARENT_ID = "eee19b7ec3c1b174"
SPAN_ID = "0af7651916cd43dd"
PROTOBUF = "application/x-protobuf"
passed = 0


def check(name: str, condition: bool, shown=None) -> None:
    global passed
    if not condition:
        print(f"FAILED: {name}" + (f"\n  got: {json.dumps(shown, indent=1)[:3000]}" if shown is not None else ""))
        print(f"selftest: {passed} passed, 1 failed")
        sys.exit(1)
    passed += 1
    print(f"ok: {name}")


class Receiver:
    """receiver.py as a child, with its stdout read line by line."""

    def __init__(self, *args: str):
        self.process = subprocess.Popen([sys.executable, str(RECEIVER), *args], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, text=True)
        self.port = json.loads(self.process.stdout.readline())["listening"]

    def post(self, path: str, body: bytes, content_type: str, headers: dict | None = None,
             timeout: float = 5.0) -> tuple[int | None, bytes]:
        """(status, body) of one POST; (None, b"") when no answer came within `timeout`."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            connection.request("POST", path, body, {"Content-Type": content_type, **(headers or {})})
            response = connection.getresponse()
            return response.status, response.read()
        except TimeoutError:
            return None, b""
        finally:
            connection.close()

    def next_line(self) -> dict:
        return json.loads(self.process.stdout.readline())

    def stop(self) -> int | None:
        """Closes its stdin and returns its exit code: None (and it is killed) if it does not exit."""
        self.process.stdin.close()
        return self.exit_code()

    def exit_code(self) -> int | None:
        try:
            return self.process.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()
            return None


def attribute(key: str, **value) -> KeyValue:
    return KeyValue(key=key, value=AnyValue(**value))


def trace_request() -> ExportTraceServiceRequest:
    request = ExportTraceServiceRequest()
    resource_spans = request.resource_spans.add()
    resource_spans.resource.attributes.append(attribute("service.name", string_value="acme-bot"))
    scope_spans = resource_spans.scope_spans.add()
    scope_spans.scope.name = "agent-sdk"
    span = scope_spans.spans.add(trace_id=bytes.fromhex(TRACE_ID), span_id=bytes.fromhex(SPAN_ID),
                                 parent_span_id=bytes.fromhex(PARENT_ID), name="hook usage",
                                 kind=Span.SPAN_KIND_INTERNAL, start_time_unix_nano=1_700_000_000_000_000_000,
                                 end_time_unix_nano=1_700_000_000_005_000_000)
    span.attributes.append(attribute("agent_sdk.hook.index", int_value=2))
    span.links.add(trace_id=bytes.fromhex(TRACE_ID), span_id=bytes.fromhex(PARENT_ID))
    return request


def metrics_request() -> ExportMetricsServiceRequest:
    request = ExportMetricsServiceRequest()
    scope_metrics = request.resource_metrics.add().scope_metrics.add()
    counter = scope_metrics.metrics.add(name="acme.tokens.input", unit="{token}")
    counter.sum.aggregation_temporality = AggregationTemporality.AGGREGATION_TEMPORALITY_DELTA
    counter.sum.is_monotonic = True
    point = counter.sum.data_points.add(as_int=412, time_unix_nano=1_700_000_000_000_000_000)
    point.attributes.append(attribute("channel", string_value="slack"))
    point.exemplars.add(as_int=412, trace_id=bytes.fromhex(TRACE_ID), span_id=bytes.fromhex(SPAN_ID))
    histogram = scope_metrics.metrics.add(name="acme.turn.duration", unit="ms")
    histogram.histogram.aggregation_temporality = AggregationTemporality.AGGREGATION_TEMPORALITY_CUMULATIVE
    histogram.histogram.data_points.add(count=2, sum=200.0, bucket_counts=[0, 2, 0], explicit_bounds=[50, 150])
    return request


def logs_request() -> ExportLogsServiceRequest:
    request = ExportLogsServiceRequest()
    record = request.resource_logs.add().scope_logs.add().log_records.add(
        severity_number=SeverityNumber.SEVERITY_NUMBER_WARN, severity_text="WARN",
        trace_id=bytes.fromhex(TRACE_ID), span_id=bytes.fromhex(SPAN_ID))
    record.body.string_value = "hook usage threw"
    return request


def otlp_json(request, enums_as_ints: bool = False) -> bytes:
    """The request as an exporter writes OTLP/JSON: ids as hex (proto3 JSON would write base64)."""
    as_dict = json_format.MessageToDict(request, use_integers_for_enums=enums_as_ints)
    text = json.dumps(as_dict)
    for hex_id in (TRACE_ID, PARENT_ID, SPAN_ID):
        text = text.replace(json.dumps(base64.b64encode(bytes.fromhex(hex_id)).decode()), json.dumps(hex_id))
    return text.encode()


def first_span(line: dict) -> dict:
    return line["body"]["resourceSpans"][0]["scopeSpans"][0]["spans"][0]


def check_decoding() -> None:
    receiver = Receiver()
    status, body = receiver.post("/v1/traces", trace_request().SerializeToString(), PROTOBUF,
                                 {"Authorization": "Bearer secret"})
    line = receiver.next_line()
    check("protobuf traces: 200 with an empty ExportTraceServiceResponse",
          status == 200 and ExportTraceServiceResponse.FromString(body) == ExportTraceServiceResponse())
    span = first_span(line)
    check("protobuf traces: ids as lowercase hex, in the span and its link",
          (span["traceId"], span["spanId"], span["parentSpanId"], span["links"][0]["spanId"])
          == (TRACE_ID, SPAN_ID, PARENT_ID, PARENT_ID), span)
    check("protobuf traces: camelCase names, enums by name, int64 as strings",
          span["kind"] == "SPAN_KIND_INTERNAL" and span["startTimeUnixNano"] == "1700000000000000000"
          and span["attributes"] == [{"key": "agent_sdk.hook.index", "value": {"intValue": "2"}}], span)
    check("path, content type, lowercased headers, no error",
          line["path"] == "/v1/traces" and line["contentType"] == PROTOBUF
          and line["headers"]["authorization"] == "Bearer secret" and line["error"] is None, line)

    status, body = receiver.post("/v1/traces", otlp_json(trace_request(), enums_as_ints=True),
                                 "application/json; charset=utf-8")
    json_line = receiver.next_line()
    check("OTLP/JSON traces (hex ids, enums as ints): 200 with {} and the same body as protobuf",
          status == 200 and json.loads(body) == {} and json_line["body"] == line["body"], json_line)

    receiver.post("/v1/traces", gzip.compress(trace_request().SerializeToString()), PROTOBUF,
                  {"Content-Encoding": "gzip"})
    check("gzipped protobuf decodes to the same body", receiver.next_line()["body"] == line["body"])

    receiver.post("/v1/metrics", metrics_request().SerializeToString(), PROTOBUF)
    metrics = receiver.next_line()["body"]["resourceMetrics"][0]["scopeMetrics"][0]["metrics"]
    counter, histogram = metrics
    check("metrics: a delta monotonic sum with its attributes and exemplar ids in hex",
          counter["sum"]["aggregationTemporality"] == "AGGREGATION_TEMPORALITY_DELTA"
          and counter["sum"]["isMonotonic"] is True and counter["sum"]["dataPoints"][0]["asInt"] == "412"
          and counter["sum"]["dataPoints"][0]["attributes"] == [{"key": "channel", "value": {"stringValue": "slack"}}]
          and counter["sum"]["dataPoints"][0]["exemplars"][0]["traceId"] == TRACE_ID, counter)
    check("metrics: a cumulative histogram's count, sum and buckets",
          histogram["histogram"]["aggregationTemporality"] == "AGGREGATION_TEMPORALITY_CUMULATIVE"
          and histogram["histogram"]["dataPoints"][0] == {"count": "2", "sum": 200.0, "bucketCounts": ["0", "2", "0"],
                                                          "explicitBounds": [50.0, 150.0]}, histogram)

    receiver.post("/v1/logs", otlp_json(logs_request()), "application/json")
    record = receiver.next_line()["body"]["resourceLogs"][0]["scopeLogs"][0]["logRecords"][0]
    check("OTLP/JSON logs: severity, body and ids in hex",
          record == {"severityNumber": "SEVERITY_NUMBER_WARN", "severityText": "WARN",
                     "body": {"stringValue": "hook usage threw"}, "traceId": TRACE_ID, "spanId": SPAN_ID}, record)

    for name, payload, content_type in [
        ("protobuf that is not a request", b"\xff\xff\xff", PROTOBUF),
        ("JSON with a misspelt field", b'{"resourceSpan": []}', "application/json"),
        ("JSON with an id that is not hex", otlp_json(trace_request()).replace(TRACE_ID.encode(), b"zz" * 16),
         "application/json"),
        ("an unknown content type", b"{}", "text/plain"),
    ]:
        status, _ = receiver.post("/v1/traces", payload, content_type)
        bad = receiver.next_line()
        check(f"{name}: 400, recorded with body null and an error", status == 400 and bad["body"] is None
              and isinstance(bad["error"], str) and bad["error"], bad)
    status, _ = receiver.post("/v1/trace", trace_request().SerializeToString(), PROTOBUF)
    wrong = receiver.next_line()
    check("a wrong path: 404, recorded with its path and an error",
          status == 404 and wrong["path"] == "/v1/trace" and "no OTLP signal" in wrong["error"], wrong)
    check("exits when its stdin closes", receiver.stop() == 0)


def check_modes() -> None:
    failing = Receiver("--status", "500")
    status, _ = failing.post("/v1/metrics", metrics_request().SerializeToString(), PROTOBUF)
    line = failing.next_line()
    check("--status 500: answers 500, still decodes and records the request",
          status == 500 and line["body"]["resourceMetrics"] and line["error"] is None, line)
    failing.stop()

    hanging = Receiver("--hang")
    status, _ = hanging.post("/v1/logs", logs_request().SerializeToString(), PROTOBUF, timeout=0.5)
    line = hanging.next_line()
    check("--hang: records the request, never answers", status is None and line["body"]["resourceLogs"], line)
    hanging.process.terminate()
    check("--hang: a SIGTERM ends it, a hanging handler thread notwithstanding", hanging.exit_code() == 0)


def main() -> int:
    try:
        check_decoding()
        check_modes()
    except Exception as error:  # an answer or line of the wrong shape: a failure, said as one
        print(f"FAILED after {passed} checks: {type(error).__name__}: {error}")
        print(f"selftest: {passed} passed, 1 failed")
        return 1
    print(f"selftest: {passed} passed, 0 failed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
