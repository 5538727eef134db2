// Rate limits (Part A, Limits): per account over all its keys, one-minute windows by call kind (read 120,
// write 60, send 20), held in the database so several server processes share them; the edge's per-client block
// (403 with no body; a client is an IPv4 address or an IPv6 /64) and the gateway's per-second ceiling (429 with no
// body, no Retry-After). The clock moves; nothing waits.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/domain/accounts/keys.js';
import type { Handlers } from '../../server/http/context.js';
import { edgeClientKey } from '../../server/http/edge.js';
import { EmbeddedRateLimiter, StoreRateLimiter } from '../../server/http/rate-limit.js';
import { handlers as allHandlers } from '../../server/http/routes/index.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { ErrorBody } from './http-helpers.js';

// getMe is the read; createTag (a stand-in answering a valid tag) the write; sendMessage has no handler here
// and answers 501, which still counts as a send.
const handlers: Handlers = {
  getMe: allHandlers.getMe!,
  createTag: async ({ body, app }) => ({
    status: 201,
    body: { id: randomUUID(), name: (body as { name: string }).name, created_at: app.clock.now().toISOString() },
  }),
};
const conversation = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';

/** Puts the clock `seconds` into a fresh minute. */
function intoMinute(t: TestApp, seconds: number): void {
  const now = t.clock.now().getTime();
  t.clock.set(new Date(Math.ceil(now / 60_000) * 60_000 + 60_000 + seconds * 1000));
}

const read = (c: TestCaller) => c.call('GET', '/v1/me');
const write = (c: TestCaller) => c.call('POST', '/v1/tags', { body: { name: 'VIP' } });
const send = (c: TestCaller) =>
  c.call('POST', `/v1/conversations/${conversation}/messages`, {
    body: { text: 'hi' },
    headers: { 'Idempotency-Key': randomUUID() },
  });

async function spend(n: number, hit: () => Promise<Response>): Promise<Response[]> {
  const answers: Response[] = [];
  for (let i = 0; i < n; i++) answers.push(await hit());
  return answers;
}

function rateHeaders(res: Response) {
  return {
    limit: res.headers.get('ratelimit-limit'),
    remaining: res.headers.get('ratelimit-remaining'),
    reset: res.headers.get('ratelimit-reset'),
  };
}

describe.each(engines)('rate limits on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { handlers });
  });
  afterAll(async () => t?.close());

  it('refuses the 121st read of a minute with 429 rate_limited, its context and headers', async () => {
    const me = await t.account();
    intoMinute(t, 15);
    const answers = await spend(120, () => read(me));
    expect(answers.map((r) => r.status)).toEqual(Array(120).fill(200));
    expect(rateHeaders(answers[0]!)).toEqual({ limit: '120', remaining: '119', reset: '45' });
    expect(rateHeaders(answers[119]!)).toEqual({ limit: '120', remaining: '0', reset: '45' });

    t.clock.advance(10_500);
    const refused = await read(me);
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({
      type: 'error',
      message: expect.any(String),
      context: { code: 'rate_limited', kind: 'read', limit: 120, retry_after: 35 },
    });
    expect(rateHeaders(refused)).toEqual({ limit: '120', remaining: '0', reset: '35' });
    expect(refused.headers.get('retry-after')).toBe('35');
  });

  it('gives writes and sends their own windows: 60 writes, 20 sends, reads untouched', async () => {
    const me = await t.account();
    intoMinute(t, 0);
    const writes = await spend(60, () => write(me));
    expect(writes.map((r) => r.status)).toEqual(Array(60).fill(201));
    expect(rateHeaders(writes[59]!)).toEqual({ limit: '60', remaining: '0', reset: '60' });
    const extraWrite = await write(me);
    expect(extraWrite.status).toBe(429);
    expect(((await extraWrite.json()) as ErrorBody).context).toEqual({
      code: 'rate_limited',
      kind: 'write',
      limit: 60,
      retry_after: 60,
    });

    const sends = await spend(20, () => send(me));
    expect(sends.every((r) => r.status !== 429)).toBe(true);
    expect(rateHeaders(sends[0]!)).toMatchObject({ limit: '20', remaining: '19' });
    const extraSend = await send(me);
    expect(extraSend.status).toBe(429);
    expect(((await extraSend.json()) as ErrorBody).context).toMatchObject({ kind: 'send', limit: 20 });

    const stillReads = await read(me);
    expect(stillReads.status).toBe(200);
    expect(rateHeaders(stillReads)).toMatchObject({ limit: '120', remaining: '119' });
  });

  it('restores the budget in the next window', async () => {
    const me = await t.account();
    intoMinute(t, 30);
    await spend(60, () => write(me));
    expect((await write(me)).status).toBe(429);
    t.clock.advance(29_000); // still the same minute
    expect((await write(me)).status).toBe(429);
    t.clock.advance(1_000); // the next minute starts
    const fresh = await write(me);
    expect(fresh.status).toBe(201);
    expect(rateHeaders(fresh)).toEqual({ limit: '60', remaining: '59', reset: '60' });
  });

  it('makes every key of an account share one budget, and keeps accounts apart', async () => {
    const me = await t.account();
    const { secret } = await createApiKey(t.database.db, t.clock, {
      accountId: me.accountId,
      name: 'second key',
      scopes: ['contacts:write'],
      validityDays: 30,
    });
    const other = await t.account();
    intoMinute(t, 0);
    for (let i = 0; i < 30; i++) {
      expect((await write(me)).status).toBe(201);
      expect((await call(t.baseUrl, secret, 'POST', '/v1/tags', { body: { name: 'VIP' } })).status).toBe(201);
    }
    expect((await write(me)).status).toBe(429);
    const bySecondKey = await call(t.baseUrl, secret, 'POST', '/v1/tags', { body: { name: 'VIP' } });
    expect(bySecondKey.status).toBe(429);

    const fromOther = await write(other);
    expect(fromOther.status).toBe(201);
    expect(rateHeaders(fromOther)).toMatchObject({ remaining: '59' });
  });

  it('prunes the counters of past windows', async () => {
    const limiter = new StoreRateLimiter(t.database.db);
    const accountId = randomUUID();
    const start = Math.ceil(t.clock.now().getTime() / 60_000) * 60_000 + 10 * 60_000;
    await limiter.hit(accountId, 'read', new Date(start));
    await limiter.pruning;
    await limiter.hit(accountId, 'read', new Date(start + 60_000));
    await limiter.pruning;
    const windows = async () =>
      (
        await t.database.db
          .selectFrom('rate_counters')
          .select('window_start')
          .where('bucket', '=', `account:${accountId}:read`)
          .orderBy('window_start')
          .execute()
      ).map((r) => Date.parse(r.window_start));
    // The previous window stays (a process whose clock lags may still count into it).
    expect(await windows()).toEqual([start, start + 60_000]);
    await limiter.hit(accountId, 'read', new Date(start + 3 * 60_000));
    await limiter.pruning;
    expect(await windows()).toEqual([start + 3 * 60_000]);
  });
});

describe.each(engines)('rate counters on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { handlers });
  });
  afterAll(async () => t?.close());

  const minuteStart = () => Math.ceil(t.clock.now().getTime() / 60_000) * 60_000 + 20 * 60_000;

  it('numbers calls that arrive together exactly, in one write per batch (the PostgreSQL limiter)', async () => {
    const limiter = new StoreRateLimiter(t.database.db);
    const accountId = randomUUID();
    const at = new Date(minuteStart() + 5_000);
    const decisions = await Promise.all(Array.from({ length: 70 }, () => limiter.hit(accountId, 'write', at)));
    // Each call has its own number: 60 allowed with remaining 59…0, then 10 refused.
    expect(decisions.filter((d) => d.allowed)).toHaveLength(60);
    expect(decisions.slice(0, 60).map((d) => d.remaining)).toEqual(Array.from({ length: 60 }, (_, i) => 59 - i));
    expect(decisions.slice(60).every((d) => !d.allowed && d.remaining === 0)).toBe(true);
    const row = await t.database.db
      .selectFrom('rate_counters')
      .select('count')
      .where('bucket', '=', `account:${accountId}:write`)
      .executeTakeFirstOrThrow();
    expect(row.count).toBe(70);
  });

  it('tries again to read the saved counts when the first read failed (database briefly down)', async () => {
    // The three calls the limiter makes, the first read failing once.
    const db = t.database.db;
    let failures = 1;
    const flaky = {
      selectFrom: (...args: Parameters<typeof db.selectFrom>) => {
        if (failures-- > 0) throw new Error('connection refused');
        return db.selectFrom(...args);
      },
      insertInto: db.insertInto.bind(db),
      deleteFrom: db.deleteFrom.bind(db),
    } as unknown as typeof db;
    const limiter = new EmbeddedRateLimiter(flaky, undefined, 60_000);
    const at = new Date(minuteStart() + 125_000);
    await expect(limiter.hit(randomUUID(), 'read', at)).rejects.toThrow('connection refused');
    expect((await limiter.hit(randomUUID(), 'read', at)).allowed).toBe(true);
    await limiter.close();
  });

  it("keeps an embedded database's counts across a restart of its process", async () => {
    const accountId = randomUUID();
    const at = new Date(minuteStart() + 65_000);
    const before = new EmbeddedRateLimiter(t.database.db, undefined, 60_000);
    for (let i = 0; i < 50; i++) expect((await before.hit(accountId, 'write', at)).allowed).toBe(true);
    await before.save(); // what the timer does every second; a kill -9 loses at most the last second
    await before.close();
    const after = new EmbeddedRateLimiter(t.database.db, undefined, 60_000);
    const decisions = [];
    for (let i = 0; i < 11; i++) decisions.push(await after.hit(accountId, 'write', new Date(at.getTime() + 1_000)));
    expect(decisions.map((d) => d.remaining)).toEqual([9, 8, 7, 6, 5, 4, 3, 2, 1, 0, 0]);
    expect(decisions.at(-1)!.allowed).toBe(false);
    await after.close();
    // A later minute starts from zero.
    const next = new EmbeddedRateLimiter(t.database.db, undefined, 60_000);
    expect((await next.hit(accountId, 'write', new Date(at.getTime() + 60_000))).remaining).toBe(59);
    await next.close();
  });
});

describe.each(engines)('rate limits across two server processes on one database (%s)', (engine) => {
  let first: TestApp;
  let second: TestApp;
  beforeAll(async () => {
    first = await startTestApp(engine, { handlers });
    second = await startTestApp(engine, { handlers, sameDatabaseAs: first });
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it('shares one account budget between the two apps', async () => {
    const me = await first.account();
    intoMinute(first, 5);
    for (let i = 0; i < 30; i++) {
      expect((await write(me)).status).toBe(201);
      expect((await call(second.baseUrl, me.apiKey, 'POST', '/v1/tags', { body: { name: 'VIP' } })).status).toBe(201);
    }
    const viaSecond = await call(second.baseUrl, me.apiKey, 'POST', '/v1/tags', { body: { name: 'VIP' } });
    expect(viaSecond.status).toBe(429);
    expect(rateHeaders(viaSecond)).toEqual({ limit: '60', remaining: '0', reset: '55' });
    expect((await write(me)).status).toBe(429);
  });

  it('counts concurrent calls from both apps exactly', async () => {
    const me = await first.account();
    intoMinute(first, 0);
    const answers = await Promise.all(
      Array.from({ length: 70 }, (_, i) =>
        call(i % 2 ? second.baseUrl : first.baseUrl, me.apiKey, 'POST', '/v1/tags', { body: { name: 'VIP' } }),
      ),
    );
    const statuses = answers.map((r) => r.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(60);
    expect(statuses.filter((s) => s === 429)).toHaveLength(10);
  });
});

describe.each(engines)('edge and gateway ceiling on %s', (engine) => {
  it('answers the 1201st call of a minute from one IP with 403 and no body, before authentication', async () => {
    const t = await startTestApp(engine, { handlers, env: { EDGE_IP_LIMIT_PER_MINUTE: '1200' } });
    try {
      const me = await t.account();
      intoMinute(t, 0);
      // Calls without a key are cheap (401) and count too; the clock moves a second per 100 calls so the
      // per-second ceiling stays out of the way.
      for (let batch = 0; batch < 12; batch++) {
        const answers = await Promise.all(
          Array.from({ length: 100 }, () => call(t.baseUrl, undefined, 'GET', '/v1/me')),
        );
        expect(answers.every((r) => r.status === 401)).toBe(true);
        t.clock.advance(1_000);
      }
      for (const res of [await me.call('GET', '/v1/me'), await call(t.baseUrl, undefined, 'GET', '/v1/me')]) {
        expect(res.status).toBe(403);
        expect(await res.text()).toBe('');
        expect(res.headers.get('content-type')).toBeNull();
      }
      t.clock.advance(60_000);
      expect((await me.call('GET', '/v1/me')).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it('counts a caller by its connection when no proxy is trusted, whatever X-Forwarded-For it sends', async () => {
    // TRUST_PROXY=0 (the default): a client cannot spread its calls over addresses it makes up.
    const t = await startTestApp(engine, { handlers, env: { EDGE_IP_LIMIT_PER_MINUTE: '5' } });
    try {
      intoMinute(t, 0);
      const from = (address: string) =>
        call(t.baseUrl, undefined, 'GET', '/v1/me', { headers: { 'X-Forwarded-For': address } });
      for (let i = 1; i <= 5; i++) expect((await from(`198.51.100.${i}`)).status).toBe(401);
      const refused = await from('203.0.113.7');
      expect(refused.status).toBe(403);
      expect(await refused.text()).toBe('');
    } finally {
      await t.close();
    }
  });

  it('counts an IPv6 caller per /64 and an IPv4-mapped address as its IPv4 address (issue 33)', async () => {
    // TRUST_PROXY=1: the client address is the last X-Forwarded-For entry, as behind one balancer.
    const t = await startTestApp(engine, { handlers, env: { EDGE_IP_LIMIT_PER_MINUTE: '5', TRUST_PROXY: '1' } });
    try {
      intoMinute(t, 0);
      const from = (address: string) =>
        call(t.baseUrl, undefined, 'GET', '/v1/me', { headers: { 'X-Forwarded-For': address } });
      const refused = async (res: Response) => res.status === 403 && (await res.text()) === '';
      // Five addresses of one /64 spend its one budget; a sixth address of it is refused.
      for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:a:b::${i}`)).status).toBe(401);
      expect(await refused(await from('2001:db8:a:b:ffff:ffff:ffff:ffff'))).toBe(true);
      expect(await refused(await from('2001:0db8:000a:000b:1234:5678:9abc:def0'))).toBe(true);
      // The next /64 has its own.
      for (let i = 1; i <= 5; i++) expect((await from(`2001:db8:a:c::${i}`)).status).toBe(401);
      expect(await refused(await from('2001:db8:a:c::6'))).toBe(true);
      // An IPv4 address and its IPv4-mapped forms share one budget; the next IPv4 address has its own.
      for (const address of [
        '198.51.100.1',
        '::ffff:198.51.100.1',
        '198.51.100.1',
        '::ffff:c633:6401',
        '::ffff:198.51.100.1',
      ])
        expect((await from(address)).status).toBe(401);
      expect(await refused(await from('198.51.100.1'))).toBe(true);
      expect(await refused(await from('::ffff:198.51.100.1'))).toBe(true);
      expect((await from('198.51.100.2')).status).toBe(401);
      // A new minute, a new budget.
      t.clock.advance(60_000);
      expect((await from('2001:db8:a:b::1')).status).toBe(401);
    } finally {
      await t.close();
    }
  });

  it('answers calls over the per-second ceiling with 429, no body and no Retry-After', async () => {
    const t = await startTestApp(engine, { handlers, env: { GLOBAL_RPS_CEILING: '5' } });
    try {
      const me = await t.account();
      const other = await t.account();
      intoMinute(t, 0);
      const answers = await spend(5, () => read(me));
      expect(answers.map((r) => r.status)).toEqual([200, 200, 200, 200, 200]);
      // Whole-API: another account is refused as well.
      for (const res of [await read(me), await read(other)]) {
        expect(res.status).toBe(429);
        expect(await res.text()).toBe('');
        expect(res.headers.get('retry-after')).toBeNull();
        expect(res.headers.get('content-type')).toBeNull();
      }
      t.clock.advance(1_000);
      expect((await read(other)).status).toBe(200);
    } finally {
      await t.close();
    }
  });

  it("counts Meta's webhook posts under a ceiling of their own, apart from the API's calls", async () => {
    const env = { GLOBAL_RPS_CEILING: '3', CHANNEL_WEBHOOK_RPS_CEILING: '4' };
    const t = await startTestApp(engine, { handlers, env });
    try {
      const me = await t.account();
      intoMinute(t, 0);
      const meta = () => fetch(`${t.baseUrl}/channels/whatsapp/webhook?hub.mode=subscribe`);
      // The API's budget spent: Meta's posts still come in, up to their own ceiling.
      expect((await spend(3, () => read(me))).map((r) => r.status)).toEqual([200, 200, 200]);
      expect((await read(me)).status).toBe(429);
      const posts = await spend(5, meta);
      expect(posts.slice(0, 4).map((r) => r.status)).not.toContain(429);
      expect(posts[4]?.status).toBe(429);
      expect(await posts[4]?.text()).toBe('');
      // And a second later both budgets are whole again.
      t.clock.advance(1_000);
      expect((await read(me)).status).toBe(200);
      expect((await meta()).status).not.toBe(429);
    } finally {
      await t.close();
    }
  });
});

describe('the edge counts a client under', () => {
  it('its IPv4 address, an IPv4-mapped address as its IPv4 address, an IPv6 address as its /64', () => {
    expect(edgeClientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(edgeClientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(edgeClientKey('::FFFF:cb00:7107')).toBe('203.0.113.7');
    expect(edgeClientKey('2001:db8:1:2::1')).toBe('2001:db8:1:2::/64');
    expect(edgeClientKey('2001:0DB8:0001:0002:ffff:ffff:ffff:ffff')).toBe('2001:db8:1:2::/64');
    expect(edgeClientKey('2001:db8:1:3::1')).toBe('2001:db8:1:3::/64');
    expect(edgeClientKey('fe80::1%eth0')).toBe('fe80::/64');
    // Text that is no address (a proxy's odd X-Forwarded-For) is its own key.
    expect(edgeClientKey('unknown')).toBe('unknown');
  });
});
