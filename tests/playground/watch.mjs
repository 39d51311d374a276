// For bench/playground.py: opens dev's playground in Debian's Chromium (playwright-core).
//
//   node watch.mjs ready <playground URL with #token=…> <loads>
//       loads the page <loads> times, each in a fresh browser context, and prints
//       {"readyMs":[…]}: when the page was ready (its `playground-ready` mark: the agent,
//       the sessions and the first renders done), in ms from the start of navigation
//   node watch.mjs follow <playground URL with #token=…&session=…>
//       opens the page on a session (its timeline and the logs followed, the Agent tab
//       polled), prints "ready", and keeps it open until stdin closes; then prints
//       {"events":N,"runs":N,"logLines":N}: what it showed

import { chromium } from 'playwright-core';

const [mode, url, loads = '10'] = process.argv.slice(2);
const browser = await chromium.launch({ executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium', args: ['--no-sandbox'] });
try {
  if (mode === 'ready') {
    const readyMs = [];
    for (let i = 0; i < Number(loads); i++) {
      const context = await browser.newContext();
      const page = await context.newPage();
      await page.goto(url);
      await page.waitForSelector('html[data-ready="true"]', { timeout: 30_000 });
      readyMs.push(await page.evaluate(() => performance.getEntriesByName('playground-ready')[0].startTime));
      await context.close();
    }
    process.stdout.write(JSON.stringify({ readyMs }) + '\n');
  } else if (mode === 'follow') {
    const page = await browser.newPage();
    await page.goto(url);
    await page.waitForSelector('html[data-ready="true"]', { timeout: 30_000 });
    await page.click('#tab-timeline');
    process.stdout.write('ready\n');
    await new Promise((resolve) => {
      process.stdin.on('end', resolve);
      process.stdin.resume();
    });
    const shown = await page.evaluate(() => ({
      events: document.querySelectorAll('#timeline > li').length,
      runs: document.querySelectorAll('#timeline li[data-outcome]').length,
      logLines: document.querySelectorAll('#logs li').length,
    }));
    process.stdout.write(JSON.stringify(shown) + '\n');
  } else {
    throw new Error(`unknown mode ${mode}: ready or follow`);
  }
} finally {
  await browser.close();
}
