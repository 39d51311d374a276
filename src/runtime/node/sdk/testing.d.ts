// `@cursor/bdk/testing` (and `@grok/agent-sdk/testing`, `@cursor/july/testing`): the test kit's types.

import type { EventOf, HookContext, HookDefinition, SessionEvent, SessionEventType } from "./index.js";

/** One `ctx.host.otel` call, as the runtime reports it (an increment without a value counts 1). */
export interface OtelRecord {
  readonly kind: "counter" | "histogram" | "tag";
  readonly name: string;
  readonly value: unknown;
  readonly attrs: Readonly<Record<string, unknown>>;
}

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
