// The console's built-in webhook receiver (server/http/console-receiver.ts), on every engine of the run: an endpoint
// registered on `POST /console/receiver/{id}` of the server itself gets the test event, verified with its secret;
// a forged signature is 400, a body over the cap 413, an unknown id 404; the page's stream (admin token) gets the
// kept requests, at most MAX_REQUESTS, and never the secret; receivers are bounded; nothing is served while the
// sandbox is off.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signWebhookPayload } from '../../client/webhooks.js';
import {
  MAX_BODY_BYTES,
  MAX_RECEIVERS,
  MAX_REQUESTS,
  ReceiverLog,
  endReceiverStreams,
} from '../../server/http/console-receiver.js';
import type { ReceivedRequest } from '../../server/console/received.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError } from './http-helpers.js';

const TOKEN = 'console-receiver-admin-token-0123456789abcdef';

/** The receiver's stream until `count` requests came (or 10 s): the requests and the raw text. */
async function readStream(baseUrl: string, id: string, count: number) {
  const abort = new AbortController();
  const response = await fetch(`${baseUrl}/console/receiver/${id}/stream`, {
    headers: { Authorization: `Bearer ${TOKEN}` },
    signal: abort.signal,
  });
  expect(response.status).toBe(200);
  const requests: ReceivedRequest[] = [];
  let raw = '';
  const timer = setTimeout(() => abort.abort(), 10_000);
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

  /** An endpoint of the account on a new receiver of the server: its id, secret and the receiver's URL. */
  async function register() {
    const receiver = randomUUID();
    const url = `${t.baseUrl}/console/receiver/${receiver}`;
    const res = await caller.call('POST', '/v1/webhooks', {
      body: { url, event_types: ['contact.created'] },
      headers: { 'Idempotency-Key': randomUUID() },
    });
    expect(res.status).toBe(201);
    const endpoint = (await res.json()) as { id: string; secret: string };
    return { receiver, url, ...endpoint };
  }
  const post = (url: string, body: string, headers: Record<string, string>) =>
    fetch(url, { method: 'POST', body, headers: { 'Content-Type': 'application/json', ...headers } });

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

  it('answers a forged signature 400, a body over the cap 413 (kept without it), an unknown id 404', async () => {
    const hook = await register();
    const body = JSON.stringify({ id: randomUUID(), type: 'contact.created' });
    const now = t.clock.now();
    const forged = signWebhookPayload({ payload: body, secret: 'whsec_not-the-secret', timestamp: now });
    expect((await post(hook.url, body, { 'Service-Signature': forged })).status).toBe(400);
    const signed = signWebhookPayload({ payload: body, secret: hook.secret, timestamp: now });
    expect((await post(hook.url, body, { 'Service-Signature': signed })).status).toBe(200);
    const big = 'x'.repeat(MAX_BODY_BYTES + 1);
    expect((await post(hook.url, big, { 'Service-Signature': signed })).status).toBe(413);

    const { requests } = await readStream(t.baseUrl, hook.receiver, 3);
    expect(requests.map((r) => [r.seq, r.verified, r.failure, r.status])).toEqual([
      [1, false, 'signature_mismatch', 400],
      [2, true, null, 200],
      [3, false, 'body_too_large', 413],
    ]);
    expect(requests[2]).toMatchObject({ body: null, size: MAX_BODY_BYTES + 1 });

    await expectError(await post(`${t.baseUrl}/console/receiver/${randomUUID()}`, body, {}), 404, {
      code: 'not_found',
    });
    await expectError(await post(`${t.baseUrl}/console/receiver/short`, body, {}), 404, { code: 'not_found' });
    const stream = (id: string, token?: string) => call(t.baseUrl, token, 'GET', `/console/receiver/${id}/stream`);
    expect((await stream(hook.receiver)).status).toBe(401);
    await expectError(await stream(randomUUID(), TOKEN), 404, { code: 'not_found' });
  });

  it('keeps at most MAX_REQUESTS requests a receiver, and at most MAX_RECEIVERS receivers', async () => {
    const hook = await register();
    for (let i = 0; i < MAX_REQUESTS + 3; i++) expect((await post(hook.url, `{"n":${i}}`, {})).status).toBe(400);
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
      verified: false,
      webhook_id: null,
      failure: null,
      status: 400,
    };
    for (let i = 0; i < MAX_RECEIVERS + 5; i++) log.record(`receiver-${i}`, request);
    expect(log.size()).toBe(MAX_RECEIVERS);
    // The oldest went first: the newest is still there, with its request.
    expect(log.follow(`receiver-${MAX_RECEIVERS + 4}`, () => {}).kept).toHaveLength(1);
  });

  it('is not served while the sandbox is off', async () => {
    const hook = await register();
    const url = `${off.baseUrl}/console/receiver/${hook.receiver}`;
    const res = await post(url, '{}', {});
    expect(res.status).toBe(404);
    expect((await call(off.baseUrl, TOKEN, 'GET', `/console/receiver/${hook.receiver}/stream`)).status).toBe(404);
  });
});
