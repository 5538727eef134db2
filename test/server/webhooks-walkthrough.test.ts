// The README's webhooks walkthrough (examples/webhooks-walkthrough.ts with examples/webhook-receiver.ts) against
// a real server on PGlite (walkthroughEngines: the walkthrough is published text; registration, delivery,
// retries, rotation and the test event run on both engines in webhooks and webhook-delivery.test.ts): the "Done when" — register a local endpoint, receive
// contact and message events signed, break the receiver and watch the retry in the delivery log, fix it,
// resend, rotate the secret, send the test event, and lose nothing. A job worker runs beside the app as in
// `npm start` (polling every few milliseconds); the wait before attempt 2 passes through the sandbox clock.
import { describe, expect, it } from 'vitest';
import { createClient, verifyWebhookSignature } from '../../client/index.js';
import { ensureDemoAccount } from '../../server/console/demo.js';
import { createAdminClient } from '../../examples/sandbox-exchange.js';
import type { ReceivedRequest } from '../../examples/webhook-receiver.js';
import { WALKTHROUGH_EVENT_TYPES, webhooksWalkthrough } from '../../examples/webhooks-walkthrough.js';
import { exampleServer } from './example-server.js';
import { walkthroughEngines } from './harness.js';

const ADMIN_TOKEN = 'webhooks-walkthrough-admin-token-0123456789';
const MINUTE = 60_000;

describe.each(walkthroughEngines)('the webhooks walkthrough on %s', (engine) => {
  // Retry waits drawn in the middle of their window (attempt 2 half a minute after attempt 1), so that attempt
  // is signed at another second than the first whatever the run (a draw under 1/60 would share its second).
  const server = exampleServer(engine, ADMIN_TOKEN, 'webhooks-walkthrough', { random: () => 0.5 });

  /** The signature checked again here, with one secret alone, at the attempt's moment. */
  const verifies = (r: ReceivedRequest, secret: string) => {
    try {
      verifyWebhookSignature({ payload: r.body, header: r.signature, secret, now: server.t.clock.now() });
      return true;
    } catch {
      return false;
    }
  };

  it('registers a local receiver, delivers signed, retries, resends, rotates and loses nothing', async () => {
    const demo = await ensureDemoAccount(server.t.database.db, server.t.clock, server.dataDir);
    const api = createClient({ baseUrl: server.t.baseUrl, apiKey: demo.apiKey });
    const progress: string[] = [];
    const x = await webhooksWalkthrough(
      api,
      createAdminClient(server.t.baseUrl, ADMIN_TOKEN),
      server.receiver.url,
      server.receiver,
      {
        log: (line) => progress.push(line),
      },
    );
    const { first, second } = x.secrets;

    // 1. The endpoint: enabled, on the local receiver, contact.* and message.* in alphabetical order.
    expect(x.endpoint).toMatchObject({ url: server.receiver.url, status: 'enabled', failing_since: null });
    expect(x.endpoint.event_types).toEqual([...WALKTHROUGH_EVENT_TYPES].sort());
    expect(first).toMatch(/^whsec_/);
    expect(x.endpoint).not.toHaveProperty('secret');

    // 2–3. Contact events from the API and message events from the sandbox, each signed with the secret (one v1),
    //      first attempt, the envelope's id in Service-Event-Id.
    const { created, tagged } = x.contactEvents;
    const { received, sent } = x.messageEvents;
    for (const r of [created, tagged, received, sent]) {
      expect(r).toMatchObject({ status: 200, outcome: 'accepted', attempt: 1, v1Count: 1, verifiedWith: [first] });
      expect(verifies(r, first)).toBe(true);
      expect(verifies(r, second)).toBe(false);
      const envelope = JSON.parse(r.body) as { id: string; type: string; api_version: string };
      expect(envelope).toMatchObject({ id: r.eventId, type: r.type, api_version: 'v1' });
    }
    expect((JSON.parse(tagged.body) as { data: { tags: { name: string }[] } }).data.tags).toEqual([
      expect.objectContaining({ name: 'Webhooks walkthrough' }),
    ]);
    expect(JSON.parse(received.body)).toMatchObject({
      data: { id: x.messageEvents.inboundId, direction: 'inbound', text: 'Oi! Chegou meu pedido?' },
    });
    expect(JSON.parse(sent.body)).toMatchObject({
      data: { id: x.messageEvents.outboundId, direction: 'outbound', sender: { type: 'api' } },
    });

    // 4. The receiver answered 500: the log shows the delivery pending after 1 attempt, http_status 500, and
    //    the next attempt within a minute of the first (drawn at random up to Part C's step). A resend of a
    //    pending delivery answers it as it is.
    const b = x.broken;
    expect(b.failedRequest).toMatchObject({ type: 'contact.untagged', attempt: 1, status: 500, outcome: 'failing' });
    expect(b.pending).toMatchObject({
      webhook_id: x.endpoint.id,
      event: { id: b.eventId, type: 'contact.untagged' },
      status: 'pending',
      attempts: 1,
      last_error: 'http_status',
      last_response_status: 500,
      delivered_at: null,
    });
    expect(Date.parse(b.pending.next_attempt_at!) - Date.parse(b.pending.last_attempt_at!)).toBe(MINUTE / 2);
    expect(b.retryWhilePending.status).toBe(202);
    expect(b.retryWhilePending.delivery).toMatchObject({ id: b.pending.id, status: 'pending', attempts: 1 });

    // 5. Fixed, the wait passed: attempt 2 carries the same event id (and the same body), signed afresh.
    expect(b.secondAttempt).toMatchObject({ eventId: b.eventId, attempt: 2, status: 200, outcome: 'accepted' });
    expect(b.secondAttempt.body).toBe(b.failedRequest.body);
    expect(b.secondAttempt.signature).not.toBe(b.failedRequest.signature);
    expect(verifies(b.secondAttempt, first)).toBe(true);
    expect(b.succeeded).toMatchObject({
      id: b.pending.id,
      status: 'succeeded',
      attempts: 2,
      last_response_status: 200,
      next_attempt_at: null,
    });
    expect(b.succeeded.delivered_at).not.toBeNull();

    // 6. The resend: 202, back to pending; attempt 3 with the same event id, which the receiver drops as a repeat.
    expect(b.resend.status).toBe(202);
    expect(b.resend.delivery).toMatchObject({ id: b.pending.id, status: 'pending', event: { id: b.eventId } });
    expect(b.resent).toMatchObject({ eventId: b.eventId, attempt: 3, status: 200, outcome: 'repeat' });
    expect(b.afterResend).toMatchObject({ status: 'succeeded', attempts: 3 });
    expect(x.received.filter((e) => e.id === b.eventId)).toEqual([
      expect.objectContaining({ type: 'contact.untagged', attempt: 2 }),
    ]);

    // 7. After the rotation both secrets sign for 24 hours: two v1 values, each verifying with its secret; the
    //    receiver on the new secret alone still accepts.
    expect(second).toMatch(/^whsec_/);
    expect(second).not.toBe(first);
    expect(Date.parse(x.rotation.rotated.previous_secret_expires_at!)).toBeGreaterThan(
      server.t.clock.now().getTime() + 23 * 60 * MINUTE,
    );
    expect(x.rotation.overlap).toMatchObject({ type: 'contact.tagged', outcome: 'accepted', v1Count: 2 });
    expect(x.rotation.overlap.verifiedWith).toEqual([first, second]);
    expect(x.rotation.overlap.signature).toMatch(/^t=\d+,v1=[0-9a-f]{64},v1=[0-9a-f]{64}$/);
    expect(x.rotation.newOnly).toMatchObject({ type: 'contact.untagged', outcome: 'accepted', v1Count: 2 });
    expect(x.rotation.newOnly.verifiedWith).toEqual([second]);
    expect(verifies(x.rotation.newOnly, first)).toBe(true); // the old one still signs until it expires

    // 8. The test route: delivered at once, signed, not in the log.
    expect(x.test.result).toMatchObject({ delivered: true, response_status: 200, error: null });
    expect(x.test.request).toMatchObject({ type: 'webhook.test', attempt: 1, outcome: 'accepted' });
    expect(JSON.parse(x.test.request.body)).toMatchObject({ data: { webhook_id: x.endpoint.id } });
    expect(x.deliveries.some((d) => d.event.id === x.test.request.eventId)).toBe(false);

    // 9. Nothing lost: every delivery succeeded and every event id of the log reached the receiver once;
    //    the receiver got nothing else but the test event.
    expect(x.lost).toEqual([]);
    expect(x.deliveries.length).toBeGreaterThanOrEqual(8);
    expect(x.deliveries.every((d) => d.status === 'succeeded')).toBe(true);
    const logged = x.deliveries.map((d) => d.event.id).sort();
    expect(x.received.map((e) => e.id).sort()).toEqual([...logged, x.test.request.eventId].sort());
    // No request was refused: every signature verified.
    expect(server.receiver.requests.filter((r) => r.outcome === 'refused')).toEqual([]);
    expect(progress).toHaveLength(9);
    expect(server.lines.some((l) => l.includes(`500 failing  contact.untagged ${b.eventId} attempt 1`))).toBe(true);
  });
});
