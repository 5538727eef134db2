// The request deadline (REQUEST_DEADLINE_MS, server/store/deadline.ts), on every engine of the run: a request
// not answered by then gets 503 service_unavailable, its database work is refused and rolled back, and what it
// held (PGlite's single session, a pooled PostgreSQL connection and its row locks) is free again. On PostgreSQL
// a statement still running at the deadline (waiting on a lock) is cancelled, and every pooled connection has
// statement_timeout and idle_in_transaction_session_timeout.
import { randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '../../server/domain/console/connections.js';
import { createTag } from '../../server/domain/tags/tags.js';
import type { Handlers } from '../../server/http/context.js';
import { handlers as allHandlers } from '../../server/http/routes/index.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type { SchemaContact, SchemaTag, SchemaTagList } from '../../generated/api.js';

const DEADLINE_MS = 600;

/** GET /v1/me as a bug would make it: a transaction that locks the caller's account row and loops on queries. */
const stuckHandlers: Handlers = {
  ...allHandlers,
  getMe: async ({ app, caller }) => {
    await app.database.db.transaction().execute(async (tx) => {
      await sql`select id from accounts where id = ${caller.account.id} for update`.execute(tx);
      for (;;) await sql`select 1`.execute(tx);
    });
    throw new Error('unreachable: the loop above never ends by itself');
  },
};

/** A promise that never settles: a request awaiting something that never answers. */
const never = new Promise<never>(() => {});

/** GET /v1/tags as a bug would make it: a transaction that locks the account row, then awaits for ever. */
const hungHandlers: Handlers = {
  ...allHandlers,
  listTags: async ({ app, caller }) => {
    await app.database.db.transaction().execute(async (tx) => {
      await sql`select id from accounts where id = ${caller.account.id} for update`.execute(tx);
      await never;
    });
    throw new Error('unreachable: the await above never ends');
  },
};

/**
 * POST /v1/tags with `x-test-hang` as a bug would make it: `after-commit` creates the tag, then awaits for ever;
 * `before-commit` creates it inside a transaction that then awaits for ever. Without the header, the real route.
 */
const idempotencyHandlers: Handlers = {
  ...allHandlers,
  createTag: async (input) => {
    const { app, caller, body, req } = input;
    const hang = req.get('x-test-hang');
    if (hang === 'after-commit') {
      await createTag(app.database.db, app.clock, caller.account.id, body.name);
      await never;
    }
    if (hang === 'before-commit')
      await app.database.db.transaction().execute(async (tx) => {
        await createTag(tx, app.clock, caller.account.id, body.name);
        await never;
      });
    if (!allHandlers.createTag) throw new Error('the createTag route is missing');
    return allHandlers.createTag(input);
  },
};

describe.each(engines)('the request deadline and Idempotency-Key on %s', (engine) => {
  let t: TestApp;
  let c: TestCaller;

  beforeAll(async () => {
    t = await startTestApp(engine, {
      handlers: idempotencyHandlers,
      env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) },
      idempotency: { leaseMs: 1000 },
    });
    c = await t.account();
  });
  afterAll(async () => t?.close());

  const names = async () => (await json<SchemaTagList>(await c.call('GET', '/v1/tags'))).data.map((tag) => tag.name);

  it('a request stopped before its commit released its key: the retry runs, once', async () => {
    const key = randomUUID();
    const first = await c.call('POST', '/v1/tags', {
      body: { name: 'Before' },
      headers: { 'Idempotency-Key': key, 'x-test-hang': 'before-commit' },
    });
    await expectError(first, 503, { code: 'service_unavailable' });
    expect(await names()).not.toContain('Before');
    // Its transaction holds the new name until it is taken back (PostgreSQL: a second after the deadline).
    await new Promise((ok) => setTimeout(ok, 1500));
    const retry = await c.call('POST', '/v1/tags', { body: { name: 'Before' }, headers: { 'Idempotency-Key': key } });
    expect(retry.status).toBe(201);
    expect(await names()).toEqual(expect.arrayContaining(['Before']));
  });

  it('a request stopped after its commit leaves its key to answer outcome_unknown: no second run', async () => {
    const key = randomUUID();
    const first = await c.call('POST', '/v1/tags', {
      body: { name: 'After' },
      headers: { 'Idempotency-Key': key, 'x-test-hang': 'after-commit' },
    });
    await expectError(first, 503, { code: 'service_unavailable' });
    expect(await names()).toContain('After');
    // While its lease runs the key is in progress; once it ran out, the outcome is unknown for good.
    await expectError(
      await c.call('POST', '/v1/tags', { body: { name: 'After' }, headers: { 'Idempotency-Key': key } }),
      409,
      { code: 'idempotency_in_progress' },
    );
    t.clock.advance(2000);
    await expectError(
      await c.call('POST', '/v1/tags', { body: { name: 'After' }, headers: { 'Idempotency-Key': key } }),
      409,
      { code: 'outcome_unknown' },
    );
  });
});

describe.each(engines)('the request deadline on %s', (engine) => {
  let t: TestApp;
  let c: TestCaller;

  beforeAll(async () => {
    t = await startTestApp(engine, { handlers: stuckHandlers, env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) } });
    c = await t.account();
  });
  afterAll(async () => t?.close());

  it('answers a request that loops on the database 503 at its deadline, and frees what it held', async () => {
    const started = Date.now();
    const res = await c.call('GET', '/v1/me');
    const elapsed = Date.now() - started;
    await expectError(res, 503, { code: 'service_unavailable' });
    expect(elapsed).toBeGreaterThanOrEqual(DEADLINE_MS - 50);
    expect(elapsed).toBeLessThan(DEADLINE_MS + 1500);
    // The process answers, and the database serves other requests: the session (PGlite) or the connection and
    // its row lock (PostgreSQL) went back.
    expect((await fetch(`${t.baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) })).status).toBe(200);
    const quick = Date.now();
    await json(await c.call('GET', '/v1/tags'), 200);
    expect(Date.now() - quick).toBeLessThan(5000); // a held database would answer 503 at its own deadline
    const locked = await t.database.db
      .transaction()
      .execute(async (tx) =>
        sql<{ id: string }>`select id from accounts where id = ${c.accountId} for update nowait`.execute(tx),
      );
    expect(locked.rows).toHaveLength(1);
  });

  it('takes the database back from a request that awaits for ever inside its transaction', async () => {
    const hung = await startTestApp(engine, {
      handlers: hungHandlers,
      env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) },
    });
    try {
      const caller = await hung.account();
      const res = await caller.call('GET', '/v1/tags');
      await expectError(res, 503, { code: 'service_unavailable' });
      // Other requests are served at once: PGlite's session was rolled back and handed on; on PostgreSQL other
      // connections serve (the hung one ends at idle_in_transaction_session_timeout).
      const quick = Date.now();
      await json(await caller.call('GET', '/v1/me'), 200);
      expect(Date.now() - quick).toBeLessThan(5000); // a held database would answer 503 at its own deadline
      if (engine === 'pglite') {
        const locked = await hung.database.db
          .transaction()
          .execute(async (tx) =>
            sql<{ id: string }>`select id from accounts where id = ${caller.accountId} for update nowait`.execute(tx),
          );
        expect(locked.rows).toHaveLength(1);
      }
    } finally {
      await hung.close();
    }
  });

  it('answers again and again: stuck requests do not pile up', async () => {
    const answers = await Promise.all(Array.from({ length: 4 }, () => c.call('GET', '/v1/me').then((r) => r.status)));
    expect(answers).toEqual([503, 503, 503, 503]);
    await json(await c.call('GET', '/v1/tags'), 200);
  });
});

/** GET /v1/me that runs statements back to back in one transaction for `LONG_MS`, then answers as usual. */
const LONG_MS = 1500;
const longHandlers: Handlers = {
  ...allHandlers,
  getMe: async (input) => {
    const until = Date.now() + LONG_MS;
    await input.app.database.db.transaction().execute(async (tx) => {
      while (Date.now() < until) await sql`select 1`.execute(tx);
    });
    if (!allHandlers.getMe) throw new Error('the getMe route is missing');
    return allHandlers.getMe(input);
  },
};

describe.each(engines)('a long transaction on %s', (engine) => {
  it('lets the process answer meanwhile (PGlite answers within microtasks: the event loop is let turn)', async () => {
    const t = await startTestApp(engine, { handlers: longHandlers });
    try {
      const c = await t.account();
      await json(await c.call('GET', '/v1/tags'), 200); // the validator is compiled at the first request
      let done = false;
      const long = c.call('GET', '/v1/me').finally(() => (done = true));
      await new Promise((ok) => setTimeout(ok, 300));
      const probes: number[] = [];
      for (let i = 0; i < 4; i++) {
        expect(done, 'the long transaction still runs').toBe(false);
        const started = Date.now();
        const res = await fetch(`${t.baseUrl}/healthz`, { signal: AbortSignal.timeout(2000) });
        expect(res.status).toBe(200);
        probes.push(Date.now() - started);
        await new Promise((ok) => setTimeout(ok, 100));
      }
      expect(Math.max(...probes)).toBeLessThan(500);
      await json(await long, 200);
    } finally {
      await t.close();
    }
  });
});

describe.runIf(engines.includes('postgres'))('the request deadline on PostgreSQL', () => {
  let t: TestApp;
  let c: TestCaller;
  let outside: pg.Client;
  let whatsapp: Awaited<ReturnType<typeof createConnection>>;

  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { REQUEST_DEADLINE_MS: String(DEADLINE_MS) } });
    c = await t.account();
    outside = new pg.Client({ connectionString: t.databaseUrl });
    await outside.connect();
    whatsapp = await createConnection(t.database.db, t.clock, c.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    // A route's first call compiles its validators (hundreds of milliseconds on a busy machine: past the 0.6 s
    // deadline): each route the tests call is called once first, whatever it answers.
    const unknown = randomUUID();
    await c.call('POST', '/v1/contacts', {
      body: { phone: '+5511987650009', name: 'Bia', connection_id: whatsapp.id, consent: true },
    });
    await c.call('POST', '/v1/tags', { body: { name: randomUUID() } });
    await c.call('PUT', `/v1/contacts/${unknown}/tags/${unknown}`);
    await c.call('GET', `/v1/contacts/${unknown}`);
  });
  afterAll(async () => {
    await outside?.end();
    await t?.close();
  });

  /** The statements of the test database's pool that wait on a lock now. */
  const waiting = async () =>
    (
      await outside.query<{ n: number }>(
        `select count(*)::int as n from pg_stat_activity
          where datname = current_database() and pid <> pg_backend_pid() and wait_event_type = 'Lock'`,
      )
    ).rows[0]!.n;

  it('cancels a statement that waits on a lock at the deadline: 503, and the connection is free at once', async () => {
    const contact = await json<SchemaContact>(
      await c.call('POST', '/v1/contacts', {
        body: { phone: '+5511987650001', name: 'Ana', connection_id: whatsapp.id, consent: true },
      }),
      201,
    );
    const tag = await json<SchemaTag>(await c.call('POST', '/v1/tags', { body: { name: randomUUID() } }), 201);
    // Another session holds the contact's row: putting a tag on waits for it.
    await outside.query('begin');
    await outside.query('select id from contacts where id = $1 for update', [contact.id]);
    try {
      const started = Date.now();
      const res = await c.call('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`);
      await expectError(res, 503, { code: 'service_unavailable' });
      expect(Date.now() - started).toBeLessThan(DEADLINE_MS + 1500);
      // Cancelled, not left waiting until the lock goes: nothing of the pool waits any more.
      let n = await waiting();
      for (let i = 0; i < 20 && n > 0; i++) {
        await new Promise((ok) => setTimeout(ok, 50));
        n = await waiting();
      }
      expect(n).toBe(0);
    } finally {
      await outside.query('rollback');
    }
    // Nothing was written: the tag is not on the contact.
    const read = await json<SchemaContact>(await c.call('GET', `/v1/contacts/${contact.id}`));
    expect(read.tags).toEqual([]);
  });

  it('sets statement_timeout and idle_in_transaction_session_timeout on the pooled connections', async () => {
    const settings = await sql<{ statement: string; idle: string }>`
      select current_setting('statement_timeout') as statement,
             current_setting('idle_in_transaction_session_timeout') as idle`.execute(t.database.db);
    expect(settings.rows[0]).toEqual({ statement: '30s', idle: '1min' });
  });
});
