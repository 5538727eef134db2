// Webhook secrets and the `Service-Signature` header (Part C, "Signature of each delivery").
//
// `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, where each `v1` is the hexadecimal HMAC-SHA256 of
// `<t>.<raw body>` keyed with the whole secret (its `whsec_` prefix included); one `v1` per secret, current
// first, so a receiver verifying with either secret accepts the delivery during a rotation.
//
// The service verifies it too (`checkSignatureHeader`: the console's built-in receiver). The partner's verifier
// (client/webhooks.ts `checkWebhookSignature`) is its own code, because the client is a package of its own that
// imports nothing of the server; test/webhook-verifiers.test.ts holds the two to the same verdicts.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: `whsec_` and 32 random bytes in base64url (43 characters). */
export function newWebhookSecret(): string {
  return SECRET_PREFIX + randomBytes(32).toString('base64url');
}

/** The hex `v1` value of `rawBody` (its bytes; a string as UTF-8) at `unixSeconds` with one secret. */
export function signatureV1(rawBody: string | Uint8Array, secret: string, unixSeconds: number): string {
  return createHmac('sha256', secret).update(`${unixSeconds}.`, 'utf8').update(rawBody).digest('hex');
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

/** Seconds a signature's `t` may differ from the receiver's clock (5 minutes, Part C). */
export const SIGNATURE_TOLERANCE_SECONDS = 300;

/** Why a signature is refused (the client's `WebhookSignatureFailure`, the same words). */
export type SignatureFailure = 'malformed_header' | 'timestamp_too_old' | 'timestamp_in_future' | 'signature_mismatch';

export type SignatureCheck = { ok: true; timestamp: number } | { ok: false; reason: SignatureFailure };

/** `t=<seconds>,v1=<hex>[,v1=<hex>…]` read (other schemes ignored); null when malformed. */
function parseSignature(header: string | null | undefined): { timestamp: number; signatures: string[] } | null {
  if (typeof header !== 'string' || header.length === 0 || header.length > 4096) return null;
  let timestamp: number | undefined;
  const signatures: string[] = [];
  for (const part of header.split(',')) {
    const eq = part.indexOf('=');
    if (eq <= 0) return null;
    const key = part.slice(0, eq).trim();
    const value = part.slice(eq + 1).trim();
    if (key === 't') {
      if (timestamp !== undefined || !/^\d{1,12}$/.test(value)) return null;
      timestamp = Number(value);
    } else if (key === 'v1') {
      if (!/^[0-9a-f]{64}$/i.test(value)) return null;
      signatures.push(value.toLowerCase());
    }
  }
  return timestamp === undefined || signatures.length === 0 ? null : { timestamp, signatures };
}

/**
 * Checks a `Service-Signature` header against the raw body bytes as received: its `t` within `toleranceSeconds`
 * of `now`, and one of its `v1` values the HMAC of the body under one of `secrets` (compared in constant time,
 * every pair compared).
 */
export function checkSignatureHeader(
  rawBody: string | Uint8Array,
  header: string | null | undefined,
  secrets: readonly string[],
  now: Date,
  toleranceSeconds = SIGNATURE_TOLERANCE_SECONDS,
): SignatureCheck {
  const parsed = parseSignature(header);
  if (!parsed) return { ok: false, reason: 'malformed_header' };
  const nowSeconds = Math.floor(now.getTime() / 1000);
  if (parsed.timestamp < nowSeconds - toleranceSeconds) return { ok: false, reason: 'timestamp_too_old' };
  if (parsed.timestamp > nowSeconds + toleranceSeconds) return { ok: false, reason: 'timestamp_in_future' };
  let matched = false;
  for (const secret of secrets.filter((s) => s.length > 0)) {
    const expected = Buffer.from(signatureV1(rawBody, secret, parsed.timestamp), 'hex');
    for (const candidate of parsed.signatures)
      if (timingSafeEqual(Buffer.from(candidate, 'hex'), expected)) matched = true;
  }
  return matched ? { ok: true, timestamp: parsed.timestamp } : { ok: false, reason: 'signature_mismatch' };
}
