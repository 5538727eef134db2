// The README's quickstart (examples/quickstart.ts) against a real server with the demo account's console
// set-up: it must keep working as the API grows. On PGlite alone (walkthroughEngines): the example is published
// text over the HTTP contract; the contacts, tags and sends it calls run on both engines in their own files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import { quickstart } from '../../examples/quickstart.js';
import { walkthroughEngines, startTestApp, type TestApp } from './harness.js';

describe.each(walkthroughEngines)('the quickstart on %s', (engine) => {
  let t: TestApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-quickstart-'));
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates a contact on the demo account, tags it and reads it back; a second run finds the same contact', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const first = await quickstart(api);
    expect(first.whatsapp).toEqual({ phone: '+5511987654321' });
    expect(first.tags.map((tag) => tag.name)).toEqual(['Quickstart']);
    const second = await quickstart(api, '+551187654321');
    expect(second.id).toBe(first.id);
    expect(second.tags).toEqual(first.tags);
  });
});
