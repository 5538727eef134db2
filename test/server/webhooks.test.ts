// The nine /v1/webhooks routes (Part C; decisions "Webhooks: webhooks and events") on every engine of the run:
// endpoints (limit of 10 also under concurrency, event types folded and sorted, description, URL rules with a
// stub resolver, scopes of event types, api_disabled), PATCH and its effects on deliveries, DELETE, the audit
// log, the register replay with the current secret, secret rotation, the delivery log and its cursors, resend,
// the test event to a real receiver on loopback, and the rate kinds. The server's response validation checks
// every answer against the spec.
import { createHmac, randomUUID } from 'node:crypto';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createApiKey, type Scope } from '../../server/domain/accounts/keys.js';
import { operationIds } from '../../generated/operations.js';
import { handlerOf, type Handlers, type UntypedHandler } from '../../server/http/context.js';
import { handlers as allHandlers } from '../../server/http/routes/index.js';
import { insertEvents, type EventRow } from '../../server/store/events.js';
import type { WebhookDeliveryRow } from '../../server/store/webhook-endpoints.js';
import type { Resolve, TargetPolicy } from '../../server/webhooks/targets.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json, type ErrorBody } from './http-helpers.js';
import type {
  SchemaWebhookDelivery,
  SchemaWebhookDeliveryList,
  SchemaWebhookEndpoint,
  SchemaWebhookEndpointList,
  SchemaWebhookEndpointWithSecret,
} from '../../generated/api.js';

/** Public answers of the stub resolver; anything else does not resolve. */
const DNS: Record<string, string[]> = {
  'hooks.example.com': ['93.184.215.14'],
  'v6.example.com': ['2606:2800:21f:cb07:6820:80da:af6b:8b2c'],
  'private.example.com': ['10.1.2.3'],
  'loopback.example.com': ['127.0.0.1'],
  'cgnat.example.com': ['100.64.0.9'],
  'linklocal.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:10.0.0.1'],
  'mixed.example.com': ['93.184.215.14', '192.168.1.1'],
};
const stubResolve: Resolve = async (hostname) => {
  const answers = DNS[hostname];
  if (!answers) throw Object.assign(new Error(`ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
  return answers.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
};
const DEV_POLICY: TargetPolicy = { devTargets: true, resolve: stubResolve };
const STRICT_POLICY: TargetPolicy = { devTargets: false, resolve: stubResolve };

const URL_OK = 'https://hooks.example.com/engagement/events';
const ts = (d: Date) => d.toISOString().replace('Z', '000Z');
const hmac = (secret: string, t: string, body: string) =>
  createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');

/** A loopback receiver whose answer each test sets; it records every request. */
interface Received {
  headers: IncomingHttpHeaders;
  body: string;
}
async function startReceiver(): Promise<{
  url: string;
  received: Received[];
  status: { code: number };
  close(): Promise<void>;
}> {
  const received: Received[] = [];
  const status = { code: 200 };
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      res.statusCode = status.code;
      res.end('ok');
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    status,
    close: () => new Promise<void>((ok) => server.close(() => ok())),
  };
}

describe.each(engines)('webhooks on %s', (engine) => {
  let t: TestApp;
  /** The URL rules the handlers see; undefined: the configuration's (development targets on, real DNS). */
  let policy: TargetPolicy | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;

  beforeAll(async () => {
    // Each handler gets the policy of the moment as the AppContext override.
    const wrapped = Object.fromEntries(
      operationIds.flatMap((id) => {
        const handler = handlerOf(allHandlers, id);
        if (!handler) return [];
        const withPolicy: UntypedHandler = (input) =>
          handler({ ...input, app: policy ? { ...input.app, webhookTargets: policy } : input.app });
        return [[id, withPolicy]];
      }),
    ) as Handlers;
    // The key cache of production (60 s): the gateway lets calls through for a minute after the API is switched
    // off, which is when the routes answer 403 api_disabled themselves.
    t = await startTestApp(engine, {
      handlers: wrapped,
      env: { WEBHOOK_DEV_TARGETS: 'true', KEY_CACHE_SECONDS: '60' },
    });
    receiver = await startReceiver();
  });
  afterAll(async () => {
    await receiver?.close();
    await t?.close();
  });
  beforeEach(() => {
    policy = DEV_POLICY;
    receiver.received.length = 0;
    receiver.status.code = 200;
  });

  const db = () => t.database.db;

  async function create(c: TestCaller, body: Record<string, unknown>, headers: Record<string, string> = {}) {
    return c.call('POST', '/v1/webhooks', {
      body: { url: URL_OK, event_types: ['contact.created'], ...body },
      headers,
    });
  }
  async function made(c: TestCaller, body: Record<string, unknown> = {}): Promise<SchemaWebhookEndpointWithSecret> {
    const res = await create(c, body);
    expect(res.status, await res.clone().text()).toBe(201);
    t.clock.advance(1000);
    return (await res.json()) as SchemaWebhookEndpointWithSecret;
  }
  /** Another key of the same account. */
  async function keyOf(c: TestCaller, scopes: Scope[]): Promise<TestCaller & { keyId: string }> {
    const { key, secret } = await createApiKey(db(), t.clock, {
      accountId: c.accountId,
      name: `key ${randomUUID()}`,
      scopes,
      validityDays: 90,
    });
    return {
      accountId: c.accountId,
      keyId: key.id,
      apiKey: secret,
      call: (method, path, init = {}) => call(t.baseUrl, secret, method, path, init),
    };
  }
  /** Records an event and its delivery to the endpoint, as the outbox fan-out does. */
  async function delivery(
    c: TestCaller,
    webhookId: string,
    options: {
      type?: EventRow['type'];
      status?: 'pending' | 'succeeded' | 'failed';
      attempts?: number;
      lastError?: WebhookDeliveryRow['last_error'];
      createdAt?: Date;
    } = {},
  ): Promise<{ id: string; eventId: string }> {
    const at = (options.createdAt ?? t.clock.now()).toISOString();
    const eventId = randomUUID();
    const type = options.type ?? 'contact.created';
    await insertEvents(db(), [
      { id: eventId, accountId: c.accountId, type, resourceType: 'contact', resourceId: randomUUID(), data: {}, at },
    ]);
    const id = randomUUID();
    const status = options.status ?? 'pending';
    await db()
      .insertInto('webhook_deliveries')
      .values({
        id,
        account_id: c.accountId,
        webhook_id: webhookId,
        event_id: eventId,
        event_type: type,
        event_created_at: at,
        status,
        attempts: options.attempts ?? (status === 'pending' ? 0 : 1),
        next_attempt_at: status === 'pending' ? at : null,
        last_attempt_at: status === 'pending' ? null : at,
        last_response_status: status === 'failed' ? 500 : status === 'succeeded' ? 200 : null,
        last_error: options.lastError !== undefined ? options.lastError : status === 'failed' ? 'http_status' : null,
        delivered_at: status === 'succeeded' ? at : null,
        created_at: at,
      })
      .execute();
    return { id, eventId };
  }
  const endpointRow = (id: string) =>
    db().selectFrom('webhook_endpoints').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
  const deliveryRow = (id: string) =>
    db().selectFrom('webhook_deliveries').selectAll().where('id', '=', id).executeTakeFirst();
  const jobsFor = async (deliveryId: string) =>
    (await db().selectFrom('jobs').selectAll().where('kind', '=', 'webhook.deliver').execute()).filter(
      (j) => (j.payload as { delivery_id?: string }).delivery_id === deliveryId,
    );
  const auditOf = (accountId: string) =>
    db().selectFrom('audit_log').selectAll().where('account_id', '=', accountId).orderBy('id').execute();

  describe('POST /v1/webhooks', () => {
    it('registers an endpoint: 201 with its whsec_ secret, event types once each in alphabetical order', async () => {
      const me = await t.account();
      const res = await create(me, {
        event_types: ['message.received', 'contact.created', 'message.received', 'comment.received'],
        description: 'CRM sync',
      });
      expect(res.headers.get('cache-control')).toBe('no-store');
      const body = await json<SchemaWebhookEndpointWithSecret>(res, 201);
      expect(body).toEqual({
        id: expect.any(String),
        url: URL_OK,
        description: 'CRM sync',
        event_types: ['comment.received', 'contact.created', 'message.received'],
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
        previous_secret_expires_at: null,
        created_at: ts(t.clock.now()),
        updated_at: ts(t.clock.now()),
        secret: expect.stringMatching(/^whsec_[A-Za-z0-9_-]{20,}$/),
      });
      // Read back: the same endpoint, without the secret.
      const got = await json<SchemaWebhookEndpoint>(await me.call('GET', `/v1/webhooks/${body.id}`), 200);
      const { secret: _secret, ...withoutSecret } = body;
      expect(got).toEqual(withoutSecret);
      // Another endpoint gets another secret.
      expect((await made(me)).secret).not.toBe(body.secret);
    });

    it('stores a blank description as null and refuses one over 200 characters (400)', async () => {
      const me = await t.account();
      expect((await made(me, { description: '   ' })).description).toBeNull();
      expect((await made(me, { description: '' })).description).toBeNull();
      expect((await made(me, { description: null })).description).toBeNull();
      expect((await made(me, {})).description).toBeNull();
      expect((await made(me, { description: 'd'.repeat(200) })).description).toBe('d'.repeat(200));
      expect((await create(me, { description: 'd'.repeat(201) })).status).toBe(400);
    });

    it('takes 1 to 50 event types (repeats count as sent) of the subscribable types only', async () => {
      const me = await t.account();
      expect((await create(me, { event_types: [] })).status).toBe(400);
      const fifty = Array.from({ length: 50 }, (_, i) => (i % 2 ? 'contact.tagged' : 'contact.created'));
      expect((await made(me, { event_types: fifty })).event_types).toEqual(['contact.created', 'contact.tagged']);
      expect((await create(me, { event_types: [...fifty, 'contact.created'] })).status).toBe(400);
      expect((await create(me, { event_types: ['webhook.test'] })).status).toBe(400);
      expect((await create(me, { event_types: ['contact.deleted'] })).status).toBe(400);
    });

    it('takes a url of up to 2048 characters (400 beyond); an empty one is 422 invalid', async () => {
      const me = await t.account();
      const base = 'https://hooks.example.com/';
      const longest = base + 'a'.repeat(2048 - base.length);
      expect((await made(me, { url: longest })).url).toBe(longest);
      expect((await create(me, { url: `${longest}a` })).status).toBe(400);
      await expectError(await create(me, { url: '' }), 422, { code: 'invalid_webhook_url', reason: 'invalid' });
    });

    it('holds at most 10 endpoints, disabled ones included (409 webhook_limit_reached); deleting frees one', async () => {
      const me = await t.account();
      const first = await made(me);
      for (let i = 1; i < 10; i++) await made(me);
      await json(await me.call('PATCH', `/v1/webhooks/${first.id}`, { body: { status: 'disabled' } }), 200);
      await expectError(await create(me, {}), 409, { code: 'webhook_limit_reached', limit: 10 });
      // Another account is not affected.
      await made(await t.account());
      await json(await me.call('DELETE', `/v1/webhooks/${first.id}`), 200);
      await made(me);
      await expectError(await create(me, {}), 409, { code: 'webhook_limit_reached', limit: 10 });
    });

    it('never passes 10 under concurrent registrations', async () => {
      const me = await t.account();
      await made(me);
      const answers = await Promise.all(Array.from({ length: 14 }, () => create(me, {})));
      const statuses = answers.map((r) => r.status).sort();
      expect(statuses.filter((s) => s === 201)).toHaveLength(9);
      expect(statuses.filter((s) => s === 409)).toHaveLength(5);
      const { n } = await db()
        .selectFrom('webhook_endpoints')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('account_id', '=', me.accountId)
        .where('deleted_at', 'is', null)
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(10);
    });

    it('needs the read scope of every subscribed type (403 insufficient_scope with required_scope)', async () => {
      const me = await t.account({ scopes: ['webhooks:write', 'webhooks:read', 'contacts:read'] });
      await made(me, { event_types: ['contact.created', 'connection.connected'] });
      for (const [type, scope] of [
        ['message.received', 'conversations:read'],
        ['comment.received', 'conversations:read'],
        ['live_comment.received', 'conversations:read'],
        ['message.failed', 'conversations:read'],
        ['workflow_run.ended', 'workflows:read'],
        ['link.clicked', 'workflows:read'],
      ] as const) {
        await expectError(await create(me, { event_types: ['contact.created', type] }), 403, {
          code: 'insufficient_scope',
          required_scope: scope,
        });
      }
      // Without webhooks:write, the route's own scope.
      const reader = await t.account({ scopes: ['webhooks:read', 'contacts:read'] });
      await expectError(await create(reader, {}), 403, {
        code: 'insufficient_scope',
        required_scope: 'webhooks:write',
      });
    });

    it('repeated with the same Idempotency-Key: the same endpoint with its current secret, 404 once deleted', async () => {
      const me = await t.account();
      const headers = { 'Idempotency-Key': `reg-${randomUUID()}` };
      const first = await json<SchemaWebhookEndpointWithSecret>(await create(me, { description: 'one' }, headers), 201);
      const again = await json<SchemaWebhookEndpointWithSecret>(await create(me, { description: 'one' }, headers), 201);
      expect(again).toEqual(first);
      // Changed and rotated since: the replay shows the endpoint as it is now, with the new secret.
      await json(await me.call('PATCH', `/v1/webhooks/${first.id}`, { body: { description: 'two' } }), 200);
      const rotated = await json<SchemaWebhookEndpointWithSecret>(
        await me.call('POST', `/v1/webhooks/${first.id}/rotate-secret`),
        200,
      );
      const replay = await json<SchemaWebhookEndpointWithSecret>(
        await create(me, { description: 'one' }, headers),
        201,
      );
      expect(replay.id).toBe(first.id);
      expect(replay.description).toBe('two');
      expect(replay.secret).toBe(rotated.secret);
      expect(replay.secret).not.toBe(first.secret);
      // Nothing else was created.
      const list = await json<SchemaWebhookEndpointList>(await me.call('GET', '/v1/webhooks'), 200);
      expect(list.data.map((e) => e.id)).toEqual([first.id]);
      // Another request with the key.
      await expectError(await create(me, { description: 'other' }, headers), 422, { code: 'idempotency_key_reused' });
      // Deleted since: 404.
      await json(await me.call('DELETE', `/v1/webhooks/${first.id}`), 200);
      await expectError(await create(me, { description: 'one' }, headers), 404, { code: 'not_found' });
    });
  });

  describe('URL rules at registration (strict, stub resolver)', () => {
    beforeEach(() => {
      policy = STRICT_POLICY;
    });

    it('refuses a URL the service does not send to: 422 invalid_webhook_url with the reason', async () => {
      const me = await t.account();
      for (const [url, reason] of [
        ['not a url', 'invalid'],
        ['hooks.example.com/events', 'invalid'],
        ['http://hooks.example.com/events', 'https_required'],
        ['ftp://hooks.example.com/events', 'https_required'],
        ['https://user:pw@hooks.example.com/events', 'credentials'],
        ['https://user@hooks.example.com/events', 'credentials'],
        ['https://hooks.example.com:8443/events', 'port'],
        ['https://hooks.example.com:80/events', 'port'],
        ['https://nowhere.example.com/events', 'unreachable'],
        ['https://private.example.com/events', 'unreachable'],
        ['https://loopback.example.com/events', 'unreachable'],
        ['https://cgnat.example.com/events', 'unreachable'],
        ['https://linklocal.example.com/events', 'unreachable'],
        ['https://mapped.example.com/events', 'unreachable'],
        ['https://mixed.example.com/events', 'unreachable'],
        ['https://127.0.0.1/events', 'unreachable'],
        ['https://[::1]/events', 'unreachable'],
        ['https://10.0.0.1/events', 'unreachable'],
      ] as const) {
        const res = await create(me, { url });
        expect(res.status, url).toBe(422);
        expect(((await res.json()) as ErrorBody).context, url).toEqual({ code: 'invalid_webhook_url', reason });
      }
      // Public addresses pass, port 443 written out included.
      await made(me, { url: 'https://hooks.example.com/events' });
      await made(me, { url: 'https://hooks.example.com:443/events' });
      await made(me, { url: 'https://v6.example.com/events' });
      await made(me, { url: 'https://93.184.215.14/events' });
    });

    it('checks a new URL on PATCH too, and leaves the endpoint unchanged when refused', async () => {
      const me = await t.account();
      const hook = await made(me);
      await expectError(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { url: 'https://private.example.com/x' } }),
        422,
        { code: 'invalid_webhook_url', reason: 'unreachable' },
      );
      expect((await endpointRow(hook.id)).url).toBe(URL_OK);
      const changed = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { url: 'https://v6.example.com/new' } }),
        200,
      );
      expect(changed.url).toBe('https://v6.example.com/new');
    });

    it('the development setting allows http, other ports and loopback', async () => {
      policy = DEV_POLICY;
      const me = await t.account();
      await made(me, { url: 'http://127.0.0.1:8080/hook' });
      await made(me, { url: 'http://loopback.example.com:3000/hook' });
    });
  });

  describe('GET /v1/webhooks', () => {
    it('lists every endpoint of the account newest first, in one page, without secrets', async () => {
      const me = await t.account();
      const a = await made(me, { description: 'a' });
      const b = await made(me, { description: 'b' });
      const c = await made(me, { description: 'c' });
      await made(await t.account());
      await json(await me.call('PATCH', `/v1/webhooks/${b.id}`, { body: { status: 'disabled' } }), 200);
      const deleted = await made(me);
      await json(await me.call('DELETE', `/v1/webhooks/${deleted.id}`), 200);
      const page = await json<SchemaWebhookEndpointList>(await me.call('GET', '/v1/webhooks'), 200);
      expect(page.next_cursor).toBeNull();
      expect(page.data.map((e) => e.id)).toEqual([c.id, b.id, a.id]);
      expect(page.data[1]!.status).toBe('disabled');
      for (const e of page.data) expect(e).not.toHaveProperty('secret');
    });

    it('refuses limit and cursor like any unknown query parameter (400)', async () => {
      const me = await t.account();
      for (const query of ['limit=5', 'cursor=abc', 'status=enabled']) {
        const res = await me.call('GET', `/v1/webhooks?${query}`);
        expect(res.status, query).toBe(400);
        const body = (await res.json()) as ErrorBody;
        expect(body.context.code, query).toBeUndefined();
      }
    });

    it("answers 404 for another account's endpoint or an unknown one", async () => {
      const me = await t.account();
      const theirs = await made(await t.account());
      for (const path of [
        `/v1/webhooks/${theirs.id}`,
        `/v1/webhooks/${randomUUID()}`,
        `/v1/webhooks/${theirs.id}/deliveries`,
      ]) {
        await expectError(await me.call('GET', path), 404, { code: 'not_found' });
      }
      await expectError(await me.call('PATCH', `/v1/webhooks/${theirs.id}`, { body: { description: 'x' } }), 404, {
        code: 'not_found',
      });
      await expectError(await me.call('DELETE', `/v1/webhooks/${theirs.id}`), 404, { code: 'not_found' });
      await expectError(await me.call('POST', `/v1/webhooks/${theirs.id}/rotate-secret`), 404, { code: 'not_found' });
      await expectError(await me.call('POST', `/v1/webhooks/${theirs.id}/test`), 404, { code: 'not_found' });
    });
  });

  describe('PATCH /v1/webhooks/{id}', () => {
    it('changes url, description (null or blank removes it) and the whole event_types list', async () => {
      const me = await t.account();
      const hook = await made(me, { description: 'first', event_types: ['contact.created', 'message.sent'] });
      const path = `/v1/webhooks/${hook.id}`;
      const changed = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', path, {
          body: {
            url: 'https://hooks.example.com/v2',
            event_types: ['message.updated', 'contact.tagged', 'message.updated'],
          },
        }),
        200,
      );
      expect(changed).toMatchObject({
        url: 'https://hooks.example.com/v2',
        description: 'first',
        event_types: ['contact.tagged', 'message.updated'],
        updated_at: ts(t.clock.now()),
      });
      expect(changed).not.toHaveProperty('secret');
      expect(
        (await json<SchemaWebhookEndpoint>(await me.call('PATCH', path, { body: { description: 'x' } }), 200))
          .description,
      ).toBe('x');
      expect(
        (await json<SchemaWebhookEndpoint>(await me.call('PATCH', path, { body: { description: null } }), 200))
          .description,
      ).toBeNull();
      await json(await me.call('PATCH', path, { body: { description: 'y' } }), 200);
      expect(
        (await json<SchemaWebhookEndpoint>(await me.call('PATCH', path, { body: { description: ' ' } }), 200))
          .description,
      ).toBeNull();
      // At least one field; nothing unknown.
      expect((await me.call('PATCH', path, { body: {} })).status).toBe(400);
      expect((await me.call('PATCH', path, { body: { secret: 'whsec_x' } })).status).toBe(400);
      expect((await me.call('PATCH', path, { body: { event_types: [] } })).status).toBe(400);
      expect((await me.call('PATCH', path, { body: { status: 'paused' } })).status).toBe(400);
    });

    it('sending what the endpoint already has changes nothing (same updated_at, no audit entry)', async () => {
      const me = await t.account();
      const hook = await made(me, { description: 'same', event_types: ['contact.tagged', 'contact.created'] });
      const entries = (await auditOf(me.accountId)).length;
      t.clock.advance(5000);
      const same = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, {
          body: {
            url: URL_OK,
            description: 'same',
            event_types: ['contact.created', 'contact.tagged'],
            status: 'enabled',
          },
        }),
        200,
      );
      expect(same.updated_at).toBe(hook.updated_at);
      expect(await auditOf(me.accountId)).toHaveLength(entries);
    });

    it('disabling fails the pending deliveries (endpoint_disabled); enabling clears reason, disabled_at, failing_since', async () => {
      const me = await t.account();
      const hook = await made(me);
      const other = await made(me);
      const pending = await delivery(me, hook.id);
      const succeeded = await delivery(me, hook.id, { status: 'succeeded' });
      const otherPending = await delivery(me, other.id);
      const disabledAt = ts(t.clock.now());
      const disabled = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }),
        200,
      );
      expect(disabled).toMatchObject({ status: 'disabled', disabled_reason: 'requested', disabled_at: disabledAt });
      expect(await deliveryRow(pending.id)).toMatchObject({
        status: 'failed',
        last_error: 'endpoint_disabled',
        next_attempt_at: null,
      });
      expect(await deliveryRow(succeeded.id)).toMatchObject({ status: 'succeeded', last_error: null });
      expect(await deliveryRow(otherPending.id)).toMatchObject({ status: 'pending' });

      // Disabling again changes nothing.
      t.clock.advance(1000);
      const again = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }),
        200,
      );
      expect(again).toEqual(disabled);

      await db()
        .updateTable('webhook_endpoints')
        .set({ failing_since: t.clock.now() })
        .where('id', '=', hook.id)
        .execute();
      const enabled = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'enabled' } }),
        200,
      );
      expect(enabled).toMatchObject({
        status: 'enabled',
        disabled_reason: null,
        disabled_at: null,
        failing_since: null,
      });
      // The failed delivery stays failed (it can be resent).
      expect(await deliveryRow(pending.id)).toMatchObject({ status: 'failed' });
    });

    it('disabling an endpoint the service disabled as failing keeps the reason failing', async () => {
      const me = await t.account();
      const hook = await made(me);
      const at = t.clock.now();
      await db()
        .updateTable('webhook_endpoints')
        .set({ status: 'disabled', disabled_reason: 'failing', disabled_at: at, failing_since: at })
        .where('id', '=', hook.id)
        .execute();
      t.clock.advance(1000);
      const res = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }),
        200,
      );
      expect(res).toMatchObject({ status: 'disabled', disabled_reason: 'failing', disabled_at: ts(at) });
      // Enabling re-enables it and clears the failing state.
      const enabled = await json<SchemaWebhookEndpoint>(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'enabled' } }),
        200,
      );
      expect(enabled).toMatchObject({ status: 'enabled', disabled_reason: null, failing_since: null });
    });

    it('needs the read scopes only when data would start flowing (url, event_types, enabling)', async () => {
      const owner = await t.account();
      const hook = await made(owner, { event_types: ['message.received', 'contact.created'] });
      const path = `/v1/webhooks/${hook.id}`;
      const narrow = await keyOf(owner, ['webhooks:write', 'webhooks:read', 'contacts:read']);
      const missing = { code: 'insufficient_scope', required_scope: 'conversations:read' };
      // Description only, or disabling: no read scope needed.
      await json(await narrow.call('PATCH', path, { body: { description: 'ops' } }), 200);
      await json(await narrow.call('PATCH', path, { body: { status: 'disabled' } }), 200);
      // Enabling, a new URL, or a list that keeps a type it cannot read: refused.
      await expectError(await narrow.call('PATCH', path, { body: { status: 'enabled' } }), 403, missing);
      await expectError(
        await narrow.call('PATCH', path, { body: { url: 'https://hooks.example.com/other' } }),
        403,
        missing,
      );
      await expectError(
        await narrow.call('PATCH', path, { body: { event_types: ['contact.created', 'message.sent'] } }),
        403,
        missing,
      );
      await expectError(await narrow.call('PATCH', path, { body: { event_types: ['link.clicked'] } }), 403, {
        code: 'insufficient_scope',
        required_scope: 'workflows:read',
      });
      // A list it can read entirely, with enabling: allowed.
      const ok = await json<SchemaWebhookEndpoint>(
        await narrow.call('PATCH', path, { body: { event_types: ['contact.created'], status: 'enabled' } }),
        200,
      );
      expect(ok).toMatchObject({ event_types: ['contact.created'], status: 'enabled' });
    });
  });

  describe('DELETE /v1/webhooks/{id}', () => {
    it('answers 200 {id, deleted: true}, deletes the deliveries, and 404 afterwards unless the same key repeats', async () => {
      const me = await t.account();
      const hook = await made(me);
      const d1 = await delivery(me, hook.id);
      const d2 = await delivery(me, hook.id, { status: 'failed' });
      const headers = { 'Idempotency-Key': `del-${randomUUID()}` };
      const res = await me.call('DELETE', `/v1/webhooks/${hook.id}`, { headers });
      expect(await json(res, 200)).toEqual({ id: hook.id, deleted: true });
      expect(await deliveryRow(d1.id)).toBeUndefined();
      expect(await deliveryRow(d2.id)).toBeUndefined();
      await expectError(await me.call('GET', `/v1/webhooks/${hook.id}`), 404, { code: 'not_found' });
      expect(await json(await me.call('DELETE', `/v1/webhooks/${hook.id}`, { headers }), 200)).toEqual({
        id: hook.id,
        deleted: true,
      });
      await expectError(await me.call('DELETE', `/v1/webhooks/${hook.id}`), 404, { code: 'not_found' });
    });
  });

  describe('audit log', () => {
    it('records register, change, delete and rotate with the key as actor, never the secret', async () => {
      const me = await t.account();
      const hook = await made(me, { description: 'audited' });
      await json(
        await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { url: 'https://hooks.example.com/b' } }),
        200,
      );
      const rotated = await json<SchemaWebhookEndpointWithSecret>(
        await me.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`),
        200,
      );
      await json(await me.call('DELETE', `/v1/webhooks/${hook.id}`), 200);
      const entries = (await auditOf(me.accountId)).filter((e) => e.target_type === 'webhook_endpoint');
      expect(entries.map((e) => e.action)).toEqual([
        'webhook.created',
        'webhook.updated',
        'webhook.secret_rotated',
        'webhook.deleted',
      ]);
      for (const e of entries) {
        expect(e).toMatchObject({ actor_type: 'api_key', actor_id: me.keyId, target_id: hook.id });
        const details = JSON.stringify(e.details);
        expect(details).not.toContain('whsec_');
        expect(details).not.toContain(hook.secret);
        expect(details).not.toContain(rotated.secret);
      }
      expect(entries[0]!.details).toMatchObject({ url: URL_OK, description: 'audited' });
      expect(entries[1]!.details).toMatchObject({ url: 'https://hooks.example.com/b', previous_url: URL_OK });
    });
  });

  describe('POST /v1/webhooks/{id}/rotate-secret', () => {
    it('gives a new secret; the previous one signs 24 h; rotating again drops the older at once', async () => {
      const me = await t.account();
      const hook = await made(me);
      const path = `/v1/webhooks/${hook.id}/rotate-secret`;
      const first = await json<SchemaWebhookEndpointWithSecret>(await me.call('POST', path), 200);
      expect(first.secret).toMatch(/^whsec_/);
      expect(first.secret).not.toBe(hook.secret);
      expect(first.previous_secret_expires_at).toBe(ts(new Date(t.clock.now().getTime() + 86_400_000)));
      expect((await endpointRow(hook.id)).previous_secret).toBe(hook.secret);
      expect(
        (await json<SchemaWebhookEndpoint>(await me.call('GET', `/v1/webhooks/${hook.id}`), 200))
          .previous_secret_expires_at,
      ).toBe(first.previous_secret_expires_at);

      // 2 hours later, again: the first secret stops signing, the one replaced now signs 24 h from now.
      t.clock.advance(2 * 3_600_000);
      const second = await json<SchemaWebhookEndpointWithSecret>(await me.call('POST', path), 200);
      expect(second.previous_secret_expires_at).toBe(ts(new Date(t.clock.now().getTime() + 86_400_000)));
      const row = await endpointRow(hook.id);
      expect(row.secret).toBe(second.secret);
      expect(row.previous_secret).toBe(first.secret);

      // After 24 hours only the current secret signs.
      t.clock.advance(86_400_000);
      expect(
        (await json<SchemaWebhookEndpoint>(await me.call('GET', `/v1/webhooks/${hook.id}`), 200))
          .previous_secret_expires_at,
      ).toBeNull();
    });

    it('repeated with the same Idempotency-Key: the first answer, nothing rotated again', async () => {
      const me = await t.account();
      const hook = await made(me);
      const headers = { 'Idempotency-Key': `rot-${randomUUID()}` };
      const path = `/v1/webhooks/${hook.id}/rotate-secret`;
      const first = await json<SchemaWebhookEndpointWithSecret>(await me.call('POST', path, { headers }), 200);
      const again = await json<SchemaWebhookEndpointWithSecret>(await me.call('POST', path, { headers }), 200);
      expect(again).toEqual(first);
      expect((await endpointRow(hook.id)).secret).toBe(first.secret);
      expect((await endpointRow(hook.id)).previous_secret).toBe(hook.secret);
    });
  });

  describe('GET /v1/webhooks/{id}/deliveries', () => {
    it('lists the last 7 days newest first (created_at, id), paged by limit and cursor', async () => {
      const me = await t.account();
      const hook = await made(me);
      const other = await made(me);
      const old = await delivery(me, hook.id, { createdAt: new Date(t.clock.now().getTime() - 7 * 86_400_000 - 1000) });
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) {
        ids.push((await delivery(me, hook.id)).id);
        t.clock.advance(1000);
      }
      // Three sharing one moment: ordered by id.
      const at = t.clock.now();
      const same = [
        (await delivery(me, hook.id, { createdAt: at })).id,
        (await delivery(me, hook.id, { createdAt: at })).id,
        (await delivery(me, hook.id, { createdAt: at })).id,
      ];
      await delivery(me, other.id);
      const expected = [...same.sort().reverse(), ...ids.reverse()];

      const seen: string[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const res = await me.call(
          'GET',
          `/v1/webhooks/${hook.id}/deliveries?limit=3${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
        );
        const page = await json<SchemaWebhookDeliveryList>(res, 200);
        seen.push(...page.data.map((d) => d.id));
        cursor = page.next_cursor;
        pages++;
      } while (cursor);
      expect(seen).toEqual(expected);
      expect(pages).toBe(3);
      expect(seen).not.toContain(old.id);

      const one = await json<SchemaWebhookDeliveryList>(
        await me.call('GET', `/v1/webhooks/${hook.id}/deliveries?limit=1`),
        200,
      );
      expect(one.data[0]).toEqual({
        id: same[0],
        webhook_id: hook.id,
        event: { id: expect.any(String), type: 'contact.created', created_at: ts(at) },
        status: 'pending',
        attempts: 0,
        next_attempt_at: ts(at),
        last_attempt_at: null,
        last_response_status: null,
        last_error: null,
        delivered_at: null,
        created_at: ts(at),
      });

      // 7 days later they are gone from the list.
      t.clock.advance(7 * 86_400_000);
      expect(
        (await json<SchemaWebhookDeliveryList>(await me.call('GET', `/v1/webhooks/${hook.id}/deliveries`), 200)).data,
      ).toEqual([]);
    });

    it('filters by status, event_type and event_id; a cursor is bound to the endpoint and the filters', async () => {
      const me = await t.account();
      const hook = await made(me, { event_types: ['contact.created', 'message.received'] });
      const other = await made(me);
      const failed = [
        await delivery(me, hook.id, { status: 'failed' }),
        await delivery(me, hook.id, { status: 'failed', type: 'message.received' }),
        await delivery(me, hook.id, { status: 'failed' }),
      ];
      await delivery(me, hook.id, { status: 'succeeded' });
      await delivery(me, hook.id, { status: 'pending' });
      for (let i = 0; i < 2; i++) await delivery(me, other.id, { status: 'failed' });
      const base = `/v1/webhooks/${hook.id}/deliveries`;
      const ids = async (query: string) =>
        (await json<SchemaWebhookDeliveryList>(await me.call('GET', `${base}?${query}`), 200)).data
          .map((d) => d.id)
          .sort();

      expect(await ids('status=failed')).toEqual(failed.map((d) => d.id).sort());
      expect(await ids('status=failed&event_type=message.received')).toEqual([failed[1]!.id]);
      expect(await ids(`event_id=${failed[2]!.eventId}`)).toEqual([failed[2]!.id]);
      expect(await ids('event_type=contact.tagged')).toEqual([]);
      expect((await me.call('GET', `${base}?status=retrying`)).status).toBe(400);
      expect((await me.call('GET', `${base}?event_id=nope`)).status).toBe(400);
      expect((await me.call('GET', `${base}?limit=101`)).status).toBe(400);

      const page = await json<SchemaWebhookDeliveryList>(await me.call('GET', `${base}?status=failed&limit=1`), 200);
      expect(page.next_cursor).not.toBeNull();
      const cursor = encodeURIComponent(page.next_cursor!);
      expect((await me.call('GET', `${base}?status=failed&limit=1&cursor=${cursor}`)).status).toBe(200);
      const invalid = { code: 'invalid_cursor' };
      await expectError(await me.call('GET', `${base}?status=pending&limit=1&cursor=${cursor}`), 400, invalid);
      await expectError(await me.call('GET', `${base}?limit=1&cursor=${cursor}`), 400, invalid);
      await expectError(
        await me.call('GET', `/v1/webhooks/${other.id}/deliveries?status=failed&limit=1&cursor=${cursor}`),
        400,
        invalid,
      );
      // Another list's cursor.
      const tagged = await me.call('GET', `${base}?status=failed&limit=1&cursor=AAAA`);
      await expectError(tagged, 400, invalid);
    });
  });

  describe('POST /v1/webhooks/{id}/deliveries/{deliveryId}/retry', () => {
    it('puts a failed or succeeded delivery back to pending with its attempts, and enqueues webhook.deliver', async () => {
      const me = await t.account();
      const hook = await made(me);
      for (const status of ['failed', 'succeeded'] as const) {
        const d = await delivery(me, hook.id, { status, attempts: 10 });
        t.clock.advance(60_000);
        const res = await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${d.id}/retry`);
        const body = await json<SchemaWebhookDelivery>(res, 202);
        expect(body).toMatchObject({
          id: d.id,
          event: { id: d.eventId },
          status: 'pending',
          attempts: 10,
          next_attempt_at: ts(t.clock.now()),
          last_error: status === 'failed' ? 'http_status' : null,
        });
        if (status === 'succeeded') expect(body.delivered_at).not.toBeNull();
        const jobs = await jobsFor(d.id);
        expect(jobs).toHaveLength(1);
        expect(jobs[0]).toMatchObject({
          kind: 'webhook.deliver',
          account_id: me.accountId,
          payload: { delivery_id: d.id },
        });
        // Pending now: answered as it is, no second job.
        const again = await json<SchemaWebhookDelivery>(
          await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${d.id}/retry`),
          202,
        );
        expect(again).toEqual(body);
        expect(await jobsFor(d.id)).toHaveLength(1);
      }
    });

    it('409 webhook_disabled on a disabled endpoint; 404 for a delivery older than 7 days or of another endpoint', async () => {
      const me = await t.account();
      const hook = await made(me);
      const other = await made(me);
      const failed = await delivery(me, hook.id, { status: 'failed' });
      const old = await delivery(me, hook.id, {
        status: 'failed',
        createdAt: new Date(t.clock.now().getTime() - 7 * 86_400_000 - 1),
      });
      await expectError(await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${old.id}/retry`), 404, {
        code: 'not_found',
      });
      await expectError(await me.call('POST', `/v1/webhooks/${other.id}/deliveries/${failed.id}/retry`), 404, {
        code: 'not_found',
      });
      await expectError(await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${randomUUID()}/retry`), 404, {
        code: 'not_found',
      });
      const stranger = await t.account();
      await expectError(await stranger.call('POST', `/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`), 404, {
        code: 'not_found',
      });
      await json(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }), 200);
      await expectError(await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`), 409, {
        code: 'webhook_disabled',
      });
      expect(await deliveryRow(failed.id)).toMatchObject({ status: 'failed' });
      expect(await jobsFor(failed.id)).toHaveLength(0);
    });

    it("needs the read scope of the delivery's event type", async () => {
      const owner = await t.account();
      const hook = await made(owner, { event_types: ['message.received', 'contact.created'] });
      const message = await delivery(owner, hook.id, { status: 'failed', type: 'message.received' });
      const contact = await delivery(owner, hook.id, { status: 'failed', type: 'contact.created' });
      const narrow = await keyOf(owner, ['webhooks:write', 'contacts:read']);
      await expectError(await narrow.call('POST', `/v1/webhooks/${hook.id}/deliveries/${message.id}/retry`), 403, {
        code: 'insufficient_scope',
        required_scope: 'conversations:read',
      });
      await json(await narrow.call('POST', `/v1/webhooks/${hook.id}/deliveries/${contact.id}/retry`), 202);
    });
  });

  describe('POST /v1/webhooks/{id}/test', () => {
    it('sends a signed webhook.test event at once to a real receiver and answers the outcome', async () => {
      policy = undefined; // the configuration's rules: WEBHOOK_DEV_TARGETS=true allows the loopback receiver
      const me = await t.account();
      const hook = await made(me, { url: receiver.url, event_types: ['message.sent'] });
      const result = await json<Record<string, unknown>>(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(result).toEqual({ delivered: true, response_status: 200, error: null, duration_ms: expect.any(Number) });
      expect(receiver.received).toHaveLength(1);
      const { headers, body } = receiver.received[0]!;
      const event = JSON.parse(body) as Record<string, unknown>;
      expect(event).toEqual({
        id: expect.stringMatching(/^[0-9a-f-]{36}$/),
        type: 'webhook.test',
        api_version: 'v1',
        created_at: ts(t.clock.now()),
        data: { webhook_id: hook.id },
      });
      expect(headers['content-type']).toBe('application/json');
      expect(headers['user-agent']).toBe('Service-Webhooks/1.0');
      expect(headers['service-event-id']).toBe(event.id);
      expect(headers['service-event-type']).toBe('webhook.test');
      expect(headers['service-delivery-attempt']).toBe('1');
      const unix = String(Math.floor(t.clock.now().getTime() / 1000));
      expect(headers['service-signature']).toBe(`t=${unix},v1=${hmac(hook.secret, unix, body)}`);
      // Not in the delivery log.
      expect(
        (await json<SchemaWebhookDeliveryList>(await me.call('GET', `/v1/webhooks/${hook.id}/deliveries`), 200)).data,
      ).toEqual([]);
      // Each call is a new event.
      await json(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(JSON.parse(receiver.received[1]!.body).id).not.toBe(event.id);
    });

    it('reports a failure as 200 delivered false, reaches a disabled endpoint, leaves failing_since alone', async () => {
      policy = undefined;
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      const since = new Date(t.clock.now().getTime() - 3_600_000);
      await db().updateTable('webhook_endpoints').set({ failing_since: since }).where('id', '=', hook.id).execute();
      await json(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }), 200);
      const before = await endpointRow(hook.id);
      receiver.status.code = 503;
      const failed = await json<Record<string, unknown>>(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(failed).toMatchObject({ delivered: false, response_status: 503, error: 'http_status' });
      expect(receiver.received).toHaveLength(1);
      expect(await endpointRow(hook.id)).toEqual(before);
      const { n } = await db()
        .selectFrom('webhook_deliveries')
        .select((eb) => eb.fn.countAll<string>().as('n'))
        .where('webhook_id', '=', hook.id)
        .executeTakeFirstOrThrow();
      expect(Number(n)).toBe(0);
      // A closed port: no answer at all.
      const closed = await startReceiver();
      await closed.close();
      await json(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { url: closed.url } }), 200);
      const refused = await json<Record<string, unknown>>(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(refused).toMatchObject({ delivered: false, response_status: null, error: 'connection_failed' });
    });

    it('an answer with a status outside 100-599 is 200 delivered false without a response_status, never a 500', async () => {
      policy = undefined;
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      receiver.status.code = 999;
      const odd = await json<Record<string, unknown>>(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(odd).toEqual({
        delivered: false,
        response_status: null,
        error: 'http_status',
        duration_ms: expect.any(Number),
      });
      expect(receiver.received).toHaveLength(1);
    });

    it('signs with both secrets for 24 hours after a rotation, and with the two newest after a second', async () => {
      policy = undefined;
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      const r1 = await json<SchemaWebhookEndpointWithSecret>(
        await me.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`),
        200,
      );
      /** Which secrets (by index in `secrets`) made the v1 values of the last request, in their order. */
      const v1s = (secrets: readonly (string | undefined)[]) => {
        const last = receiver.received[receiver.received.length - 1]!;
        const sig = String(last.headers['service-signature']);
        const t0 = /^t=(\d+),/.exec(sig)![1]!;
        return sig
          .split(',')
          .slice(1)
          .map((p) => secrets.findIndex((s) => s !== undefined && `v1=${hmac(s, t0, last.body)}` === p));
      };
      await json(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(v1s([hook.secret, r1.secret])).toEqual([1, 0]); // current first, then the previous
      t.clock.advance(3_600_000);
      const r2 = await json<SchemaWebhookEndpointWithSecret>(
        await me.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`),
        200,
      );
      const all = [hook.secret, r1.secret, r2.secret];
      await json(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(v1s(all)).toEqual([2, 1]); // the first secret no longer signs
      t.clock.advance(86_400_000);
      await json(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(v1s(all)).toEqual([2]);
    });

    it('checks the URL rules at the send (unsafe_target) with the configured policy', async () => {
      const me = await t.account();
      const hook = await made(me, { url: 'https://loopback.example.com/hook' });
      policy = STRICT_POLICY;
      const res = await json<Record<string, unknown>>(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 200);
      expect(res).toMatchObject({ delivered: false, response_status: null, error: 'unsafe_target' });
    });
  });

  describe('account with the API switched off (within the gateway cache minute)', () => {
    it('refuses register, changes that start data flowing, test and retry with 403 api_disabled', async () => {
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      const failed = await delivery(me, hook.id, { status: 'failed' });
      await json(await me.call('GET', '/v1/webhooks'), 200); // the key is now in the gateway's cache
      await db().updateTable('accounts').set({ api_enabled: false }).where('id', '=', me.accountId).execute();
      const off = { code: 'api_disabled' };
      await expectError(await create(me, {}), 403, off);
      await expectError(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { url: URL_OK } }), 403, off);
      await expectError(await me.call('POST', `/v1/webhooks/${hook.id}/test`), 403, off);
      await expectError(await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${failed.id}/retry`), 403, off);
      expect(receiver.received).toHaveLength(0);
      // Harmless ones go through: reads, description, disabling, rotate, delete.
      await json(await me.call('GET', `/v1/webhooks/${hook.id}`), 200);
      await json(await me.call('GET', `/v1/webhooks/${hook.id}/deliveries`), 200);
      await json(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { description: 'off' } }), 200);
      await json(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'disabled' } }), 200);
      await expectError(await me.call('PATCH', `/v1/webhooks/${hook.id}`, { body: { status: 'enabled' } }), 403, off);
      await json(await me.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`), 200);
      await json(await me.call('DELETE', `/v1/webhooks/${hook.id}`), 200);
    });

    it('refuses a suspended account where sending would start with the gateway answer: 403, only message', async () => {
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      await json(await me.call('GET', '/v1/webhooks'), 200); // the key is now in the gateway's cache
      await db().updateTable('accounts').set({ suspended: true }).where('id', '=', me.accountId).execute();
      for (const res of [await create(me, {}), await me.call('POST', `/v1/webhooks/${hook.id}/test`)]) {
        expect(res.status).toBe(403);
        expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
        expect(await res.text()).toBe('{"message":"This account has no access to the API."}');
      }
      expect(receiver.received).toHaveLength(0);
    });
  });

  describe('rate kinds', () => {
    it('test and retry count as sends (20 a minute, one bucket); the others as writes and reads', async () => {
      policy = undefined;
      const me = await t.account();
      const hook = await made(me, { url: receiver.url });
      const pending = await delivery(me, hook.id);
      // A fresh minute for the account's counters.
      t.clock.advance(60_000);
      const test = await me.call('POST', `/v1/webhooks/${hook.id}/test`);
      expect(test.status).toBe(200);
      expect(test.headers.get('ratelimit-limit')).toBe('20');
      expect(test.headers.get('ratelimit-remaining')).toBe('19');
      const retry = await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${pending.id}/retry`);
      expect(retry.status).toBe(202);
      expect(retry.headers.get('ratelimit-limit')).toBe('20');
      expect(retry.headers.get('ratelimit-remaining')).toBe('18');
      for (let i = 0; i < 18; i++)
        expect((await me.call('POST', `/v1/webhooks/${hook.id}/deliveries/${pending.id}/retry`)).status).toBe(202);
      const limited = await me.call('POST', `/v1/webhooks/${hook.id}/test`);
      await expectError(limited, 429, {
        code: 'rate_limited',
        kind: 'send',
        limit: 20,
        retry_after: expect.any(Number),
      });
      // Writes and reads have their own buckets.
      const rotate = await me.call('POST', `/v1/webhooks/${hook.id}/rotate-secret`);
      expect(rotate.status).toBe(200);
      expect(rotate.headers.get('ratelimit-limit')).toBe('60');
      const get = await me.call('GET', `/v1/webhooks/${hook.id}`);
      expect(get.headers.get('ratelimit-limit')).toBe('120');
    });
  });
});
