// Webhooks on your machine, from end to end: register a local receiver, get contact events from the API and
// message events from the sandbox, signed; break the receiver and watch the failed attempt in the delivery
// log; fix it and get the retry (same event id, attempt 2); resend; rotate the secret (two `v1` values during
// the overlap); send the test event; and check that every event the API produced reached the receiver.
//
//   npm start                                                  # in one terminal: prints the key and the admin token's file
//   API_KEY=epk_… ADMIN_TOKEN=$(cat data/admin-token) npm run webhooks-walkthrough
//   (BASE_URL=http://… for a server elsewhere; default http://127.0.0.1:3000)
//
// It starts its own receiver (examples/webhook-receiver.ts) on 127.0.0.1 (RECEIVER_PORT, default a free one).
// The server must allow local receivers (WEBHOOK_DEV_TARGETS: on by default with `npm start`) and have the
// sandbox on. The retry, within a minute (each wait is drawn at random up to Part C's step), is reached by moving
// the sandbox clock to the time the delivery log announces (the admin API): the server's worker then finds it due. Each run registers one endpoint and deletes the ones
// earlier runs left (an account holds at most 10).
//
// test/server/webhooks-walkthrough.test.ts runs `webhooksWalkthrough` against a test server on both engines.
import { randomInt, randomUUID } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { errorCode, type ApiClient, type components } from '../client/index.js';
import { check } from './check.js';
import { runWithReceiver } from './cli.js';
import type { AdminClient } from './sandbox-exchange.js';
import type { ReceivedEvent, ReceivedRequest, ReceiverControls } from './webhook-receiver.js';

type Delivery = components['schemas']['WebhookDelivery'];
type Endpoint = components['schemas']['WebhookEndpoint'];
type TestResult = components['schemas']['WebhookTestResult'];

/** The endpoints this walkthrough registers carry this description (earlier runs' are deleted at the start). */
export const WALKTHROUGH_DESCRIPTION = 'examples/webhooks-walkthrough.ts';

/** contact.* and message.* */
export const WALKTHROUGH_EVENT_TYPES = [
  'contact.created',
  'contact.tagged',
  'contact.untagged',
  'contact.custom_fields_updated',
  'message.received',
  'message.sent',
  'message.updated',
  'message.deleted',
  'message.failed',
] as const;

export interface WalkthroughOptions {
  /**
   * Called before each look at the receiver or the log while waiting: a test runs its job worker here. Against
   * a server (whose worker polls about every second) leave it out.
   */
  settle?: () => Promise<void>;
  /** How long one wait may take before the walkthrough gives up; default 20 s. */
  timeoutMs?: number;
  /** Progress lines; default none. */
  log?: (line: string) => void;
}

export interface Walkthrough {
  endpoint: Endpoint;
  /** The secret from the registration, and the one from the rotation. */
  secrets: { first: string; second: string };
  /** The events that arrived for what the walkthrough did, in order: contact.created, contact.tagged… */
  contactEvents: { created: ReceivedRequest; tagged: ReceivedRequest };
  messageEvents: {
    received: ReceivedRequest;
    sent: ReceivedRequest;
    /** The message the contact wrote and the one the API answered with. */
    inboundId: string;
    outboundId: string;
  };
  /** The event sent while the receiver answered 500. */
  broken: {
    eventId: string;
    /** The receiver's side: the attempt answered 500. */
    failedRequest: ReceivedRequest;
    /** The log's side, after the failed attempt: pending, 1 attempt, `http_status`, next within a minute. */
    pending: Delivery;
    /** POST …/retry on the pending delivery: answered as it is. */
    retryWhilePending: { status: number; delivery: Delivery };
    /**
     * The first attempt after the fix and the wait: accepted (attempt 2, unless a wait drawn shorter than the
     * fix took attempt 2 before it).
     */
    secondAttempt: ReceivedRequest;
    /** The log after attempt 2. */
    succeeded: Delivery;
    /** POST …/retry on the succeeded delivery (a resend): back to pending. */
    resend: { status: number; delivery: Delivery };
    /** The resend's attempt: the same event id, attempt 3, dropped by the receiver as a repeat. */
    resent: ReceivedRequest;
    /** The log after the resend. */
    afterResend: Delivery;
  };
  rotation: {
    rotated: Endpoint;
    /** During the overlap, with the receiver accepting both secrets: two `v1` values, each verifying. */
    overlap: ReceivedRequest;
    /** Then with the receiver on the new secret only. */
    newOnly: ReceivedRequest;
  };
  test: { result: TestResult; request: ReceivedRequest };
  /** Every delivery of the endpoint at the end (all succeeded), and the event ids the receiver never got. */
  deliveries: Delivery[];
  lost: string[];
  /** The receiver's accepted events at the end. */
  received: ReceivedEvent[];
}

const sleep = (ms: number) => new Promise((ok) => setTimeout(ok, ms));
/** A Brazilian mobile number no earlier run used (most likely): its contact is new, so contact.created comes. */
const newPhone = () => `+55119${String(randomInt(0, 100_000_000)).padStart(8, '0')}`;
const json = (request: ReceivedRequest) => JSON.parse(request.body) as { id: string; data: Record<string, unknown> };

export async function webhooksWalkthrough(
  api: ApiClient,
  admin: AdminClient,
  receiverUrl: string,
  receiver: ReceiverControls,
  options: WalkthroughOptions = {},
): Promise<Walkthrough> {
  const log = options.log ?? (() => {});
  const timeoutMs = options.timeoutMs ?? 20_000;

  /** Polls `probe` (after `settle`) until it gives a value. */
  async function waitFor<T>(what: string, probe: () => T | undefined | Promise<T | undefined>, everyMs = 50) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      await options.settle?.();
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await sleep(everyMs);
    }
  }
  /** The receiver's first request matching `match` (with `outcome` when given). */
  const arrival = (what: string, match: (r: ReceivedRequest) => boolean) =>
    waitFor(what, () => receiver.requests.find(match));
  const byData =
    (type: string, id: (data: Record<string, unknown>) => unknown, value: string) => (r: ReceivedRequest) =>
      r.type === type && r.outcome === 'accepted' && id(json(r).data) === value;

  // The log, read sparingly (reads count against the key's rate limit): one page per call.
  async function deliveriesOf(webhookId: string, query: { status?: Delivery['status']; event_id?: string } = {}) {
    const all: Delivery[] = [];
    let cursor: string | undefined;
    do {
      const page = check(
        await api.GET('/v1/webhooks/{webhookId}/deliveries', {
          params: { path: { webhookId }, query: { ...query, limit: 100, ...(cursor ? { cursor } : {}) } },
        }),
        'list deliveries',
      );
      all.push(...page.data);
      cursor = page.next_cursor ?? undefined;
    } while (cursor);
    return all;
  }
  const delivery = (webhookId: string, eventId: string, ready: (d: Delivery) => boolean, what: string) =>
    waitFor(
      what,
      async () => (await deliveriesOf(webhookId, { event_id: eventId })).find(ready),
      250, // the log is read at most four times a second
    );
  /** Moves the sandbox clock on to `at` unless it is there already; returns the clock's now. */
  async function clockTo(at: string): Promise<string> {
    const clock = check(await admin.GET('/admin/v1/sandbox/clock'), 'read the sandbox clock');
    const seconds = (Date.parse(at) - Date.parse(clock.now)) / 1000;
    if (seconds <= 0) return clock.now;
    const body = { advance_seconds: seconds };
    return check(await admin.PATCH('/admin/v1/sandbox/clock', { body }), 'advance the sandbox clock').now;
  }
  const noPending = (webhookId: string) =>
    waitFor(
      'every delivery to settle',
      async () => ((await deliveriesOf(webhookId, { status: 'pending' })).length === 0 ? true : undefined),
      250,
    );

  const connections = check(await api.GET('/v1/connections'), 'list connections');
  const whatsapp = connections.data.find((c) => c.channel === 'whatsapp' && c.status === 'connected');
  if (!whatsapp) throw new Error('the account has no connected whatsapp number');

  // 1. Register the receiver for contact.* and message.*. The secret is shown here only: the receiver keeps it.
  //    (Endpoints left by earlier runs go first: an account holds at most 10.)
  for (const old of check(await api.GET('/v1/webhooks'), 'list webhooks').data)
    if (old.description === WALKTHROUGH_DESCRIPTION)
      check(await api.DELETE('/v1/webhooks/{webhookId}', { params: { path: { webhookId: old.id } } }), 'delete');
  const registered = check(
    await api.POST('/v1/webhooks', {
      body: { url: receiverUrl, description: WALKTHROUGH_DESCRIPTION, event_types: [...WALKTHROUGH_EVENT_TYPES] },
    }),
    'register the endpoint',
  );
  const { secret: firstSecret, ...endpoint } = registered;
  const webhookId = endpoint.id;
  receiver.setSecrets([firstSecret]);
  log(`1. registered ${webhookId} → ${endpoint.url} for ${endpoint.event_types.join(', ')}`);

  // 2. Contact events through the API: a new contact (contact.created), then a tag put on it (contact.tagged).
  const tag = await api.POST('/v1/tags', { body: { name: 'Webhooks walkthrough' } });
  const tagId =
    tag.data?.id ??
    (errorCode(tag.error) === 'tag_already_exists'
      ? (tag.error as { context: { tag_id: string } }).context.tag_id
      : check(tag, 'create tag').id);
  const contact = check(
    await api.POST('/v1/contacts', {
      body: { phone: newPhone(), name: 'Caio Webhook', connection_id: whatsapp.id, consent: true },
    }),
    'create contact',
  );
  const tagPath = { params: { path: { contactId: contact.id, tagId } } };
  check(await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', tagPath), 'tag contact');
  const created = await arrival(
    'contact.created',
    byData('contact.created', (d) => d.id, contact.id),
  );
  const tagged = await arrival(
    'contact.tagged',
    byData('contact.tagged', (d) => (d.contact as { id: string }).id, contact.id),
  );
  log(`2. contact.created and contact.tagged arrived for ${contact.id}, signed`);

  // 3. Message events through the sandbox: a contact writes (message.received), the API answers (message.sent).
  const inbound = check(
    await admin.POST('/admin/v1/sandbox/connections/{connectionId}/inbound', {
      params: { path: { connectionId: whatsapp.id } },
      body: { from: { phone: newPhone(), name: 'Duda Webhook' }, text: 'Oi! Chegou meu pedido?' },
    }),
    'contact writes',
  );
  const answer = check(
    await api.POST('/v1/conversations/{conversationId}/messages', {
      params: { path: { conversationId: inbound.conversation.id }, header: { 'Idempotency-Key': randomUUID() } },
      body: { text: 'Oi, Duda! Saiu hoje para entrega.' },
    }),
    'answer',
  );
  const received = await arrival(
    'message.received',
    byData('message.received', (d) => d.id, inbound.message.id),
  );
  const sent = await arrival(
    'message.sent',
    byData('message.sent', (d) => d.id, answer.id),
  );
  log(`3. message.received ${inbound.message.id} and message.sent ${answer.id} arrived`);

  // 4. Break the receiver (it answers 500) and take the tag off: contact.untagged fails its first attempt.
  await noPending(webhookId);
  receiver.setFailing(true);
  check(await api.DELETE('/v1/contacts/{contactId}/tags/{tagId}', tagPath), 'untag contact');
  const failedRequest = await arrival(
    'the failed attempt',
    (r) => r.type === 'contact.untagged' && r.outcome === 'failing',
  );
  const eventId = failedRequest.eventId;
  // The log shows it: pending, 1 attempt, http_status 500, the next attempt within a minute of the first.
  const pending = await delivery(webhookId, eventId, (d) => d.attempts === 1, 'the failed attempt in the log');
  log(
    `4. receiver broken: ${eventId} ${pending.status}, attempts ${pending.attempts}, ${pending.last_error} ${pending.last_response_status}, next ${pending.next_attempt_at}`,
  );

  // A resend of a pending delivery changes nothing: it is answered as it is (the schedule brings attempt 2).
  const retryPending = await api.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
    params: { path: { webhookId, deliveryId: pending.id } },
  });
  const retryWhilePending = { status: retryPending.response.status, delivery: check(retryPending, 'retry pending') };

  // 5. Fix the receiver and let the wait pass: the sandbox clock moves to the next attempt the log announces and
  //    the worker finds it due. (A wait drawn shorter than the fix took: that attempt failed too, and the log
  //    announces the next one.) The receiver checks signatures against the service's clock, now ahead of ours.
  receiver.setFailing(false);
  for (;;) {
    const next = await delivery(webhookId, eventId, (d) => d.status !== 'pending' || !!d.next_attempt_at, 'next');
    if (next.status !== 'pending') break;
    receiver.setClockOffset(Date.parse(await clockTo(next.next_attempt_at!)) - Date.now());
    await delivery(webhookId, eventId, (d) => d.attempts > next.attempts, 'the attempt in the log');
  }
  const secondAttempt = await arrival(
    'the attempt after the fix',
    (r) => r.eventId === eventId && r.outcome === 'accepted',
  );
  const succeeded = await delivery(webhookId, eventId, (d) => d.status === 'succeeded', 'the success in the log');
  log(`5. receiver fixed: ${eventId} arrived at attempt ${secondAttempt.attempt}, ${succeeded.status}`);

  // 6. Resend it (POST …/retry): the same event id again, attempt 3; the receiver drops the repeat (answers 200).
  const retried = await api.POST('/v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry', {
    params: { path: { webhookId, deliveryId: succeeded.id } },
  });
  const resend = { status: retried.response.status, delivery: check(retried, 'resend') };
  const resent = await arrival('the resend', (r) => r.eventId === eventId && r.attempt === 3);
  const afterResend = await delivery(
    webhookId,
    eventId,
    (d) => d.status === 'succeeded' && d.attempts === 3,
    'the resend in the log',
  );
  log(`6. resent: ${eventId} attempt ${resent.attempt}, the receiver answered ${resent.status} (${resent.outcome})`);

  // 7. Rotate the secret. For 24 hours both sign (two v1 values): the receiver accepts both while it moves to
  //    the new one, then only the new one.
  const { secret: secondSecret, ...rotated } = check(
    await api.POST('/v1/webhooks/{webhookId}/rotate-secret', { params: { path: { webhookId } } }),
    'rotate the secret',
  );
  receiver.setSecrets([firstSecret, secondSecret]);
  check(await api.PUT('/v1/contacts/{contactId}/tags/{tagId}', tagPath), 'tag again');
  const overlap = await arrival(
    'an event during the overlap',
    (r) => r.type === 'contact.tagged' && r.outcome === 'accepted' && r.eventId !== tagged.eventId,
  );
  receiver.setSecrets([secondSecret]);
  check(await api.DELETE('/v1/contacts/{contactId}/tags/{tagId}', tagPath), 'untag again');
  const newOnly = await arrival(
    'an event on the new secret alone',
    (r) => r.type === 'contact.untagged' && r.outcome === 'accepted' && r.eventId !== eventId,
  );
  log(
    `7. rotated: ${overlap.v1Count} v1 values until ${rotated.previous_secret_expires_at}; the receiver now holds the new secret only`,
  );

  // 8. The test event: sent at once, answered with the outcome, not in the log.
  const result = check(await api.POST('/v1/webhooks/{webhookId}/test', { params: { path: { webhookId } } }), 'test');
  const testRequest = await arrival('webhook.test', (r) => r.type === 'webhook.test' && r.outcome === 'accepted');
  log(`8. test: delivered ${result.delivered}, status ${result.response_status}, ${result.duration_ms} ms`);

  // 9. Nothing lost: once nothing is pending, every event of the log reached the receiver.
  await noPending(webhookId);
  const deliveries = await deliveriesOf(webhookId);
  const got = new Set(receiver.events.map((e) => e.id));
  const lost = deliveries.map((d) => d.event.id).filter((id) => !got.has(id));
  log(`9. ${deliveries.length} deliveries, ${receiver.events.length} events received, lost: ${lost.length}`);

  return {
    endpoint,
    secrets: { first: firstSecret, second: secondSecret },
    contactEvents: { created, tagged },
    messageEvents: { received, sent, inboundId: inbound.message.id, outboundId: answer.id },
    broken: {
      eventId,
      failedRequest,
      pending,
      retryWhilePending,
      secondAttempt,
      succeeded,
      resend,
      resent,
      afterResend,
    },
    rotation: { rotated, overlap, newOnly },
    test: { result, request: testRequest },
    deliveries,
    lost,
    received: [...receiver.events],
  };
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  await runWithReceiver(async (api, admin, receiver) => {
    const run = await webhooksWalkthrough(api, admin, receiver.url, receiver, {
      log: (line) => console.log(line),
      timeoutMs: 30_000,
    });
    if (run.lost.length > 0) {
      console.error(`lost: ${run.lost.join(', ')}`);
      process.exitCode = 1;
    }
  });
}
