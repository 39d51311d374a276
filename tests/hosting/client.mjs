// A client of the hosting API written from the vendor's HTTP API and sessions pages alone
// (VENDOR-DOCS §1.6, §1.7), as a user would write one against a hosted agent: start a
// session with POST /v1/session, follow its trace (the NDJSON event stream at traceUrl)
// while it sends a follow-up with the continuation token, then try the spent token.
// Prints what it saw as one JSON object. Usage: node client.mjs <agent URL> <token>
import { createInterface } from 'node:readline';
import { Readable } from 'node:stream';

const [url, token] = process.argv.slice(2);
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };

async function send(body) {
  const response = await fetch(`${url}/v1/session`, { method: 'POST', headers, body: JSON.stringify(body) });
  return { status: response.status, body: await response.json() };
}

const first = await send({ message: 'What is the refund policy?' });
const { sessionId, continuationToken, traceUrl } = first.body;

// Follow the session's stream live, one JSON event a line.
const following = new AbortController();
const trace = await fetch(`${traceUrl}?follow=true`, {
  headers: { authorization: headers.authorization },
  signal: following.signal,
});
const input = Readable.fromWeb(trace.body);
input.on('error', () => {}); // the abort below ends it
const lines = createInterface({ input });
const seen = [];
const completedTwice = new Promise((resolve) => {
  lines.on('line', (line) => {
    const event = JSON.parse(line);
    seen.push(event.type);
    if (seen.filter((type) => type === 'turn.completed').length === 2) resolve();
  });
});

const followUp = await send({ message: 'Thanks!', continuationToken });
await completedTwice;
lines.close();
following.abort();

const stale = await send({ message: 'Once more', continuationToken });
console.log(
  JSON.stringify({
    first: { status: first.status, ok: first.body.ok, sessionId, tokenRotated: followUp.body.continuationToken !== continuationToken },
    traceUrl,
    contentType: trace.headers.get('content-type'),
    followUp: { status: followUp.status, ok: followUp.body.ok, sameSession: followUp.body.sessionId === sessionId },
    seen,
    stale: { status: stale.status, body: stale.body },
  }),
);
