// Webhook secrets and the `Service-Signature` header (Part C, "Signature of each delivery").
//
// `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, where each `v1` is the hexadecimal HMAC-SHA256 of
// `<t>.<raw body>` keyed with the whole secret (its `whsec_` prefix included); one `v1` per secret, current
// first, so a receiver verifying with either secret accepts the delivery during a rotation. The client's
// verifier (client/webhooks.ts `verifyWebhookSignature`) checks exactly this format.
import { createHmac, randomBytes } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and 32 random bytes in base64url (43 characters). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The hex `v1` value of `rawBody` at `unixSeconds` with one secret. */
export function signatureV1(rawBody: string, secret: string, unixSeconds: number): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.${rawBody}`, 'utf8').digest('hex');
}

/**
 * The `Service-Signature` value of `rawBody` (the body exactly as sent) at `unixSeconds`, one `v1` per secret
 * in the order given (current first). `unixSeconds` is the attempt moment from the injected clock.
 */
export function signatureHeader(rawBody: string, secrets: readonly string[], unixSeconds: number): string {
  if (!Number.isSafeInteger(unixSeconds) || unixSeconds < 0) {
    throw new TypeError('unixSeconds must be a whole number of seconds since 1970.');
  }
  if (secrets.length === 0) throw new TypeError('At least one secret is needed to sign a delivery.');
  const parts = [`t=${unixSeconds}`];
  for (const secret of secrets) {
    if (typeof secret !== 'string' || secret.length === 0) throw new TypeError('A webhook secret is empty.');
    parts.push(`v1=${signatureV1(rawBody, secret, unixSeconds)}`);
  }
  return parts.join(',');
}
