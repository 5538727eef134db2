// What every console browser test shares: Debian's Chromium driven by playwright-core (headless, no download),
// a test server on the engine with the demo account, and a tab opened on the banner's link with every request
// that leaves the test server refused and recorded (the page must fetch nothing from the network).
//
// A test file calls `consoleBrowser` inside its `describe.skipIf(!hasChromium).each(engines)` block.
import { existsSync } from 'node:fs';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { ensureDemoAccount, type Demo } from '../../server/console/demo.js';
import { CHROMIUM, launchChromium, openConsoleTab } from './console-tab.js';
import { exampleServer } from './example-server.js';
import type { Engine } from '../../server/store/database.js';

export { CHROMIUM };
export const hasChromium = existsSync(CHROMIUM);
/** How long a poll of the page may take (vitest's default, 1 s, is short for a loaded machine). */
export const POLL = { timeout: 20_000 };

export function skippedWithoutChromium(what: string): void {
  if (!hasChromium) console.warn(`${what} skipped: ${CHROMIUM} is missing (install it: apt-get install -y chromium)`);
}

export interface ConsoleBrowser {
  server: ReturnType<typeof exampleServer>;
  /** The demo account (set in beforeAll). */
  demo: () => Demo;
  /** Requests that tried to leave the test server. */
  outside: string[];
  /** A fresh tab on the banner's link (token in the fragment), the account open and its live stream connected. */
  openConsole: (viewport?: { width: number; height: number }) => Promise<Page>;
}

export function consoleBrowser(engine: Engine, adminToken: string, name: string): ConsoleBrowser {
  const server = exampleServer(engine, adminToken, name);
  let browser: Browser | undefined;
  let demo: Demo | undefined;
  const outside: string[] = [];

  beforeAll(async () => {
    demo = await ensureDemoAccount(server.t.database.db, server.t.clock, server.dataDir);
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });

  const demoOf = (): Demo => {
    if (!demo) throw new Error('the demo account is made in beforeAll');
    return demo;
  };

  async function openConsole(viewport = { width: 1280, height: 860 }): Promise<Page> {
    if (!browser) throw new Error('the browser starts in beforeAll');
    const errors: string[] = [];
    const target = { baseUrl: server.t.baseUrl, adminToken, accountId: demoOf().accountId, outside, errors };
    const page = await openConsoleTab(browser, target, viewport);
    expect(await page.getByRole('status', { name: 'Live events' }).innerText()).toContain('live');
    expect(errors).toEqual([]);
    return page;
  }

  return { server, demo: demoOf, outside, openConsole };
}
