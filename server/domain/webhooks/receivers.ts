// The console's built-in webhook receiver (http/console-receiver.ts) as the domain answers it: which of the
// account's endpoints target a receiver, and which of them signed a request, on the server's own verifier
// (webhooks/signing.ts) with the secrets that sign at that moment.
import type { Kysely } from 'kysely';
import type { DB } from '../../store/schema.js';
import { endpointsTargetingPath, type WebhookEndpointRow } from '../../store/webhook-endpoints.js';
import { checkSignatureHeader } from '../../webhooks/signing.js';
import { signingSecrets } from './endpoints.js';

/**
 * The account's endpoints (not deleted) whose URL ends with the receiver's `path`, whatever host the page
 * registered it with; another account's endpoint aimed at the same path is never among them (issue 33).
 */
export function receiverEndpoints(db: Kysely<DB>, accountId: string, path: string): Promise<WebhookEndpointRow[]> {
  return endpointsTargetingPath(db, accountId, path);
}

/** The endpoint whose secret (current, or previous during a rotation) signed `body` with `header`, or undefined. */
export function signingEndpoint(
  endpoints: readonly WebhookEndpointRow[],
  body: Uint8Array,
  header: string | undefined,
  now: Date,
): WebhookEndpointRow | undefined {
  return endpoints.find((endpoint) => checkSignatureHeader(body, header, signingSecrets(endpoint, now), now).ok);
}
