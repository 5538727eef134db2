// `npm run screenshots`: the README's pictures of the console (docs/console-*.png), taken from a real run and
// never edited by hand. It starts `npm start`'s command on a fresh data directory (embedded database, sandbox
// on, a port of its own), opens the console's link in Debian's Chromium at 1400×900 with every request leaving
// the server refused, plays the demo flow of the browser test (test/server/console-flow.ts) and, at its
// moments, saves the pane it shows, cropped to the pane; with the run asleep, also the whole screen
// (docs/console-page.png: chat, run and clock in one view).
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createClient } from '../client/index.js';
import { check } from '../examples/check.js';
import { playDemoFlow, region, type Moment } from '../test/server/console-flow.js';
import { launchChromium, openConsoleTab } from '../test/server/console-tab.js';
import { repoRoot } from './lib/root.js';
import { freePort, sandboxServerEnv, startServerProcess } from './lib/server-process.js';

const NAME = 'Ana Souza';
/** Each moment's pane (its accessible name) and file. */
const PANES: Record<Moment, { pane: string; file: string }> = {
  chat: { pane: 'Chat as the contact', file: 'console-chat.png' },
  runs: { pane: `Runs of ${NAME}`, file: 'console-runs.png' },
  webhooks: { pane: 'Webhooks', file: 'console-webhooks.png' },
  clock: { pane: 'Time and failures', file: 'console-clock.png' },
};

const VIEWPORT = { width: 1400, height: 900 };

async function capture(moment: Moment, page: Page): Promise<void> {
  const { pane, file } = PANES[moment];
  const path = join(repoRoot, 'docs', file);
  if (moment === 'clock') {
    // The whole screen, the page at its top: what a client team sees while the run sleeps.
    await page.evaluate('window.scrollTo(0, 0)');
    const whole = join(repoRoot, 'docs', 'console-page.png');
    await page.screenshot({ path: whole, animations: 'disabled' });
    console.log(`docs/console-page.png: ${Math.round(statSync(whole).size / 1024)} KiB`);
  }
  await region(page, pane).screenshot({ path, animations: 'disabled' });
  console.log(`docs/${file}: ${Math.round(statSync(path).size / 1024)} KiB`);
}

async function main(): Promise<void> {
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-screenshots-'));
  const adminToken = randomBytes(24).toString('hex');
  // The embedded database, always: the pictures do not depend on the shell's DATABASE_URL.
  const env = sandboxServerEnv({ port, dataDir, adminToken });
  const server = await startServerProcess(env, baseUrl);
  const browser = await launchChromium();
  try {
    const api = createClient({ baseUrl, apiKey: server.apiKey });
    const accountId = check(await api.GET('/v1/me'), 'read the demo account').account.id;
    const outside: string[] = [];
    const errors: string[] = [];
    const page = await openConsoleTab(browser, { baseUrl, adminToken, accountId, outside, errors }, VIEWPORT);
    const seen = await playDemoFlow(page, { phone: '+5511987654321', name: NAME, city: 'Recife', capture });
    if (outside.length > 0) throw new Error(`the page tried to reach the network: ${outside.join(', ')}`);
    if (errors.length > 0 || seen.alerts.length > 0) throw new Error(`the page failed: ${[...errors, ...seen.alerts]}`);
  } finally {
    await browser.close();
    server.child.kill('SIGTERM');
    await server.exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
