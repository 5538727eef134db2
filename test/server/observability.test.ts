// Operations: one JSON log line per request with no key, secret or message text; the request id in the log,
// the X-Request-Id header and the 500 envelope; /healthz, /readyz and /metrics. Run on every engine.
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { createAccount } from '../../server/domain/accounts/accounts.js';
import { createApiKey, SCOPES } from '../../server/domain/accounts/keys.js';
import { createApp } from '../../server/http/app.js';
import type { Handlers } from '../../server/http/context.js';
import { answersWithin } from '../../server/http/health.js';
import { MemoryRateLimiter } from '../../server/http/rate-limit.js';
import { handlers } from '../../server/http/routes/index.js';
import { createLogger } from '../../server/logger.js';
import { createServices } from '../../server/services.js';
import { appRoutes, call, engines, openTestDatabase, type TestDatabase } from './harness.js';
import type { SchemaInternalError } from '../../generated/api.js';

const conversationId = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
// The marker holds letters outside hex, so no request id or uuid in the log can contain it by chance.
const messageText = 'Private words qzxw: my card ends in 4242';
const adminToken = 'admin-token-of-the-observability-test-5c1d9e';

interface LogLine {
  level: number;
  msg: string;
  [field: string]: unknown;
}

/** An app whose logger writes into `lines`, with a send handler that fails carrying the message text. */
async function startLoggedApp(engine: (typeof engines)[number]) {
  const lines: string[] = [];
  const testDb: TestDatabase = await openTestDatabase(engine);
  const clock = new ManualClock(new Date());
  const logger = createLogger('info', { write: (chunk: string) => void lines.push(chunk) });
  const failing: Handlers = {
    ...handlers,
    // An unexpected fault whose error object holds the request's text, as a careless driver error might.
    sendMessage: async ({ body }) => {
      throw Object.assign(new Error('insert failed'), { text: (body as { text: string }).text });
    },
  };
  const config = loadConfig({ APP_ENV: 'test', KEY_CACHE_SECONDS: '0', ADMIN_TOKEN: adminToken });
  const app = createApp(
    {
      config,
      database: testDb.database,
      clock,
      logger,
      rateLimiter: new MemoryRateLimiter(),
      ...createServices(config),
    },
    appRoutes(failing),
  );
  const server: Server = await new Promise((ok) => {
    const s = app.listen(0, '127.0.0.1', () => ok(s));
  });
  const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const account = await createAccount(testDb.database.db, clock, { name: 'Logged', alias: 'logged-account' });
  const { secret } = await createApiKey(testDb.database.db, clock, {
    accountId: account.id,
    name: 'logged key',
    scopes: SCOPES,
    validityDays: 90,
  });
  return {
    baseUrl,
    accountId: account.id,
    apiKey: secret,
    database: testDb.database,
    clock,
    lines,
    parsed: () => lines.map((l) => JSON.parse(l) as LogLine),
    requestLines: () => lines.map((l) => JSON.parse(l) as LogLine).filter((l) => l.msg === 'request'),
    close: async () => {
      await new Promise<void>((ok) => server.close(() => ok()));
      await testDb.drop();
    },
  };
}

describe.each(engines)('observability on %s', (engine) => {
  let t: Awaited<ReturnType<typeof startLoggedApp>>;
  beforeAll(async () => {
    t = await startLoggedApp(engine);
  });
  afterAll(async () => t?.close());

  it('logs one JSON line per request: method, route template, status, duration, request id, account id', async () => {
    const before = t.requestLines().length;
    const res = await call(t.baseUrl, t.apiKey, 'GET', '/v1/me');
    expect(res.status).toBe(200);
    const requestId = res.headers.get('x-request-id');
    expect(requestId).toMatch(/^[0-9a-f-]{36}$/);
    const mine = t.requestLines().slice(before);
    expect(mine).toHaveLength(1);
    const line = mine[0]!;
    expect(line).toMatchObject({
      msg: 'request',
      method: 'GET',
      route: '/v1/me',
      status: 200,
      request_id: requestId,
      account_id: t.accountId,
    });
    expect(line.duration_ms).toEqual(expect.any(Number));
    // Only the chosen fields (and pino's own): nothing else of the request can slip in.
    expect(Object.keys(line).sort()).toEqual(
      [
        'account_id',
        'duration_ms',
        'hostname',
        'level',
        'method',
        'msg',
        'pid',
        'request_id',
        'route',
        'status',
        'time',
      ].sort(),
    );
  });

  it('logs the route template, not the path, and no account for an unauthenticated or unknown route', async () => {
    const before = t.requestLines().length;
    await call(t.baseUrl, undefined, 'GET', `/v1/conversations/${conversationId}`);
    await call(t.baseUrl, undefined, 'GET', '/no/such/path');
    const [conversation, unknown] = t.requestLines().slice(before);
    expect(conversation).toMatchObject({ route: '/v1/conversations/{conversationId}', status: 401, account_id: null });
    expect(unknown).toMatchObject({ route: 'unmatched', status: 404, account_id: null });
    expect(t.lines.join('')).not.toContain(conversationId);
  });

  it('never logs the key, the Authorization header or a message text, even when a request fails with a 500', async () => {
    const before = t.lines.length;
    const res = await call(t.baseUrl, t.apiKey, 'POST', `/v1/conversations/${conversationId}/messages`, {
      body: { text: messageText },
      headers: { 'Idempotency-Key': 'observability-1' },
    });
    expect(res.status).toBe(500);
    const body = (await res.json()) as SchemaInternalError;
    expect(body.context.code).toBe('internal_error');
    const requestId = res.headers.get('x-request-id');
    expect(body.context.request_id).toBe(requestId);

    const written = t.lines.slice(before).join('');
    // The failure was logged, and the request line carries the same id as the header and the envelope.
    expect(written).toContain('insert failed');
    const line = t.requestLines().find((l) => l.request_id === requestId);
    expect(line).toMatchObject({ status: 500, route: '/v1/conversations/{conversationId}/messages' });
    expect(written).not.toContain(t.apiKey);
    expect(written).not.toContain(t.apiKey.slice(4, 20));
    expect(written).not.toContain('Bearer');
    expect(written).not.toContain(messageText);
    expect(written).not.toContain('qzxw');
  });

  // The request line is written without the redaction list (logger.ts `unredacted`): it is safe only while its
  // fields are chosen one by one. A header, the URL or the request itself put into it fails here.
  it('writes request lines that never carry the API key, the Authorization header or the admin token', async () => {
    const before = t.lines.length;
    const answers = [
      await call(t.baseUrl, t.apiKey, 'GET', '/v1/me'),
      await call(t.baseUrl, t.apiKey, 'GET', `/v1/me?api_key=${t.apiKey}`),
      await call(t.baseUrl, `${t.apiKey}x`, 'GET', '/v1/me'),
      await call(t.baseUrl, t.apiKey, 'GET', `/v1/no-such-route/${t.apiKey}`),
      await call(t.baseUrl, adminToken, 'GET', `/admin/v1/accounts/${t.accountId}`),
      await call(t.baseUrl, adminToken, 'GET', `/admin/v1/accounts/${t.accountId}?token=${adminToken}`),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 400, 401, 404, 200, 400]);
    const written = t.lines.slice(before);
    const requestLines = written.filter((l) => (JSON.parse(l) as LogLine).msg === 'request');
    expect(requestLines).toHaveLength(answers.length);
    for (const line of requestLines) {
      expect(line).not.toContain(t.apiKey.slice(4, 20));
      expect(line).not.toContain(adminToken.slice(0, 16));
      expect(line.toLowerCase()).not.toContain('bearer');
      expect(line.toLowerCase()).not.toContain('authorization');
      expect(line).not.toContain('[redacted]');
    }
    // Nor does any other line those requests caused.
    expect(written.join('')).not.toContain(t.apiKey.slice(4, 20));
    expect(written.join('')).not.toContain(adminToken.slice(0, 16));
  });

  it('GET /healthz answers 200 {status: "ok"} with no key, and is not logged as a request', async () => {
    const before = t.requestLines().length;
    const res = await fetch(`${t.baseUrl}/healthz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('x-request-id')).toBeTruthy();
    expect(t.requestLines().length).toBe(before);
  });

  it('GET /readyz answers 200 when the database answers', async () => {
    const res = await fetch(`${t.baseUrl}/readyz`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ status: 'ok' });
  });

  it('GET /metrics counts requests and latencies by method, route template and status, with process metrics', async () => {
    await call(t.baseUrl, t.apiKey, 'GET', '/v1/me');
    await call(t.baseUrl, t.apiKey, 'GET', '/v1/contacts?limit=0');
    await call(t.baseUrl, undefined, 'GET', `/v1/contacts/${conversationId}/nothing-here`);
    const res = await fetch(`${t.baseUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('text/plain');
    const text = await res.text();
    const count = (labels: string) =>
      Number(new RegExp(`^http_requests_total\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
    expect(count('method="GET",route="/v1/me",status="200"')).toBeGreaterThanOrEqual(2);
    expect(count('method="GET",route="/v1/contacts",status="400"')).toBe(1);
    expect(count('method="GET",route="unmatched",status="404"')).toBeGreaterThanOrEqual(2);
    expect(text).toMatch(
      /^http_request_duration_seconds_bucket\{le="0\.1",method="GET",route="\/v1\/me",status="200"\} \d+$/m,
    );
    expect(text).toMatch(/^http_request_duration_seconds_count\{method="GET",route="\/v1\/me",status="200"\} \d+$/m);
    expect(text).toContain('process_cpu_user_seconds_total');
    expect(text).toContain('nodejs_eventloop_lag_seconds');
    // Labels are templates: no id of a path ever becomes a series.
    expect(text).not.toContain(conversationId);
  });

  it('GET /metrics reads the jobs by state at scrape time and shows the delivery outcomes', async () => {
    const db = t.database.db;
    await db.deleteFrom('jobs').execute();
    // On the app's clock, which the gauges read.
    const at = (ms: number) => new Date(t.clock.now().getTime() + ms).toISOString();
    const job = (fields: Record<string, string | number>) => ({
      kind: 'metrics.test',
      account_id: null,
      payload: '{}',
      run_at: at(-60_000),
      created_at: at(-60_000),
      ...fields,
    });
    await db
      .insertInto('jobs')
      .values([
        job({}), // due
        job({}), // due
        job({ locked_by: 'w', locked_until: at(60_000), attempts: 1 }), // running
        job({ locked_by: 'w', locked_until: at(-1000), attempts: 1 }), // due: its lease ran out
        job({ waiting_for: 'slot:x', wait_until: at(60_000) }), // parked
        job({ failed_at: at(-1000), attempts: 10 }), // failed
        job({ run_at: at(3_600_000) }), // later: not counted
      ])
      .execute();
    const text = await (await fetch(`${t.baseUrl}/metrics`)).text();
    const gauge = (state: string) => Number(new RegExp(`^jobs\\{state="${state}"\\} (\\d+)$`, 'm').exec(text)?.[1]);
    expect(['due', 'running', 'parked', 'failed'].map(gauge)).toEqual([3, 1, 1, 1]);
    for (const outcome of ['succeeded', 'retrying', 'failed', 'dropped'])
      expect(text).toMatch(new RegExp(`^webhook_delivery_outcomes_total\\{outcome="${outcome}"\\} \\d+$`, 'm'));
    await db.deleteFrom('jobs').execute();
  });
});

describe.each(engines)('readiness on %s', (engine) => {
  it('GET /readyz answers 503 when the database does not answer, /healthz still 200', async () => {
    const testDb = await openTestDatabase(engine);
    const config = loadConfig({ APP_ENV: 'test' });
    const app = createApp(
      {
        config,
        database: testDb.database,
        clock: new ManualClock(),
        logger: createLogger('silent'),
        rateLimiter: new MemoryRateLimiter(),
        ...createServices(config),
      },
      appRoutes(),
    );
    const server: Server = await new Promise((ok) => {
      const s = app.listen(0, '127.0.0.1', () => ok(s));
    });
    const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      expect((await fetch(`${baseUrl}/readyz`)).status).toBe(200);
      await testDb.drop();
      const res = await fetch(`${baseUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(await res.json()).toMatchObject({ status: 'unavailable' });
      expect((await fetch(`${baseUrl}/healthz`)).status).toBe(200);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
    }
  });
});

describe('answersWithin (the readiness timeout)', () => {
  it('is false when the check takes longer than the timeout, without waiting for it', async () => {
    const started = Date.now();
    expect(await answersWithin(() => new Promise(() => {}), 50)).toBe(false);
    expect(Date.now() - started).toBeLessThan(1000);
  });
  it('is false when the check fails, true when it answers in time', async () => {
    expect(await answersWithin(() => Promise.reject(new Error('down')), 50)).toBe(false);
    expect(await answersWithin(() => Promise.resolve(1), 50)).toBe(true);
  });
});
