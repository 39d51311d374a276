// @ts-check
// `agent-sdk test`: a reporter for Node's test runner (`--test-reporter=<this file>`, its
// destination a file the binary reads once Node has finished). It writes one JSON line,
// the TestResults of src/commands/test/results.rs:
//
//   {"ran": 3, "failed": [{"file": "/abs/bot/hooks/x.test.ts", "line": 18, "column": 10,
//                          "test": "billing > refunds", "message": "Expected …"}],
//    "empty": ["/abs/bot/hooks/nothing.test.ts"]}
//
// `ran`: the tests that ran (neither skipped nor todo), so that a --test-name-pattern no
// test matches is not a green run on nothing. `failed`: each failed test, where it failed
// (the first frame of its error's stack in its own file, which --enable-source-maps has
// mapped to the `.ts` line; else where the test is declared), for `--reporter github`.
// `empty`: each file that passed without a test of its own (Node reports such a file as one
// passing test named after the file), which is no pass.
//
// What Node says differs between versions: Node 22+ counts each file's tests in a
// `test:summary` event (and reports a file none of whose tests ran as one passing test,
// named after the file); Node 20 has no such event, and reports a test the name pattern
// leaves out as skipped. Node 20.6 gives no line and column; 20.13 gives `file` as a URL.

import { fileURLToPath } from 'node:url';
import { stripVTControlCharacters } from 'node:util';

export default async function* testResults(source) {
  /** The names of the tests now running, by file and nesting: a failure's ancestors. */
  const running = new Map();
  let ranByEvents = 0;
  let ranBySummaries = null;
  const failed = [];
  const empty = [];
  for await (const { type, data } of source) {
    const file = pathOf(data.file);
    if (type === 'test:start') {
      const names = running.get(file) ?? [];
      names.length = data.nesting;
      names.push(data.name);
      running.set(file, names);
    } else if (type === 'test:summary' && data.file !== undefined) {
      const { tests, skipped, todo } = data.counts;
      ranBySummaries = (ranBySummaries ?? 0) + tests - skipped - todo;
    } else if ((type === 'test:pass' || type === 'test:fail') && !data.skip && !data.todo) {
      if (data.details?.type === 'suite' || failureType(data) === 'subtestsFailed') continue;
      ranByEvents += 1;
      if (type === 'test:fail') failed.push(failure(data, file, running.get(file) ?? []));
      else if (data.nesting === 0 && isTheFile(data.name, file)) empty.push(file);
    }
  }
  yield `${JSON.stringify({ ran: ranBySummaries ?? ranByEvents, failed, empty })}\n`;
}

/** Whether a test's `name` is its file's: absolute on Node 20, as it was given on 22+. */
function isTheFile(name, file) {
  if (typeof name !== 'string' || file === undefined) return false;
  return pathOf(name) === file || file.endsWith(`/${name}`);
}

function failureType(data) {
  return data.details?.error?.failureType;
}

/** One failed test: its full name, its message, and where it failed. */
function failure(data, file, names) {
  const ancestors = names.slice(0, data.nesting);
  const error = data.details?.error;
  // Node wraps what the test threw (ERR_TEST_FAILURE): the cause is what the author wrote.
  const thrown = error?.code === 'ERR_TEST_FAILURE' && error.cause !== undefined ? error.cause : error;
  const at = frameIn(thrown?.stack, file) ?? { line: data.line ?? null, column: data.column ?? null };
  return {
    file: file ?? null,
    line: at.line,
    column: at.column,
    test: [...ancestors, data.name].join(' > '),
    message: stripVTControlCharacters(messageOf(thrown)),
  };
}

function messageOf(thrown) {
  if (thrown instanceof Error || typeof thrown?.message === 'string') return String(thrown.message).trimEnd();
  return String(thrown);
}

/** The first frame of `stack` in `file`: `at f (/abs/file.ts:18:10)` or `file:///abs/…`. */
function frameIn(stack, file) {
  if (typeof stack !== 'string' || file === undefined) return undefined;
  for (const line of stack.split('\n')) {
    const frame = /^\s*at (?:.*\()?(.+?):(\d+):(\d+)\)?$/.exec(line);
    if (frame && pathOf(frame[1]) === file) return { line: Number(frame[2]), column: Number(frame[3]) };
  }
  return undefined;
}

function pathOf(fileOrUrl) {
  if (typeof fileOrUrl !== 'string') return undefined;
  if (!fileOrUrl.startsWith('file:')) return fileOrUrl;
  try {
    return fileURLToPath(fileOrUrl);
  } catch {
    return fileOrUrl;
  }
}
