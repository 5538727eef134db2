// A console tab without vitest, shared by the browser tests (console-browser.ts) and `npm run screenshots`:
// Debian's Chromium through playwright-core (headless, no download) and a tab on the banner's link, with every
// request that leaves the server refused and recorded (the page must fetch nothing from the network).
import { chromium, type Browser, type Page } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
  });
}

export interface ConsoleTarget {
  baseUrl: string;
  adminToken: string;
  accountId: string;
  /** Where requests that tried to leave the server are recorded. */
  outside: string[];
  /** Errors thrown in the page. */
  errors: string[];
}

/** A fresh tab on the banner's link (token in the fragment), the account open and its live stream connected. */
export async function openConsoleTab(
  browser: Browser,
  target: ConsoleTarget,
  viewport = { width: 1280, height: 860 },
): Promise<Page> {
  const { baseUrl, adminToken, accountId, outside, errors } = target;
  const context = await browser.newContext({ viewport });
  context.setDefaultTimeout(20_000);
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (url.startsWith(`${baseUrl}/`)) return route.continue();
    outside.push(url);
    return route.abort('blockedbyclient');
  });
  const page = await context.newPage();
  page.on('pageerror', (error) => errors.push(String(error)));
  await page.goto(`${baseUrl}/console#token=${adminToken}&account=${accountId}`);
  // The token leaves the address bar at once; the account opens and its live stream connects.
  const until = Date.now() + 20_000;
  while (page.url() !== `${baseUrl}/console`) {
    if (Date.now() > until) throw new Error(`the token stayed in the address bar: ${page.url()}`);
    await page.waitForTimeout(50);
  }
  await page.locator('.live-live').waitFor();
  return page;
}
