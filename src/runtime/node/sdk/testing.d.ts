// `@cursor/bdk/testing` (and `@grok/agent-sdk/testing`, `@cursor/july/testing`): the test kit's types.

import type { EventOf, HookContext, HookDefinition, SessionEvent, SessionEventType } from "./index.js";

/** One `ctx.host.otel` call, as the runtime reports it (an increment without a value counts 1). */
export interface OtelRecord {
  readonly kind: "counter" | "histogram" | "tag";
  readonly name: string;
  readonly value: unknown;
  readonly attrs: Readonly<Record<string, unknown>>;
}

/** One measurement a hook took with `@opentelemetry/api` (`metrics.getMeter(scope)`). */
export interface MetricRecord {
  /** The instrument's kind: a counter's `add`, an up-down counter's, a histogram's `record`, a gauge's (an observable's, at `telemetry.collect()`). */
  readonly kind: "counter" | "updown" | "histogram" | "gauge";
  /** The meter's name. */
  readonly scope: string;
  /** The instrument's name. */
  readonly name: string;
  readonly value: number;
  readonly attrs: Readonly<Record<string, unknown>>;
  /** The instrument's unit, or null when it has none. */
  readonly unit: string | null;
}

/** One span a hook ended with `@opentelemetry/api` (`trace.getTracer(scope)`). */
export interface SpanRecord {
  /** The tracer's name. */
  readonly scope: string;
  readonly name: string;
  /** `SpanKind` (0 internal, 1 server, 2 client, 3 producer, 4 consumer). */
  readonly kind: number;
  readonly attrs: Readonly<Record<string, unknown>>;
  /** `SpanStatusCode` (0 unset, 1 ok, 2 error), with the message an error was given. */
  readonly status: { readonly code: number; readonly message?: string };
  /** `addEvent` and `recordException` (an `exception` event with `exception.type`/`.message`). */
  readonly events: readonly { readonly name: string; readonly attrs: Readonly<Record<string, unknown>> }[];
  readonly links: readonly { readonly traceId: string; readonly spanId: string; readonly attrs: Readonly<Record<string, unknown>> }[];
  readonly traceId: string;
  readonly spanId: string;
  /** The span it was started in (`startActiveSpan`, `context.with`), or null. */
  readonly parentSpanId: string | null;
}

/** One record a hook emitted with `@opentelemetry/api`'s `logs` (`logs.getLogger(scope).emit(…)`). */
export interface LogRecord {
  /** The logger's name. */
  readonly scope: string;
  /** The body as text (anything else as JSON). */
  readonly body: string;
  readonly attrs: Readonly<Record<string, unknown>>;
  /** `SeverityNumber` (1–24), or null. */
  readonly severity: number | null;
  readonly severityText: string | null;
  /** The span it was emitted in, if any. */
  readonly traceId: string | null;
  readonly spanId: string | null;
}

/**
 * What hooks recorded with `@opentelemetry/api` in this process since it started or the last
 * `reset()`, in order: the kit registers the API's global providers as `agent-sdk run` does.
 * Reading it throws where the project installs the OpenTelemetry SDK, whose providers are then
 * in charge.
 */
export declare const telemetry: {
  readonly metrics: readonly MetricRecord[];
  readonly spans: readonly SpanRecord[];
  readonly logs: readonly LogRecord[];
  /** Runs the observable instruments' callbacks once; each observation is a `gauge` measurement. */
  collect(): Promise<void>;
  /** Forgets what was recorded (e.g. in `beforeEach`). */
  reset(): void;
};

/** One `ctx.artifacts.tag` call; `turnId` is the event's when the call ran under `dispatch`, else null. */
export interface ArtifactRecord {
  readonly name: string;
  readonly value: unknown;
  readonly turnId: string | null;
}

/** A stub `HookContext` with in-memory host calls, recording what a test asserts on. */
export type TestContext = HookContext & {
  readonly host: HookContext["host"] & {
    readonly otel: HookContext["host"]["otel"] & {
      /** Every otel call so far, in order (a copy). */
      readonly recorded: readonly OtelRecord[];
    };
  };
  readonly artifacts: HookContext["artifacts"] & {
    /** Every artifact tagged so far, in order (a copy). */
    readonly recorded: readonly ArtifactRecord[];
  };
};

/** What `createTestContext` may change: `session`, `agent`, `channel` are merged over the defaults. */
export interface TestContextOverrides {
  session?: Partial<HookContext["session"]>;
  agent?: Partial<HookContext["agent"]>;
  channel?: Partial<HookContext["channel"]>;
  stateRoot?: string;
}

/**
 * A stub ctx: session `ses_test` (channel `local`, mode `chat`, purpose `live`), agent
 * `test-agent`, and `kv`, `files`, `reminders`, `artifacts` answered in memory, empty at first.
 */
export function createTestContext(overrides?: TestContextOverrides): TestContext;

/**
 * Any part of `T`: what is left out keeps the example's value (objects are merged deeply,
 * and each object of an array over the example's first item).
 */
export type DeepPartial<T> = T extends ReadonlyArray<infer Item>
  ? ReadonlyArray<DeepPartial<Item>>
  : T extends object
    ? { [K in keyof T]?: DeepPartial<T[K]> }
    : T;

/** What an event maker may change: `data` fields (merged deeply) and the envelope's fields. */
export type EventOverrides<T extends SessionEventType> = {
  data?: DeepPartial<EventOf<T>["data"]>;
  index?: number;
  sessionId?: string;
  turnId?: string;
  at?: string;
};

/**
 * `events["turn.completed"]()`: a realistic, deep-frozen event of each type, with the
 * `data` `agent-sdk run --event <type>` dispatches, index 0, session `ses_test`, turn
 * `turn_test` and `at` 2026-01-01T00:00:00.000Z.
 */
export declare const events: { readonly [T in SessionEventType]: (overrides?: EventOverrides<T>) => EventOf<T> };

/**
 * Runs `hook`'s handler for `event.type`, then its `"*"` handler, as the runtime does;
 * resolves with `ctx` when both finished, rejects with the first handler's error.
 */
export function dispatch<C extends HookContext = TestContext>(
  hook: HookDefinition,
  event: SessionEvent,
  ctx?: C,
): Promise<C>;
