// The playground of `agent-sdk dev`, served from the binary: Chat, Agent, the hooks
// timeline, Raw and Logs, all over dev's own HTTP API (docs/commands/dev.md). The token
// comes in the URL's fragment (`#token=…`, never sent to a server), is kept for this tab
// only, and goes out as each call's `authorization` header. Every text from the server is
// set as text, never as HTML.

const TOKEN_KEY = 'agent-sdk-dev-token';
const $ = (id) => document.getElementById(id);

/** An element with attributes and children (strings become text). */
function el(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== undefined && value !== null) element.setAttribute(name, String(value));
  }
  element.append(...children.filter((child) => child !== undefined && child !== null));
  return element;
}

// ---------------------------------------------------------------- the token and calls

function takeToken() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  const given = fragment.get('token');
  if (given) {
    sessionStorage.setItem(TOKEN_KEY, given);
    history.replaceState(null, '', location.pathname + location.search);
  }
  return sessionStorage.getItem(TOKEN_KEY);
}

let token = takeToken();

class Unauthorized extends Error {}

function askForToken() {
  $('token-form').hidden = false;
  setStatus('this server needs its token', true);
}

/** A call to dev's API, relative to the page (so `/<slug>/playground` calls `/<slug>/v1/…`). */
async function call(path, options = {}) {
  const headers = { ...options.headers };
  if (token) headers.authorization = `Bearer ${token}`;
  const response = await fetch(path, { ...options, headers });
  if (response.status === 401) {
    askForToken();
    throw new Unauthorized('the server refused the token');
  }
  return response;
}

/** The error a refused call's body says (`{ error }`, or the hosting API's `{ message }`). */
async function refusalOf(response) {
  const body = await response.json().catch(() => ({}));
  return body.message ?? body.error ?? `${response.status} ${response.statusText}`;
}

async function getJson(path) {
  const response = await call(path);
  if (!response.ok) throw new Error(await refusalOf(response));
  return response.json();
}

function setStatus(text, bad = false) {
  const status = $('status');
  status.textContent = text;
  status.classList.toggle('bad', bad);
}

// ---------------------------------------------------------------- streams

/** Hands each line of a streamed response to `onLine`, until it ends. */
async function readLines(response, onLine) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  let buffer = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffer += value;
    let newline;
    while ((newline = buffer.indexOf('\n')) >= 0) {
      const line = buffer.slice(0, newline).replace(/\r$/, '');
      buffer = buffer.slice(newline + 1);
      onLine(line);
    }
  }
  if (buffer) onLine(buffer);
}

/** Hands each server-sent event (`{ id, data }`) of a response to `onEvent`. */
async function readServerSentEvents(response, onEvent) {
  let data = [];
  let id = null;
  await readLines(response, (line) => {
    if (line === '') {
      if (data.length > 0) onEvent({ id, data: data.join('\n') });
      data = [];
      return;
    }
    if (line.startsWith(':')) return;
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'data') data.push(value);
    if (field === 'id') id = value;
  });
}

/**
 * Follows a streamed route until `signal` aborts: `open()` makes the request (again after a
 * drop, a second later), `read(response)` reads it.
 */
async function follow(signal, open, read) {
  while (!signal.aborted) {
    try {
      const response = await open();
      if (!response.ok) throw new Error(await refusalOf(response));
      await read(response);
    } catch (problem) {
      if (signal.aborted || problem instanceof Unauthorized) return;
      setStatus(`lost the server (${problem.message}); trying again`, true);
    }
    if (signal.aborted) return;
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// ---------------------------------------------------------------- tabs

const tabs = [...document.querySelectorAll('[role="tab"]')];

function selectTab(tab) {
  for (const other of tabs) {
    const selected = other === tab;
    other.setAttribute('aria-selected', String(selected));
    other.tabIndex = selected ? 0 : -1;
    $(other.getAttribute('aria-controls')).hidden = !selected;
  }
}

for (const tab of tabs) {
  tab.addEventListener('click', () => selectTab(tab));
  tab.addEventListener('keydown', (event) => {
    const at = tabs.indexOf(tab);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[event.key];
    if (to === undefined) return;
    event.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length];
    next.focus();
    selectTab(next);
  });
}

// ---------------------------------------------------------------- the session shown

const session = {
  id: null,
  /** Aborts the follow of its timeline. */
  following: null,
  /** turnId → the reply's element in the transcript. */
  replies: new Map(),
  /** event index → the list of its handlers' runs in the timeline. */
  runs: new Map(),
};

function clearSessionViews() {
  for (const id of ['transcript', 'timeline', 'raw']) $(id).replaceChildren();
  session.replies.clear();
  session.runs.clear();
}

function showSession(id) {
  session.following?.abort();
  session.following = null;
  session.id = id || null;
  clearSessionViews();
  renderLogs();
  if (!session.id) {
    setStatus('a new session starts with the first message');
    return;
  }
  const controller = new AbortController();
  session.following = controller;
  const path = `v1/sessions/${encodeURIComponent(session.id)}/timeline?follow=true`;
  follow(
    controller.signal,
    () => {
      // A follow begun again sends the whole timeline again.
      clearSessionViews();
      return call(path, { signal: controller.signal });
    },
    (response) => {
      setStatus(`session ${session.id}`);
      return readLines(response, (line) => {
        if (!line.trim()) return;
        const item = JSON.parse(line);
        if (item.event) onEvent(item.event);
        if (item.run) onRun(item.run);
      });
    },
  );
}

function onEvent(envelope) {
  chatEvent(envelope);
  timelineEvent(envelope);
  $('raw').append(el('li', { 'data-index': envelope.index }, el('pre', {}, JSON.stringify(envelope, null, 2))));
}

// ---------------------------------------------------------------- chat

function say(className, text, attributes = {}) {
  const item = el('li', { class: className, ...attributes }, text);
  $('transcript').append(item);
  item.scrollIntoView({ block: 'nearest' });
  return item;
}

function reply(turnId) {
  let item = session.replies.get(turnId);
  if (!item) {
    item = say('agent', '', { 'data-turn': turnId });
    session.replies.set(turnId, item);
  }
  return item;
}

function chatEvent({ type, turnId, data }) {
  if (type === 'message.received') say('user', data?.text ?? '');
  if (type === 'message.appended') reply(turnId).textContent += data?.delta ?? '';
  if (type === 'message.completed') reply(turnId).textContent = data?.text ?? '';
  if (type === 'turn.failed') {
    const status = data?.status === 'cancelled' ? 'cancelled' : 'failed';
    say('failed', `turn ${status}: ${data?.message ?? ''}`);
  }
  if (type === 'turn.completed') {
    const usage = data?.usage;
    const tokens = usage ? ` · ${usage.inputTokens} tokens in, ${usage.outputTokens} out` : '';
    say('note', `turn completed${tokens}`);
  }
}

async function listSessions(selected) {
  const { sessions } = await getJson('v1/sessions');
  const select = $('session');
  select.replaceChildren(el('option', { value: '' }, 'New session'));
  for (const listed of sessions) {
    const name = listed.title ? `${listed.title} (${listed.id})` : listed.id;
    select.append(el('option', { value: listed.id }, `${name} · ${listed.purpose} · ${listed.events} events`));
  }
  select.value = selected ?? '';
}

async function newSession() {
  const response = await call('v1/sessions', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ purpose: $('purpose').value, mode: 'chat' }),
  });
  if (!response.ok) throw new Error(await refusalOf(response));
  const { id } = await response.json();
  await listSessions(id).catch(() => {});
  $('session').value = id;
  showSession(id);
  return id;
}

async function send() {
  const text = $('message').value;
  if (!text.trim()) return;
  const body = { text };
  if ($('use-script').checked) {
    try {
      body.script = JSON.parse($('script').value);
    } catch (problem) {
      say('failed', `the script is not JSON: ${problem.message}`);
      return;
    }
  }
  $('send').disabled = true;
  try {
    const id = session.id ?? (await newSession());
    const response = await call(`v1/sessions/${encodeURIComponent(id)}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    if (!response.ok) {
      say('failed', await refusalOf(response));
      return;
    }
    $('message').value = '';
    // The turn's events come in through the session's timeline; this waits for its end.
    await response.body?.pipeTo(new WritableStream());
    listSessions(id).catch(() => {});
  } catch (problem) {
    if (!(problem instanceof Unauthorized)) say('failed', problem.message);
  } finally {
    $('send').disabled = false;
    $('message').focus();
  }
}

$('send-form').addEventListener('submit', (event) => {
  event.preventDefault();
  send();
});
$('message').addEventListener('keydown', (event) => {
  if (event.key === 'Enter' && !event.shiftKey && !event.isComposing) {
    event.preventDefault();
    send();
  }
});
$('session').addEventListener('change', () => showSession($('session').value));
$('new-session').addEventListener('click', () => {
  $('session').value = '';
  showSession('');
  $('message').focus();
});

// ---------------------------------------------------------------- the hooks timeline

const OUTCOMES = {
  ok: 'ok',
  threw: 'threw',
  timed_out: 'timed out',
  unconfirmed: 'unconfirmed',
  exited: 'exited the runtime',
};

function timelineEvent({ index, type, turnId }) {
  const runs = el('ul', { 'aria-label': `handlers of event ${index}` }, el('li', { class: 'none' }, 'no handler has reported'));
  session.runs.set(index, runs);
  const heading = el('div', { class: 'event' }, `#${index} ${type} `, turnId ? el('span', { class: 'mono' }, turnId) : null);
  $('timeline').append(el('li', { 'data-index': index, 'data-type': type }, heading, runs));
}

function onRun(run) {
  const runs = session.runs.get(run.event);
  if (!runs) return;
  runs.querySelector('.none')?.remove();
  const ms = typeof run.ms === 'number' ? `${run.ms.toFixed(run.ms < 10 ? 2 : 0)} ms` : 'time unknown';
  runs.append(
    el(
      'li',
      { 'data-hook': run.hook, 'data-outcome': run.outcome },
      el('code', {}, run.hook),
      el('span', { class: 'mono' }, run.handler),
      el('span', { class: `badge ${run.outcome}` }, OUTCOMES[run.outcome] ?? run.outcome),
      el('span', { class: 'mono' }, ms),
      run.error ? el('span', { class: run.outcome }, run.error) : null,
      run.at ? el('span', { class: 'mono' }, `at ${run.at}`) : null,
    ),
  );
}

// ---------------------------------------------------------------- the agent

const described = { info: null, check: null };

/** Reads what the server's last check says, and shows it when it changed. */
async function refreshAgent() {
  const [info, check] = await Promise.all([call('v1/info'), call('v1/check')]);
  if (!info.ok) throw new Error(await refusalOf(info));
  if (!check.ok) throw new Error(await refusalOf(check));
  const [infoText, checkText] = await Promise.all([info.text(), check.text()]);
  if (infoText === described.info && checkText === described.check) return;
  const first = described.info === null;
  described.info = infoText;
  described.check = checkText;
  renderAgent(JSON.parse(infoText), JSON.parse(checkText));
  if (!first) $('agent-updated').textContent = `updated at ${new Date().toLocaleTimeString()}: the hooks changed`;
}

function renderAgent(info, check) {
  const agent = info.agents?.[0] ?? { name: '?', hooks: [], skipped: [], extensions: [] };
  $('agent-name').textContent = agent.name;
  document.title = `${agent.name} · playground · agent-sdk dev`;
  $('hooks').tBodies[0].replaceChildren(
    ...agent.hooks.map((hook) =>
      el(
        'tr',
        { 'data-hook': hook.name },
        el('td', {}, el('code', {}, hook.name), hook.extension ? el('span', { class: 'badge' }, `extension ${hook.extension}`) : null),
        el('td', { class: 'mono' }, hook.events ? hook.events.join(', ') : 'known only when it runs'),
        el('td', {}, sourceButton(hook.name, hook.path)),
      ),
    ),
  );
  $('skipped').replaceChildren(
    ...(agent.skipped.length === 0
      ? [el('li', { class: 'hint' }, 'none')]
      : agent.skipped.map((hook) =>
          el('li', { 'data-hook': hook.name }, el('code', {}, hook.name), ` skipped: ${hook.reason} `, sourceButton(hook.name, hook.path)),
        )),
  );
  const findings = check.diagnostics ?? [];
  $('findings').replaceChildren(
    ...(findings.length === 0
      ? [el('li', { class: 'hint' }, 'none')]
      : findings.map((finding) => {
          const where = finding.path ? `${finding.path}${finding.line ? `:${finding.line}:${finding.column}` : ''}` : '';
          return el(
            'li',
            { 'data-code': finding.code },
            el('span', { class: `badge ${finding.severity}` }, finding.severity),
            ' ',
            el('code', {}, finding.code),
            ` ${finding.message} `,
            el('span', { class: 'mono' }, where),
            finding.help ? el('div', { class: 'hint' }, finding.help) : null,
          );
        })),
  );
  $('extensions').replaceChildren(
    ...(agent.extensions.length === 0
      ? [el('li', { class: 'hint' }, 'none')]
      : agent.extensions.map((extension) => {
          const from = extension.package ? ` from ${extension.package.name}${extension.package.version ? `@${extension.package.version}` : ''}` : '';
          const hooks = extension.hooks.map((hook) => `${hook.name}${hook.disabled ? ' (disabled)' : ''}`).join(', ');
          return el('li', {}, el('code', {}, extension.namespace), `${from}: ${hooks || 'no hooks'}`);
        })),
  );
  const hookFilter = $('logs-hook');
  const chosen = hookFilter.value;
  hookFilter.replaceChildren(el('option', { value: '' }, 'any'), ...agent.hooks.map((hook) => el('option', { value: hook.name }, hook.name)));
  hookFilter.value = agent.hooks.some((hook) => hook.name === chosen) ? chosen : '';
}

function sourceButton(name, path) {
  const button = el('button', { type: 'button', class: 'mono', title: `show ${path}` }, path);
  button.addEventListener('click', () => showSource(name, path));
  return button;
}

async function showSource(name, path) {
  $('source-view').hidden = false;
  $('source-title').textContent = path;
  try {
    const response = await call(`v1/source?hook=${encodeURIComponent(name)}`);
    $('source').textContent = response.ok ? await response.text() : await refusalOf(response);
  } catch (problem) {
    $('source').textContent = problem.message;
  }
  $('source-view').scrollIntoView({ block: 'nearest' });
}

async function watchAgent() {
  for (;;) {
    try {
      await refreshAgent();
    } catch (problem) {
      if (problem instanceof Unauthorized) return;
    }
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

// ---------------------------------------------------------------- logs

const LEVELS = ['debug', 'info', 'warn', 'error'];
const MAX_LOG_LINES = 5000;
const logRecords = [];

function logShown(record) {
  if ($('logs-this-session').checked && session.id && record.sessionId !== session.id) return false;
  if (LEVELS.indexOf(record.level) < LEVELS.indexOf($('logs-level').value)) return false;
  const hook = $('logs-hook').value;
  return !hook || record.hook === hook;
}

function logLine(record) {
  const tag = record.sessionId ? ` [${record.sessionId.replace(/^ses_/, '').slice(0, 8)}]` : '';
  const time = (record.at ?? '').slice(11, 23);
  return el('li', { class: record.level, 'data-level': record.level }, `${time} ${record.level.toUpperCase()}${tag} ${record.message}`);
}

function renderLogs() {
  $('logs').replaceChildren(...logRecords.filter(logShown).map(logLine));
}

function followLogs() {
  let lastId = null;
  const controller = new AbortController();
  follow(
    controller.signal,
    () => {
      const headers = lastId ? { 'last-event-id': lastId } : {};
      return call(`v1/logs?follow=true${lastId ? '' : '&tail=1000'}`, { headers, signal: controller.signal });
    },
    (response) =>
      readServerSentEvents(response, ({ id, data }) => {
        let record;
        try {
          record = JSON.parse(data);
        } catch {
          return;
        }
        lastId = id ?? lastId;
        logRecords.push(record);
        if (logRecords.length > MAX_LOG_LINES) logRecords.shift();
        if (logShown(record)) $('logs').append(logLine(record));
      }),
  );
}

for (const id of ['logs-this-session', 'logs-level', 'logs-hook']) $(id).addEventListener('change', renderLogs);

// ---------------------------------------------------------------- start

$('token-form').addEventListener('submit', (event) => {
  event.preventDefault();
  token = $('token-input').value.trim();
  sessionStorage.setItem(TOKEN_KEY, token);
  location.reload();
});

async function start() {
  try {
    await Promise.all([refreshAgent(), listSessions(null)]);
  } catch (problem) {
    if (!(problem instanceof Unauthorized)) setStatus(`could not reach the server: ${problem.message}`, true);
    return;
  }
  // `?session=<id>` (the hosting API's `playgroundUrl`) opens that session.
  const asked = new URLSearchParams(location.search).get('session');
  if (asked && [...$('session').options].some((option) => option.value === asked)) {
    $('session').value = asked;
    showSession(asked);
  } else {
    showSession(null);
  }
  followLogs();
  watchAgent();
  document.documentElement.dataset.ready = 'true';
  performance.mark('playground-ready');
}

start();
