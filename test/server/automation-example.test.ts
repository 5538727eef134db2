// The README's automation example (examples/automation.ts) against a real server with the demo account: it
// must keep working as the API grows. On PGlite alone (walkthroughEngines): the example is published text; the
// automation rules it calls run on both engines in workflows.test.ts and the engine-*.test.ts files.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import { buildAutomation } from '../../examples/automation.js';
import { walkthroughEngines, startTestApp, type TestApp } from './harness.js';

describe.each(walkthroughEngines)('the automation example on %s', (engine) => {
  let t: TestApp;
  const dataDir = mkdtempSync(join(tmpdir(), 'ep-automation-'));
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => {
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('validates, fixes, creates, publishes twice and reads both versions on the demo account', async () => {
    const demo = await ensureDemoAccount(t.database.db, t.clock, dataDir);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: demo.apiKey });
    const tour = await buildAutomation(api);
    expect(tour.firstErrors).toEqual(['tag_not_found at nodes.marcar.data.tags[0]']);
    expect(tour.published).toMatchObject({
      status: 'published',
      title: 'Catálogo de Black Friday 2026',
      revision: 1,
      has_unpublished_changes: false,
    });
    expect(tour.versions.map((v) => [v.number, v.revision, v.title])).toEqual([
      [2, 1, 'Catálogo de Black Friday 2026'],
      [1, 0, 'Catálogo de Black Friday'],
    ]);
    expect(Object.keys(tour.versions[0]?.graph.nodes ?? {})).toEqual(['root', 'perguntar', 'marcar', 'link', 'tchau']);
    // A second run on the same account reuses the tag and publishes a second automation.
    expect((await buildAutomation(api, 'catalogo2')).versions).toHaveLength(2);
  });
});
