// The shared rules of Part A on the server: keys and gateway answers, scopes, the error envelope, headers,
// 501 for routes whose issue has not landed. Run on every engine of the run.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operations, type OperationInfo } from '../../generated/operations.js';
import { loadConfig } from '../../server/config.js';
import { changeAccount } from '../../server/domain/accounts/accounts.js';
import { createApiKey, hashKey, KEY_PATTERN, SCOPES } from '../../server/domain/accounts/keys.js';
import { revokeKey } from '../../server/store/accounts.js';
import { DataDirLockedError, lockDataDir } from '../../server/store/database.js';
import { handlers } from '../../server/http/routes/index.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import type { SchemaMe } from '../../generated/api.js';

const uuid = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
const concretePath = (op: OperationInfo) => op.path.replace(/\{[^{}]+\}/g, uuid);

describe.each(engines)('foundation on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('answers GET /v1/me with the account, the key and the success headers', async () => {
    const me = await t.account({ scopes: ['contacts:read'] });
    const res = await me.call('GET', '/v1/me');
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('ratelimit-limit')).toBe('120');
    expect(Number(res.headers.get('ratelimit-remaining'))).toBe(119);
    expect(Number(res.headers.get('ratelimit-reset'))).toBeGreaterThanOrEqual(0);
    const body = (await res.json()) as SchemaMe;
    expect(body.account.id).toBe(me.accountId);
    expect(body.api_key).toMatchObject({ id: me.keyId, scopes: ['contacts:read'] });
  });

  it('issues keys in the documented format and stores only their hash', async () => {
    const me = await t.account();
    expect(me.apiKey).toMatch(KEY_PATTERN);
    expect(me.apiKey).toMatch(/^epk_[A-Za-z0-9]{46}$/);
    const row = await t.database.db
      .selectFrom('api_keys')
      .selectAll()
      .where('id', '=', me.keyId)
      .executeTakeFirstOrThrow();
    expect(row.hash).toBe(hashKey(me.apiKey));
    expect(JSON.stringify(row)).not.toContain(me.apiKey);
  });

  it('answers 401 with only a message for a missing, malformed, unknown, revoked or expired key', async () => {
    const me = await t.account({ validityDays: 30 });
    const other = await t.account();
    const answers: Response[] = [
      await call(t.baseUrl, undefined, 'GET', '/v1/me'),
      await call(t.baseUrl, 'not-a-key', 'GET', '/v1/me'),
      await call(t.baseUrl, `epk_${'a'.repeat(46)}`, 'GET', '/v1/me'),
    ];
    await revokeKey(t.database.db, other.keyId, t.clock.now().toISOString());
    answers.push(await other.call('GET', '/v1/me'));
    t.clock.advance(30 * 86_400_000 + 1000);
    answers.push(await me.call('GET', '/v1/me'));
    t.clock.advance(-(30 * 86_400_000 + 1000));
    for (const res of answers) {
      expect(res.status).toBe(401);
      const body = (await res.json()) as Record<string, unknown>;
      expect(Object.keys(body)).toEqual(['message']);
    }
  });

  it('answers 403 with only a message for a suspended account or one without API access', async () => {
    const suspended = await t.account();
    await changeAccount(t.database.db, t.clock, suspended.accountId, { suspended: true });
    const apiOff = await t.account();
    await changeAccount(t.database.db, t.clock, apiOff.accountId, { api_enabled: false });
    for (const caller of [suspended, apiOff]) {
      const res = await caller.call('GET', '/v1/me');
      expect(res.status).toBe(403);
      expect(Object.keys((await res.json()) as object)).toEqual(['message']);
    }
  });

  it('refuses every route to a key without its scope, naming the scope (scope matrix)', async () => {
    const problems: string[] = [];
    const callers = new Map<string, Awaited<ReturnType<TestApp['account']>>>();
    for (const scope of SCOPES) callers.set(scope, await t.account({ scopes: SCOPES.filter((s) => s !== scope) }));
    for (const [id, op] of Object.entries(operations) as [string, OperationInfo][]) {
      if (!op.scope) continue;
      const res = await callers.get(op.scope)!.call(op.method.toUpperCase(), concretePath(op), {
        headers: { 'Idempotency-Key': `scope-${id}` },
      });
      const body = (await res.json()) as { context?: { code?: string; required_scope?: string } };
      if (res.status !== 403 || body.context?.code !== 'insufficient_scope' || body.context.required_scope !== op.scope)
        problems.push(`${id}: ${res.status} ${JSON.stringify(body)}`);
    }
    expect(problems).toEqual([]);
  });

  it('lets GET /v1/me through without any scope', async () => {
    const none = await t.account({ scopes: [] });
    expect((await none.call('GET', '/v1/me')).status).toBe(200);
  });

  it('answers 400 with context.details and no code for format faults', async () => {
    const me = await t.account();
    const cases: [string, string, unknown][] = [
      ['GET', '/v1/contacts?limit=500', undefined],
      ['GET', '/v1/contacts?unknown=1', undefined],
      ['POST', '/v1/tags', { name: 'VIP', colour: 'red' }],
      ['POST', '/v1/tags', '{"name": '],
      ['GET', '/v1/contacts/not-a-uuid', undefined],
      ['GET', '/v1/contacts/%E0%A4%A', undefined],
      ['POST', '/v1/tags', [1, 2]],
      // PostgreSQL text cannot hold U+0000: refused as a format fault, never a 500 from the store.
      ['POST', '/v1/tags', { name: 'a\u0000b' }],
      ['GET', '/v1/contacts?phone=%2B55%00', undefined],
    ];
    for (const [method, path, body] of cases) {
      const res = await me.call(method, path, { body });
      expect(res.status, `${method} ${path}`).toBe(400);
      const json = (await res.json()) as { type: string; context: { code?: string; details: unknown[] } };
      expect(json.type).toBe('error');
      expect(json.context.code).toBeUndefined();
      expect(json.context.details.length).toBeGreaterThan(0);
    }
  });

  it('answers a body over 1 MB with 413 payload_too_large in the envelope, on the public and the admin API', async () => {
    const me = await t.account();
    const MB = 1_048_576;
    /** A JSON body of exactly `bytes` bytes. */
    const body = (bytes: number) => `{"name":"${'a'.repeat(bytes - 11)}"}`;
    expect(body(MB).length).toBe(MB);
    const tooLarge = {
      type: 'error',
      message: expect.any(String),
      context: { code: 'payload_too_large', max_size: MB },
    };
    for (const [path, key] of [
      ['/v1/tags', me.apiKey],
      ['/admin/v1/accounts', 'any-admin-token'],
    ] as const) {
      const res = await call(t.baseUrl, key, 'POST', path, { body: body(MB + 1) });
      expect(res.status, path).toBe(413);
      expect(await res.json(), path).toEqual(tooLarge);
    }
    // 1 MB itself passes the size check (the tag name is then too long: a 400 with details).
    const atLimit = await me.call('POST', '/v1/tags', { body: body(MB) });
    expect(atLimit.status).toBe(400);
  });

  it('names where the NUL character is', async () => {
    const me = await t.account();
    const res = await me.call('POST', '/v1/tags', { body: { name: 'VIP\u0000' } });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({
      context: { details: [{ location: 'body', path: '/name', message: expect.stringContaining('NUL') }] },
    });
  });

  it('answers 501 not_implemented for a route without a handler, never a fake success', async () => {
    // Every route has its handler today: an app missing one shows what a route whose issue has not landed does.
    const partial = await startTestApp(engine, { handlers: { ...handlers, getMe: undefined } });
    try {
      const me = await partial.account();
      const res = await me.call('GET', '/v1/me');
      expect(res.status).toBe(501);
      expect(await res.json()).toMatchObject({ type: 'error', context: { code: 'not_implemented' } });
    } finally {
      await partial.close();
    }
  });

  it('answers an unknown route with 404 not_found in the envelope', async () => {
    const me = await t.account();
    const res = await me.call('GET', '/v1/nothing-here');
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ type: 'error', context: { code: 'not_found' } });
  });

  it('sends no CORS headers, also to a preflight', async () => {
    const me = await t.account();
    const res = await me.call('GET', '/v1/me', { headers: { Origin: 'https://evil.example' } });
    expect([...res.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
    const preflight = await fetch(`${t.baseUrl}/v1/me`, {
      method: 'OPTIONS',
      headers: { Origin: 'https://evil.example', 'Access-Control-Request-Method': 'GET' },
    });
    expect([...preflight.headers.keys()].filter((h) => h.startsWith('access-control-'))).toEqual([]);
  });

  it('holds at most 25 active keys per account; revoked and expired ones do not count', async () => {
    const me = await t.account();
    const make = () =>
      createApiKey(t.database.db, t.clock, { accountId: me.accountId, name: 'k', scopes: [], validityDays: 30 });
    const made = [];
    for (let i = 0; i < 24; i++) made.push(await make());
    await expect(make()).rejects.toMatchObject({ code: 'key_limit_reached' });
    await revokeKey(t.database.db, made[0]!.key.id, t.clock.now().toISOString());
    await expect(make()).resolves.toBeDefined();
  });
});

describe.each(engines)('key revocation on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { KEY_CACHE_SECONDS: '60' } });
  });
  afterAll(async () => t?.close());

  it('stops a revoked key within 1 minute', async () => {
    const me = await t.account();
    expect((await me.call('GET', '/v1/me')).status).toBe(200);
    await revokeKey(t.database.db, me.keyId, t.clock.now().toISOString());
    t.clock.advance(60_000);
    expect((await me.call('GET', '/v1/me')).status).toBe(401);
  });
});

describe('configuration', () => {
  it('refuses invalid settings, naming them, and production without its musts', () => {
    expect(() => loadConfig({ PORT: 'abc' })).toThrow(/PORT/);
    expect(() => loadConfig({ APP_ENV: 'production', ADMIN_TOKEN: 'x'.repeat(32) })).toThrow(/DATABASE_URL/);
    expect(() =>
      loadConfig({
        APP_ENV: 'production',
        DATABASE_URL: 'postgres://db/x',
        ADMIN_TOKEN: 'x'.repeat(32),
        REQUEST_VALIDATION: 'false',
      }),
    ).toThrow(/REQUEST_VALIDATION/);
    const embedded = loadConfig({});
    expect(embedded).toMatchObject({ requestValidation: true, responseValidation: true, sandboxEnabled: true });
  });
});

describe('data directory lock', () => {
  it('refuses a second opener of the same directory with a clear error, and frees it on release', () => {
    const dir = mkdtempSync(join(tmpdir(), 'ep-lock-'));
    try {
      const release = lockDataDir(dir);
      // The lock file names a running process (this one) as owner; simulate another process by pid 1.
      rmSync(join(dir, '.lock'));
      writeFileSync(join(dir, '.lock'), '1');
      expect(() => lockDataDir(dir)).toThrow(DataDirLockedError);
      release();
      expect(() => lockDataDir(dir)()).not.toThrow();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
