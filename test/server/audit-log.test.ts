// GET /admin/v1/accounts/{accountId}/audit-log, on every engine of the run: the console's view of the account
// audit log — the console's changes (actor_type admin) and a key's webhook changes (actor_type api_key, with the
// key), newest first, paged with cursors bound to the account's list, never another account's entries.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { json as ok } from './http-helpers.js';
import type { SchemaWebhookEndpointWithSecret } from '../../generated/api.js';
import type {
  SchemaAdminAccount,
  SchemaAdminApiKeyCreated,
  SchemaAdminAuditLog,
  SchemaAdminAuditLogEntry,
} from '../../generated/admin-api.js';

const TOKEN = 'admin-token-for-tests-0123456789';

describe.each(engines)('the account audit log on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    // Development webhook targets: a loopback receiver can be registered without DNS.
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, WEBHOOK_DEV_TARGETS: 'true' } });
  });
  afterAll(async () => t?.close());

  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, { body });
  const log = (accountId: string, query = '') => admin('GET', `/accounts/${accountId}/audit-log${query}`);

  /** An account with a console key and a webhook endpoint that key registered and changed; what happened, in order. */
  async function history() {
    const account = await ok<SchemaAdminAccount>(
      await admin('POST', '/accounts', { name: 'Loja', alias: `loja-${randomUUID().slice(0, 8)}` }),
      201,
    );
    t.clock.advance(1000);
    const created = await ok<SchemaAdminApiKeyCreated>(
      await admin('POST', `/accounts/${account.id}/keys`, {
        name: 'Integração',
        scopes: ['contacts:read', 'webhooks:read', 'webhooks:write'],
        validity_days: 90,
      }),
      201,
    );
    const key = created.api_key.id;
    t.clock.advance(1000);
    const hook = await ok<SchemaWebhookEndpointWithSecret>(
      await call(t.baseUrl, created.secret, 'POST', '/v1/webhooks', {
        body: { url: 'http://127.0.0.1:9/hooks', event_types: ['contact.created'] },
      }),
      201,
    );
    // No clock move: two entries at one moment keep the order they were recorded in.
    await ok(
      await call(t.baseUrl, created.secret, 'PATCH', `/v1/webhooks/${hook.id}`, { body: { description: 'CRM' } }),
    );
    t.clock.advance(1000);
    await ok(await call(t.baseUrl, created.secret, 'POST', `/v1/webhooks/${hook.id}/rotate-secret`));
    t.clock.advance(1000);
    await ok(await admin('DELETE', `/keys/${key}`));
    const byKey = { actor_type: 'api_key', api_key_id: key, resource_type: 'webhook_endpoint', resource_id: hook.id };
    const byConsole = { actor_type: 'admin', api_key_id: null };
    const newestFirst = [
      { ...byConsole, action: 'api_key.revoked', resource_type: 'api_key', resource_id: key },
      { ...byKey, action: 'webhook.secret_rotated' },
      { ...byKey, action: 'webhook.updated' },
      { ...byKey, action: 'webhook.created' },
      { ...byConsole, action: 'api_key.created', resource_type: 'api_key', resource_id: key },
      { ...byConsole, action: 'account.created', resource_type: 'account', resource_id: account.id },
    ];
    return { accountId: account.id, secrets: [created.secret, hook.secret], newestFirst };
  }

  it('lists the changes newest first, with the key of a key change, and nothing secret', async () => {
    const { accountId, secrets, newestFirst } = await history();
    const res = await log(accountId);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const page = await ok<SchemaAdminAuditLog>(res);
    expect(page.next_cursor).toBeNull();
    expect(page.data).toEqual(newestFirst.map((e) => ({ ...e, created_at: expect.any(String) })));
    const times = page.data.map((e) => e.created_at);
    expect([...times].sort().reverse()).toEqual(times);
    expect(times[2]).toBe(times[3]); // the endpoint's register and change, at one moment
    for (const secret of secrets) expect(JSON.stringify(page)).not.toContain(secret);
  });

  it('pages with a cursor bound to the account, and shows only the account’s own entries', async () => {
    const { accountId, newestFirst } = await history();
    const other = await history();
    const read: SchemaAdminAuditLogEntry[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page: SchemaAdminAuditLog = await ok<SchemaAdminAuditLog>(
        await log(accountId, `?limit=4${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`),
      );
      read.push(...page.data);
      cursor = page.next_cursor;
      pages += 1;
    } while (cursor);
    expect(pages).toBe(2);
    expect(read.map(({ action, resource_id }) => ({ action, resource_id }))).toEqual(
      newestFirst.map(({ action, resource_id }) => ({ action, resource_id })),
    );

    // A cursor of another account's log, or a changed one, is not this list's.
    const first = await ok<SchemaAdminAuditLog>(await log(other.accountId, '?limit=1'));
    for (const bad of [first.next_cursor!, `${first.next_cursor!.slice(0, -2)}AA`]) {
      const refused = await log(accountId, `?cursor=${encodeURIComponent(bad)}`);
      expect(refused.status).toBe(400);
      expect(await refused.json()).toMatchObject({ type: 'error', context: { code: 'invalid_cursor' } });
    }
  });

  it('answers 404 for an unknown account and 400 for a page size out of range', async () => {
    const missing = await log(randomUUID());
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ type: 'error', context: { code: 'not_found' } });
    const { accountId } = await history();
    expect((await log(accountId, '?limit=101')).status).toBe(400);
  });
});
