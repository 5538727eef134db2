// POST /v1/webhooks/{id}/test (Part C, "Test event"): one `webhook.test` event with `data.webhook_id`, signed
// like any delivery (both secrets during a rotation), sent at once to the endpoint whatever its event types and
// also when it is disabled. Nothing is written: it is not in the delivery log, is not retried and leaves
// `failing_since` and the automatic disabling alone. The answer is the attempt's outcome, a failure included.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../../clock.js';
import { serviceUnavailable } from '../../errors.js';
import type { DB } from '../../store/schema.js';
import { apiTimestamp } from '../../store/timestamps.js';
import { deliveryHeaders, postEvent, type AttemptError } from '../../webhooks/sender.js';
import { signatureHeader } from '../../webhooks/signing.js';
import type { TargetPolicy } from '../../webhooks/targets.js';
import { eventEnvelope } from './envelope.js';
import { getWebhook, requireApiEnabledAccount, signingSecrets } from './endpoints.js';

export const TEST_EVENT_TYPE = 'webhook.test';

export interface TestResult {
  delivered: boolean;
  response_status: number | null;
  error: AttemptError | null;
  duration_ms: number;
}

export async function sendTestEvent(
  deps: { db: Kysely<DB>; clock: Clock; targets: TargetPolicy; logger?: { error(obj: object, msg: string): void } },
  accountId: string,
  webhookId: string,
): Promise<TestResult> {
  const endpoint = await getWebhook(deps.db, accountId, webhookId);
  await requireApiEnabledAccount(deps.db, accountId);
  const now = deps.clock.now();
  const event = { id: randomUUID(), type: TEST_EVENT_TYPE, created_at: apiTimestamp(now) };
  const body = JSON.stringify(eventEnvelope(event, { webhook_id: endpoint.id }));
  const signature = signatureHeader(body, signingSecrets(endpoint, now), Math.floor(now.getTime() / 1000));
  let result;
  try {
    result = await postEvent({
      url: endpoint.url,
      body,
      headers: deliveryHeaders(event, 1, signature),
      policy: deps.targets,
    });
  } catch (error) {
    // postEvent reports every failure of the attempt as its outcome; a throw is the sender itself failing.
    deps.logger?.error({ err: error, webhookId }, 'the webhook sender failed on a test event');
    throw serviceUnavailable('The webhook service did not answer. Nothing was sent; retry.');
  }
  return {
    delivered: result.delivered,
    response_status: result.responseStatus,
    error: result.error,
    duration_ms: Math.max(0, Math.round(result.durationMs)),
  };
}
