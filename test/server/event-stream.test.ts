// GET /admin/v1/accounts/{accountId}/event-stream (server-sent events of an account's events) and the console
// page's gate, on every engine of the run: the stream carries the account's events as webhook envelopes, pushed
// at the commit (no other account's), resumes after `after` or Last-Event-ID, outlives the request deadline, and
// refuses what the admin API refuses. /console is served while the sandbox is on, 404 when it is off.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { feedAfter } from '../../server/domain/events/feed.js';
import { DELIVERY_UPDATED, endEventStreams, MAX_STREAMS_PER_ACCOUNT } from '../../server/http/event-stream.js';
import { updateDelivery } from '../../server/store/webhook-deliveries.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';

const TOKEN = 'event-stream-admin-token-0123456789abcdef';
/** Short, so a test can outlive it: the stream must not end (or fail its reads) at the request's deadline. */
const DEADLINE_MS = 1000;

interface StreamEvent {
  id: string;
  event: string;
  data: { id: string; type: string; api_version: string; created_at: string; data: Record<string, unknown> };
}

/** An open stream: the events parsed so far, a wait for the next ones, and its end. */
async function openStream(baseUrl: string, path: string, headers: Record<string, string> = {}) {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}${path}`, {
    headers: { Authorization: `Bearer ${TOKEN}`, ...headers },
    signal: abort.signal,
  });
  const events: StreamEvent[] = [];
  let raw = '';
  const reading = (async () => {
    if (!response.body) return;
    const decoder = new TextDecoder();
    try {
      for await (const chunk of response.body) {
        raw += decoder.decode(chunk, { stream: true });
        let end: number;
        while ((end = raw.indexOf('\n\n')) >= 0) {
          const block = raw.slice(0, end);
          raw = raw.slice(end + 2);
          const field = (name: string) =>
            block
              .split('\n')
              .find((l) => l.startsWith(`${name}: `))
              ?.slice(name.length + 2);
          const data = field('data');
          if (data) events.push({ id: field('id') ?? '', event: field('event') ?? '', data: JSON.parse(data) });
        }
      }
    } catch {
      // aborted
    }
  })();
  return {
    response,
    events,
    async waitFor(count: number, timeoutMs = 10_000) {
      const until = Date.now() + timeoutMs;
      while (events.length < count && Date.now() < until) await new Promise((ok) => setTimeout(ok, 10));
      return events;
    },
    async close() {
      abort.abort();
      await reading;
    },
  };
}

describe.each(engines)('the admin event stream and the console page on %s', (engine) => {
  let t: TestApp;
  /** The same database with a short request deadline, which streams must outlive. */
  let short: TestApp;
  let off: TestApp;
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `/admin/v1${path}`, { body });

  beforeAll(async () => {
    // Local webhook targets: the deliveries test registers endpoints on 127.0.0.1 (no worker sends to them).
    t = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true', WEBHOOK_DEV_TARGETS: 'true' },
    });
    short = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true', REQUEST_DEADLINE_MS: String(DEADLINE_MS) },
      sameDatabaseAs: t,
    });
    off = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'false' }, sameDatabaseAs: t });
  });
  afterAll(async () => {
    endEventStreams();
    await off?.close();
    await short?.close();
    await t?.close();
  });

  /** An account with a connected whatsapp number; `write` sends a contact's message to it (sandbox). */
  async function accountWithNumber() {
    const caller = await t.account();
    const created = await admin('POST', `/accounts/${caller.accountId}/connections`, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`,
    });
    expect(created.status).toBe(201);
    const connection = (await created.json()) as { id: string };
    const write = async (phone: string, text: string) => {
      const res = await admin('POST', `/sandbox/connections/${connection.id}/inbound`, {
        from: { phone, name: 'Ana Souza' },
        text,
      });
      expect(res.status).toBe(201);
      return (await res.json()) as { message: { id: string }; contact: { id: string } };
    };
    return { accountId: caller.accountId, write };
  }

  it('pushes the account’s events as webhook envelopes, from now on, and none of another account', async () => {
    const a = await accountWithNumber();
    const b = await accountWithNumber();
    await a.write('+5511987650001', 'before the stream'); // recorded before: not sent
    const stream = await openStream(short.baseUrl, `/admin/v1/accounts/${a.accountId}/event-stream`);
    expect(stream.response.status).toBe(200);
    expect(stream.response.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(stream.response.headers.get('cache-control')).toBe('no-store');

    // Past the request deadline: the stream is still open and its reads still run.
    await new Promise((ok) => setTimeout(ok, DEADLINE_MS * 2));
    await b.write('+5511987650002', 'another account');
    const sentAt = Date.now();
    const written = await a.write('+5511987650003', 'oi');
    const events = await stream.waitFor(2);
    const arrivedMs = Date.now() - sentAt;
    await stream.close();

    expect(events.map((e) => e.event)).toEqual(['contact.created', 'message.received']);
    const received = events[1];
    expect(received?.data).toMatchObject({ type: 'message.received', api_version: 'v1' });
    expect(received?.data.data).toMatchObject({ id: written.message.id, text: 'oi', direction: 'inbound' });
    expect(events[0]?.data.data).toMatchObject({ id: written.contact.id });
    expect(Number(received?.id)).toBeGreaterThan(Number(events[0]?.id));
    expect(arrivedMs).toBeLessThan(2000);
  });

  it('resumes after the event `after` names (or Last-Event-ID)', async () => {
    const a = await accountWithNumber();
    const live = await openStream(t.baseUrl, `/admin/v1/accounts/${a.accountId}/event-stream`);
    await a.write('+5511987650004', 'um');
    await a.write('+5511987650004', 'dois');
    const all = await live.waitFor(3);
    await live.close();
    expect(all.map((e) => e.event)).toEqual(['contact.created', 'message.received', 'message.received']);

    const first = all[0]?.id ?? '';
    const byQuery = await openStream(t.baseUrl, `/admin/v1/accounts/${a.accountId}/event-stream?after=${first}`);
    const byHeader = await openStream(t.baseUrl, `/admin/v1/accounts/${a.accountId}/event-stream`, {
      'Last-Event-ID': first,
    });
    const [q, h] = [await byQuery.waitFor(2), await byHeader.waitFor(2)];
    await byQuery.close();
    await byHeader.close();
    expect(q.map((e) => e.data.id)).toEqual(all.slice(1).map((e) => e.data.id));
    expect(h.map((e) => e.data.id)).toEqual(all.slice(1).map((e) => e.data.id));
  });

  it("reads the messages of a page's message events in one statement, each as the API reads it now", async () => {
    const a = await accountWithNumber();
    const texts = ['um', 'dois', 'três', 'quatro', 'cinco'];
    const written = [];
    for (const text of texts) written.push(await a.write('+5511987650005', text));
    let statements = 0;
    const counted = t.database.db.withPlugin({
      transformQuery: ({ node }) => {
        statements++;
        return node;
      },
      transformResult: async ({ result }) => result,
    });
    const page = { after: 0n, limit: 100, known: () => false };
    const { read, events } = await feedAfter(counted, a.accountId, page, t.baseUrl);
    // The page's events, then the messages of its five message events: two statements, not one per event.
    expect(statements).toBe(2);
    expect(read).toBe(6);
    const bodies = events.map((e) => JSON.parse(e.body) as StreamEvent['data']);
    expect(bodies.map((b) => b.type)).toEqual(['contact.created', ...texts.map(() => 'message.received')]);
    expect(bodies.slice(1).map((b) => [b.data.id, b.data.text])).toEqual(
      written.map((w, i) => [w.message.id, texts[i]]),
    );

    // Events a stream has sent already are left out before any message is read for them.
    statements = 0;
    const sent = new Set(events.slice(0, 3).map((e) => e.sequence));
    const rest = await feedAfter(counted, a.accountId, { ...page, known: (n) => sent.has(n) }, t.baseUrl);
    expect(rest.events.map((e) => e.body)).toEqual(events.slice(3).map((e) => e.body));
    expect(statements).toBe(2);
  });

  it('holds at most MAX_STREAMS_PER_ACCOUNT streams of an account open at once (429 too_many_streams), others apart', async () => {
    const a = await accountWithNumber();
    const b = await accountWithNumber();
    const path = (accountId: string) => `/admin/v1/accounts/${accountId}/event-stream`;
    const streams = [];
    for (let i = 0; i < MAX_STREAMS_PER_ACCOUNT; i++) streams.push(await openStream(t.baseUrl, path(a.accountId)));
    expect(streams.map((s) => s.response.status)).toEqual(streams.map(() => 200));
    const refused = await call(t.baseUrl, TOKEN, 'GET', path(a.accountId));
    expect(refused.status).toBe(429);
    expect(await refused.json()).toMatchObject({
      type: 'error',
      context: { code: 'too_many_streams', limit: MAX_STREAMS_PER_ACCOUNT },
    });
    // Another account is not held back by this one's streams.
    const other = await openStream(t.baseUrl, path(b.accountId));
    expect(other.response.status).toBe(200);
    await other.close();
    // One ended, one more opens.
    await streams.pop()?.close();
    let again = await openStream(t.baseUrl, path(a.accountId));
    for (let i = 0; again.response.status === 429 && i < 50; i++) {
      await new Promise((ok) => setTimeout(ok, 20)); // the server sees the close a moment later
      again = await openStream(t.baseUrl, path(a.accountId));
    }
    expect(again.response.status).toBe(200);
    for (const stream of [...streams, again]) await stream.close();
  });

  it('refuses as the admin API does (no token 401, an unknown account 404, a bad `after` 400); HEAD ends', async () => {
    const a = await accountWithNumber();
    const path = `/admin/v1/accounts/${a.accountId}/event-stream`;
    const noToken = await call(t.baseUrl, undefined, 'GET', path);
    expect(noToken.status).toBe(401);
    expect(await noToken.json()).toEqual({ message: expect.any(String) });
    const unknown = await call(
      t.baseUrl,
      TOKEN,
      'GET',
      '/admin/v1/accounts/00000000-0000-4000-8000-000000000000/event-stream',
    );
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toMatchObject({ context: { code: 'not_found' } });
    const bad = await call(t.baseUrl, TOKEN, 'GET', `${path}?after=abc`);
    expect(bad.status).toBe(400);
    // HEAD answers the stream's headers and ends (a stream that never ended would hang the client).
    const head = await call(t.baseUrl, TOKEN, 'HEAD', path);
    expect(head.status).toBe(200);
    expect(head.headers.get('content-type')).toMatch(/^text\/event-stream/);
    expect(await head.text()).toBe('');
  });

  it('serves /console (with its script and style, this server only) while the sandbox is on, 404 when off', async () => {
    const page = await fetch(`${t.baseUrl}/console`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'");
    const html = await page.text();
    expect(html).toContain('<script type="module" src="/console/app.js">');
    const script = await fetch(`${t.baseUrl}/console/app.js`);
    expect(script.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect((await script.text()).length).toBeGreaterThan(10_000);
    const style = await fetch(`${t.baseUrl}/console/app.css`);
    expect(style.headers.get('content-type')).toMatch(/^text\/css/);

    for (const path of ['/console', '/console/app.js']) {
      const closed = await fetch(`${off.baseUrl}${path}`);
      expect(closed.status).toBe(404);
      expect(await closed.json()).toMatchObject({ context: { code: 'not_found' } });
    }
  });

  it('pushes the account’s webhook deliveries as they change (webhook_delivery.updated, no id), none of another', async () => {
    const a = await accountWithNumber();
    const b = await accountWithNumber();
    const hook = async (accountId: string) => {
      const caller = { accountId };
      const key = await admin('POST', `/accounts/${caller.accountId}/keys`, {
        name: 'hooks',
        scopes: ['webhooks:read', 'webhooks:write', 'conversations:read', 'contacts:read'],
        validity_days: 30,
      });
      const { secret } = (await key.json()) as { secret: string };
      const created = await call(t.baseUrl, secret, 'POST', '/v1/webhooks', {
        body: { url: 'http://127.0.0.1:9/hook', event_types: ['message.received'] },
        headers: { 'Idempotency-Key': crypto.randomUUID() },
      });
      expect(created.status).toBe(201);
      return { id: ((await created.json()) as { id: string }).id, secret };
    };
    const endpointA = await hook(a.accountId);
    await hook(b.accountId);
    const stream = await openStream(t.baseUrl, `/admin/v1/accounts/${a.accountId}/event-stream`);
    const deliveries = () =>
      stream.events
        .filter((e) => e.event === DELIVERY_UPDATED)
        .map((e) => ({ id: e.id, delivery: JSON.parse(JSON.stringify(e.data)) as Record<string, unknown> }));
    const until = async (count: number) => {
      const end = Date.now() + 10_000;
      while (deliveries().length < count && Date.now() < end) await new Promise((ok) => setTimeout(ok, 10));
      return deliveries();
    };

    // A message: its event and a pending delivery to a's endpoint (b's message makes b's delivery: not here).
    await b.write('+5511987650003', 'b writes');
    await a.write('+5511987650002', 'a writes');
    const [pending] = await until(1);
    expect(pending).toMatchObject({
      id: '',
      delivery: { webhook_id: endpointA.id, status: 'pending', attempts: 0, event: { type: 'message.received' } },
    });
    const deliveryId = String(pending?.delivery.id);

    // An attempt's outcome (what the worker records), then the resend through the API: each change is pushed.
    await updateDelivery(t.database.db, deliveryId, {
      status: 'failed',
      attempts: 1,
      last_error: 'connection_failed',
      next_attempt_at: null,
    });
    expect((await until(2))[1]?.delivery).toMatchObject({ id: deliveryId, status: 'failed', attempts: 1 });
    const retried = await call(
      t.baseUrl,
      endpointA.secret,
      'POST',
      `/v1/webhooks/${endpointA.id}/deliveries/${deliveryId}/retry`,
    );
    expect(retried.status).toBe(202);
    expect((await until(3))[2]?.delivery).toMatchObject({ id: deliveryId, status: 'pending', attempts: 1 });
    // Only a's: b's delivery was never pushed, and the events kept their ids.
    expect(deliveries().every((d) => d.delivery.webhook_id === endpointA.id)).toBe(true);
    expect(stream.events.filter((e) => e.event === 'message.received').map((e) => e.id)).not.toContain('');
    await stream.close();
  });
});
