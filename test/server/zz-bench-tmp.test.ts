import { randomUUID } from 'node:crypto';
import { it } from 'vitest';
import { StoreRateLimiter } from '../../server/http/rate-limit.js';
import { openTestDatabase, engines, startTestApp } from '../../test/server/harness.js';

it('measures', async () => {
  for (const engine of engines) {
    const { database, drop } = await openTestDatabase(engine);
    const l = new StoreRateLimiter(database.db);
    const acct = randomUUID();
    for (let i = 0; i < 200; i++) await l.hit(acct, 'read', new Date());
    let t0 = performance.now();
    for (let i = 0; i < 2000; i++) await l.hit(acct, 'read', new Date());
    const seq = (performance.now() - t0) / 2000;
    t0 = performance.now();
    await Promise.all(Array.from({ length: 2000 }, (_, i) => l.hit(randomUUID().slice(0, 0) + acct, i % 2 ? 'read' : 'write', new Date())));
    const par = 2000 / ((performance.now() - t0) / 1000);
    console.log(engine, `rate hit sequential ${seq.toFixed(3)} ms/hit; concurrent ${par.toFixed(0)} hits/s`);
    await drop();
  }
  for (const engine of engines) {
    const t = await startTestApp(engine, { handlers: { createTag: async ({ body }) => ({ status: 201, body: { id: randomUUID(), name: (body as {name:string}).name, created_at: new Date().toISOString() } }) }, env: { RESPONSE_VALIDATION: 'false' } });
    const callers = await Promise.all(Array.from({ length: 20 }, () => t.account()));
    await callers[0]!.call('POST', '/v1/tags', { body: { name: 'warm' } });
    const run = async (withKey: boolean) => {
      const t0 = performance.now();
      for (const c of callers) for (let i = 0; i < 25; i++) await c.call('POST', '/v1/tags', { body: { name: 'x' }, headers: withKey ? { 'Idempotency-Key': randomUUID() } : {} });
      return (performance.now() - t0) / 500;
    };
    t.clock.advance(60_000);
    const without = await run(false);
    t.clock.advance(60_000);
    const withKey = await run(true);
    t.clock.advance(60_000);
    const ids = Array.from({length: 500}, () => randomUUID());
    let k = 0;
    for (const c of callers) for (let i = 0; i < 25; i++) await c.call('POST', '/v1/tags', { body: { name: 'x' }, headers: { 'Idempotency-Key': ids[k++]! } });
    t.clock.advance(60_000);
    k = 0; const t0 = performance.now();
    for (const c of callers) for (let i = 0; i < 25; i++) await c.call('POST', '/v1/tags', { body: { name: 'x' }, headers: { 'Idempotency-Key': ids[k++]! } });
    const replay = (performance.now() - t0) / 500;
    console.log(engine, `POST /v1/tags sequential: no key ${without.toFixed(2)} ms, new key ${withKey.toFixed(2)} ms, replay ${replay.toFixed(2)} ms`);
    await t.close();
  }
}, 300_000);
