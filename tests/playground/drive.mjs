// Drives dev's playground in a real Chromium (Debian's, through playwright-core), as a user
// would: opens the URL dev printed, chats, reads the hooks timeline, the raw events and the
// logs, runs a scripted failing turn, watches the Agent tab follow a hot reload, and checks
// that pages of another site (and a DNS-rebinding name) are refused. Prints what it saw as
// JSON on stdout (tests/it/playground.rs checks it); keeps screenshots in the given folder.
//
//   node drive.mjs <playground URL with #token=…> <project dir> <screenshot dir>

import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

const [playgroundUrl, projectDir, shots] = process.argv.slice(2);
mkdirSync(shots, { recursive: true });
const base = new URL(playgroundUrl);
const port = base.port;
const WAIT = { timeout: 30_000 };

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  // evil.test is this machine under another name: what a DNS-rebinding site looks like.
  args: ['--no-sandbox', '--host-resolver-rules=MAP evil.test 127.0.0.1'],
});
const seen = { pageErrors: [] };
try {
  const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
  const page = await context.newPage();
  page.on('pageerror', (error) => seen.pageErrors.push(error.message));

  // The URL dev printed: the page takes the token and drops it from the address bar.
  await page.goto(playgroundUrl);
  await page.waitForSelector('html[data-ready="true"]', WAIT);
  seen.readyMs = await page.evaluate(() => performance.getEntriesByName('playground-ready')[0]?.startTime);
  seen.addressKeepsToken = page.url().includes('token');
  seen.agentName = await page.textContent('#agent-name');
  seen.tokenFormShown = await page.isVisible('#token-form');

  // Chat: a message, its reply streamed into the transcript.
  await page.fill('#message', 'hello there');
  await page.press('#message', 'Enter');
  await page.waitForSelector('#transcript .note', WAIT);
  seen.transcript = await page.$$eval('#transcript li', (items) => items.map((item) => [item.className, item.textContent]));
  await page.screenshot({ path: join(shots, 'chat.png'), fullPage: true });

  // The hooks timeline: every event, every handler, the one that threw shown as thrown.
  await page.click('#tab-timeline');
  await page.waitForSelector('#timeline [data-outcome="threw"]', WAIT);
  await page.waitForSelector('#timeline li[data-type="turn.completed"] [data-hook="usage"]', WAIT);
  seen.timeline = await page.$$eval('#timeline > li', (events) =>
    events.map((event) => ({
      type: event.dataset.type,
      runs: [...event.querySelectorAll('li[data-outcome]')].map((run) => ({
        hook: run.dataset.hook,
        outcome: run.dataset.outcome,
        text: [...run.children].slice(1).filter((part) => !/ ms$/.test(part.textContent)).map((part) => part.textContent),
      })),
    })),
  );
  await page.screenshot({ path: join(shots, 'timeline.png'), fullPage: true });

  // Raw: the envelopes.
  await page.click('#tab-raw');
  seen.raw = await page.$$eval('#raw pre', (items) => items.map((item) => JSON.parse(item.textContent).type));

  // A scripted turn that fails: shown as failed, its hooks still run.
  await page.click('#tab-chat');
  await page.click('#script-box summary');
  await page.check('#use-script');
  await page.fill('#message', 'try the failure path');
  await page.click('#send');
  await page.waitForSelector('#transcript .failed', WAIT);
  seen.failed = await page.textContent('#transcript .failed');

  // Logs: this session's, filtered by level and by hook.
  await page.click('#tab-logs');
  // (The hooks' lines of the failed turn may come after its events: waited for.)
  await page.waitForFunction(
    () => ['turn failed: the model provider', 'message.received: try the failure path'].every((text) => document.querySelector('#logs').textContent.includes(text)),
    null,
    WAIT,
  );
  await page.selectOption('#logs-level', 'error');
  seen.errorLogs = await page.$$eval('#logs li', (items) => items.map((item) => item.textContent.replace(/^\S+ /, '')));
  await page.selectOption('#logs-level', 'info');
  await page.selectOption('#logs-hook', 'transcript');
  seen.transcriptLogs = await page.$$eval('#logs li', (items) => items.map((item) => item.textContent.replace(/^\S+ /, '')));
  await page.screenshot({ path: join(shots, 'logs.png'), fullPage: true });

  // Agent: the hooks; a hook saved while the page is open appears without a reload.
  await page.click('#tab-agent');
  seen.hooksBefore = await page.$$eval('#hooks tbody tr', (rows) => rows.map((row) => row.dataset.hook));
  writeFileSync(
    join(projectDir, 'bot/hooks/added.ts'),
    'import { defineHook } from "@cursor/bdk/hooks";\n\nexport default defineHook({\n  events: {\n    "turn.failed"() {},\n    "turn.complete"() {},\n  },\n});\n',
  );
  await page.waitForSelector('#hooks tr[data-hook="added"]', WAIT);
  seen.hooksAfter = await page.$$eval('#hooks tbody tr', (rows) => rows.map((row) => [row.dataset.hook, row.children[1].textContent]));
  seen.findingsAfter = await page.$$eval('#findings li[data-code]', (items) => items.map((item) => item.dataset.code));
  seen.updated = await page.textContent('#agent-updated');
  await page.click('#hooks tr[data-hook="pager"] button');
  await page.waitForFunction(() => document.querySelector('#source').textContent.includes('defineHook'), null, WAIT);
  seen.sourceShown = (await page.textContent('#source')).includes('PAGER_WEBHOOK_URL');
  await page.screenshot({ path: join(shots, 'agent.png'), fullPage: true });

  // Dark: the same page, readable.
  await page.emulateMedia({ colorScheme: 'dark' });
  await page.click('#tab-timeline');
  await page.screenshot({ path: join(shots, 'timeline-dark.png'), fullPage: true });
  seen.darkBackground = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);

  // Keyboard: the tabs move with the arrow keys.
  await page.focus('#tab-timeline');
  await page.keyboard.press('ArrowRight');
  seen.afterArrow = await page.evaluate(() => document.activeElement.id + ' ' + document.activeElement.getAttribute('aria-selected'));

  // Another site: a page of evil.test (this machine under another name) that calls dev.
  const evil = createServer((request, response) => {
    response.setHeader('content-type', 'text/html');
    response.end('<!doctype html><title>evil</title><p>evil</p>');
  });
  await new Promise((resolve) => evil.listen(0, '127.0.0.1', resolve));
  const evilPage = await context.newPage();
  await evilPage.goto(`http://evil.test:${evil.address().port}/`);
  const refused = evilPage.waitForResponse((response) => response.url().includes('/v1/sessions'));
  await evilPage.evaluate((target) => fetch(target, { method: 'POST', mode: 'no-cors' }).catch(() => null), `http://127.0.0.1:${port}/v1/sessions`);
  seen.otherOrigin = (await refused).status();
  evil.close();
  // DNS rebinding: the playground under another name is refused, token or not.
  const rebound = await evilPage.goto(`http://evil.test:${port}/playground`);
  seen.rebound = { status: rebound.status(), body: (await rebound.text()).slice(0, 60) };
} finally {
  await browser.close();
}
process.stdout.write(JSON.stringify(seen, null, 2) + '\n');
