// The console's built-in webhook receiver (server/http/console-receiver.ts), on every engine of the run: an endpoint
// registered on `POST /console/receiver/{accountId}/{id}` of the server itself gets the test event and real
// deliveries, verified with its secret; a receiver belongs to the account its path names, so another account's
// endpoint aimed at it is neither shown nor verified there (issue 33); whatever the receiver does not verify (a
// forged or missing signature, a body over the cap, an unknown id) is one answer, 404, and nothing is kept; the
// page's stream (admin token) gets the kept requests, at most MAX_REQUESTS, and never the secret; receivers are
// bounded; nothing is served while the sandbox is off.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookPayload } from '../../client/webhooks.js';
import { recordEvents } from '../../server/domain/events/outbox.js';
import {
  MAX_BODY_BYTES,
  MAX_RECEIVERS,
  MAX_REQUESTS,
  ReceiverLog,
  endReceiverStreams,
} from '../../server/http/console-receiver.js';
import type { ReceivedRequest } from '../../server/console/received.js';
import { createJobRegistry } from '../../server/jobs/handlers.js';
import { JobWorker } from '../../server/jobs/worker.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError } from './http-helpers.js';

const TOKEN = 'console-receiver-admin-token-0123456789abcdef';

/** The receiver's stream (`{accountId}/{id}`) until `count` requests came (or `ms`): the requests and the raw text. */
async function readStream(baseUrl: string, receiver: string, count: number, ms = 10_000) {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/console/receiver/${receiver}/stream`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const requests: ReceivedRequest[] = [];
  let raw = '';
  const timer = setTimeout(() => abort.abort(), ms);
  try {
    const decoder = new TextDecoder();
    for await (const chunk of response.body ?? []) {
      raw += decoder.decode(chunk, { stream: true });
      requests.length = 0;
      for (const block of raw.split('\n\n')) {
        const data = block.split('\n').find((l) => l.startsWith('data: '));
        if (data) requests.push(JSON.parse(data.slice(6)) as ReceivedRequest);
      }
      if (requests.length >= count) break;
    }
  } catch {
    // aborted at the time limit
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
  return { requests, raw };
}

describe.each(engines)('the console receiver on %s', (engine) => {
  let t: TestApp;
  let off: TestApp;
  let caller: TestCaller;
  beforeAll(async () => {
    t = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true', WEBHOOK_DEV_TARGETS: 'true' },
    });
    off = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'false', WEBHOOK_DEV_TARGETS: 'true' },
      sameDatabaseAs: t,
    });
    caller = await t.account();
  });
  afterAll(async () => {
    endReceiverStreams();
    await off?.close();
    await t?.close();
  });

  /**
   * An endpoint of `who` (default: the account of the suite) on a new receiver of that account, or on `receiver`
   * (`{accountId}/{id}`, another's): its id, secret, the receiver and its URL.
   */
  async function register(who: TestCaller = caller, receiver = `${who.accountId}/${randomUUID()}`) {
    const url = `${t.baseUrl}/console/receiver/${receiver}`;
    const res = await who.call('POST', '/v1/webhooks', {
      body: { url, event_types: ['contact.created'] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(res.status).toBe(201);
    const endpoint = (await res.json()) as { id: string; secret: string };
    return { receiver, url, ...endpoint };
  }
  const post = (url: string, body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });
  const signed = (body: string, secret: string) =>
    signWebhookPayload({ payload: body, secret, timestamp: t.clock.now() });
  /** The answer of a receiver that does not exist: every request the receiver does not keep gets exactly it. */
  async function unknownAnswer() {
    const res = await post(`${t.baseUrl}/console/receiver/${caller.accountId}/${randomUUID()}`, '{}', {});
    return { status: res.status, body: await res.json() };
  }
  const answerOf = async (res: Response) => ({ status: res.status, body: await res.json() });

  it('receives the test event from the server itself, verified with the endpoint’s secret', async () => {
    const hook = await register();
    const test = await caller.call('POST', `/v1/webhooks/${hook.id}/test`);
    expect(test.status).toBe(200);
    expect(await test.json()).toMatchObject({ delivered: true, response_status: 200 });

    const { requests, raw } = await readStream(t.baseUrl, hook.receiver, 1);
    expect(requests).toHaveLength(1);
    const [got] = requests;
    expect(got).toMatchObject({ seq: 1, verified: true, webhook_id: hook.id, failure: null, status: 200 });
    const header = (name: string) => got?.headers.find(([n]) => n === name)?.[1];
    expect(header('service-event-type')).toBe('webhook.test');
    expect(header('service-signature')).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
    expect(header('user-agent')).toBe('Service-Webhooks/1.0');
    expect(JSON.parse(got?.body ?? '{}')).toMatchObject({ type: 'webhook.test', data: { webhook_id: hook.id } });
    // The secret is in no answer of the receiver.
    expect(raw).not.toContain(hook.secret);
  });

  it('answers what it cannot verify as an unknown receiver (404) and keeps none of it', async () => {
    const hook = await register();
    const body = JSON.stringify({ id: randomUUID(), type: 'contact.created' });
    const unknown = await unknownAnswer();
    expect(unknown).toMatchObject({ status: 404, body: { type: 'error', context: { code: 'not_found' } } });
    // A forged signature, none, a body over the cap: the answer of a receiver that does not exist.
    expect(await answerOf(await post(hook.url, body, { 'Service-Signature': signed(body, 'whsec_not-it') }))).toEqual(
      unknown,
    );
    expect(await answerOf(await post(hook.url, body, {}))).toEqual(unknown);
    const big = 'x'.repeat(MAX_BODY_BYTES + 1);
    expect(await answerOf(await post(hook.url, big, { 'Service-Signature': signed(big, hook.secret) }))).toEqual(
      unknown,
    );
    const ok = await post(hook.url, body, { 'Service-Signature': signed(body, hook.secret) });
    expect(await answerOf(ok)).toEqual({ status: 200, body: { received: true, verified: true } });

    const { requests } = await readStream(t.baseUrl, hook.receiver, 2, 1_000);
    expect(requests.map((r) => [r.seq, r.verified, r.webhook_id, r.failure, r.status, r.body])).toEqual([
      [1, true, hook.id, null, 200, body],
    ]);

    await expectError(await post(`${t.baseUrl}/console/receiver/${caller.accountId}/short`, body, {}), 404, {
      code: 'not_found',
    });
    await expectError(await post(`${t.baseUrl}/console/receiver/not-an-account/${randomUUID()}`, body, {}), 404, {
      code: 'not_found',
    });
    // The path of before (no account) names no receiver.
    const [, id] = hook.receiver.split('/');
    await expectError(await post(`${t.baseUrl}/console/receiver/${id}`, body, {}), 404, { code: 'not_found' });
    const stream = (receiver: string, token?: string) =>
      call(t.baseUrl, token, 'GET', `/console/receiver/${receiver}/stream`);
    expect((await stream(hook.receiver)).status).toBe(401);
    await expectError(await stream(`${caller.accountId}/${randomUUID()}`, TOKEN), 404, { code: 'not_found' });
  });

  it('belongs to its account: another account’s endpoint aimed at it is neither shown nor verified there (issue 33)', async () => {
    const owner = await t.account();
    const intruder = await t.account();
    const ownHook = await register(owner);
    // The intruder's endpoint on the owner's receiver URL: registered (the URL rules allow it), but the receiver
    // checks only the owner's endpoints.
    const aimed = await register(intruder, ownHook.receiver);
    const unknown = await unknownAnswer();

    // The intruder's test event and a request it signs itself: the answer of a receiver that does not exist.
    const test = await intruder.call('POST', `/v1/webhooks/${aimed.id}/test`);
    expect(await test.json()).toMatchObject({ delivered: false, response_status: 404 });
    const body = JSON.stringify({ id: randomUUID(), type: 'contact.created' });
    expect(await answerOf(await post(aimed.url, body, { 'Service-Signature': signed(body, aimed.secret) }))).toEqual(
      unknown,
    );
    // Real deliveries of both accounts' contact.created, through the job worker: the intruder's is refused.
    const worker = new JobWorker({
      db: t.database.db,
      clock: t.clock,
      registry: createJobRegistry({ config: t.config, baseUrl: t.baseUrl, ...t.services }),
      pollIntervalMs: 5,
    });
    for (const who of [intruder, owner])
      await t.database.db
        .transaction()
        .execute((tx) =>
          recordEvents(tx, who.accountId, t.clock.now().toISOString(), [
            { type: 'contact.created', resource: { type: 'contact', id: randomUUID() }, data: { n: 1 } },
          ]),
        );
    while ((await worker.runOnce()) > 0);
    const attempts = async (who: TestCaller, webhookId: string) =>
      (
        (await (await who.call('GET', `/v1/webhooks/${webhookId}/deliveries`)).json()) as {
          data: { last_response_status: number | null }[];
        }
      ).data.map((d) => d.last_response_status);
    expect(await attempts(intruder, aimed.id)).toEqual([404]);
    expect(await attempts(owner, ownHook.id)).toEqual([200]);
    // The owner's own test event is verified too.
    expect(await (await owner.call('POST', `/v1/webhooks/${ownHook.id}/test`)).json()).toMatchObject({
      delivered: true,
      response_status: 200,
    });

    // The owner's receiver shows its own two, verified with its endpoint, and nothing of the intruder's.
    const { requests, raw } = await readStream(t.baseUrl, ownHook.receiver, 3, 1_000);
    expect(requests.map((r) => [r.verified, r.webhook_id])).toEqual([
      [true, ownHook.id],
      [true, ownHook.id],
    ]);
    expect(raw).not.toContain(aimed.id);
    // The same id under the intruder's account is no receiver of the intruder's: its endpoint names the owner's.
    const [, id] = ownHook.receiver.split('/');
    await expectError(
      await call(t.baseUrl, TOKEN, 'GET', `/console/receiver/${intruder.accountId}/${id}/stream`),
      404,
      {
        code: 'not_found',
      },
    );
  });

  it('keeps at most MAX_REQUESTS requests a receiver, and at most MAX_RECEIVERS receivers', async () => {
    const hook = await register();
    for (let i = 0; i < MAX_REQUESTS + 3; i++) {
      const body = `{"n":${i}}`;
      expect((await post(hook.url, body, { 'Service-Signature': signed(body, hook.secret) })).status).toBe(200);
    }
    const { requests } = await readStream(t.baseUrl, hook.receiver, MAX_REQUESTS);
    expect(requests).toHaveLength(MAX_REQUESTS);
    expect(requests[0]?.seq).toBe(4);
    expect(requests.at(-1)?.seq).toBe(MAX_REQUESTS + 3);

    const log = new ReceiverLog();
    const request = {
      received_at: '',
      headers: [],
      body: '',
      size: 0,
      verified: true,
      webhook_id: null,
      failure: null,
      status: 200,
    };
    for (let i = 0; i < MAX_RECEIVERS + 5; i++) log.record(`receiver-${i}`, request);
    expect(log.size()).toBe(MAX_RECEIVERS);
    // The oldest went first: the newest is still there, with its request.
    expect(log.follow(`receiver-${MAX_RECEIVERS + 4}`, () => {}).kept).toHaveLength(1);
  });

  it('is not served while the sandbox is off', async () => {
    const hook = await register();
    const url = `${off.baseUrl}/console/receiver/${hook.receiver}`;
    const body = '{}';
    const res = await post(url, body, { 'Service-Signature': signed(body, hook.secret) });
    expect(res.status).toBe(404);
    expect((await call(off.baseUrl, TOKEN, 'GET', `/console/receiver/${hook.receiver}/stream`)).status).toBe(404);
  });
});
