// Webhook signature verification (Part C, "Signature of each delivery").
//
// Each delivery carries `Service-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`. `v1` is the hexadecimal
// HMAC-SHA256 of `<t>.<raw body>`, keyed with the whole endpoint secret (with its `whsec_` prefix). During a
// secret rotation two `v1` values appear, one per secret. Verify on the raw bytes, before parsing JSON.
import { createHmac, timingSafeEqual } from 'node:crypto';

/** Seconds a signature's `t` may differ from the receiver's clock (5 minutes). */
export const DEFAULT_TOLERANCE_SECONDS = 300;

export type WebhookSignatureFailure =
  /** The header is missing or not `t=<seconds>,v1=<hex>`. */
  | 'malformed_header'
  /** `t` is more than the tolerance before the receiver's clock (an old or replayed delivery). */
  | 'timestamp_too_old'
  /** `t` is more than the tolerance after the receiver's clock. */
  | 'timestamp_in_future'
  /** No `v1` value is the HMAC of this body with this secret. */
  | 'signature_mismatch';

/** Thrown by {@link verifyWebhookSignature}; `reason` says why. Answer the delivery with a 400. */
export class WebhookSignatureError extends Error {
  override readonly name = 'WebhookSignatureError';
  constructor(
    readonly reason: WebhookSignatureFailure,
    message: string,
  ) {
    super(message);
  }
}

export interface VerifyWebhookSignatureOptions {
  /** The raw request body exactly as received (not re-serialised JSON). */
  payload: string | Buffer | Uint8Array;
  /** The `Service-Signature` header. */
  header: string | null | undefined;
  /** The endpoint secret, `whsec_…`, used whole as the HMAC key. */
  secret: string;
  /** Allowed distance between `t` and `now`, in seconds. Default 300. */
  toleranceSeconds?: number;
  /** The receiver's clock; default the current time. */
  now?: Date;
}

export interface VerifiedWebhookSignature {
  /** The signature's `t` (the attempt moment), in Unix seconds. */
  timestamp: number;
}

export interface ParsedSignatureHeader {
  timestamp: number;
  signatures: string[];
}

/** Parses `t=<seconds>,v1=<hex>[,v1=<hex>…]`; unknown schemes (`v0=…`) are ignored. Null when malformed. */
export function parseSignatureHeader(header: string | null | undefined): ParsedSignatureHeader | null {
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
  if (timestamp === undefined || signatures.length === 0) return null;
  return { timestamp, signatures };
}

function toBuffer(payload: string | Buffer | Uint8Array): Buffer {
  return typeof payload === 'string' ? Buffer.from(payload, 'utf8') : Buffer.from(payload);
}

/** The hex `v1` signature of `payload` at `timestamp` (Unix seconds) with `secret`. */
export function computeWebhookSignature(
  payload: string | Buffer | Uint8Array,
  timestamp: number,
  secret: string,
): string {
  return createHmac('sha256', secret).update(`${timestamp}.`, 'utf8').update(toBuffer(payload)).digest('hex');
}

/**
 * Verifies a delivery's `Service-Signature`. Returns the signature's timestamp, or throws a
 * {@link WebhookSignatureError} saying why it is refused. Compares in constant time and accepts the delivery
 * when one `v1` value matches.
 */
export function verifyWebhookSignature(options: VerifyWebhookSignatureOptions): VerifiedWebhookSignature {
  const tolerance = options.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
  // A NaN or negative tolerance, or an invalid clock, would silently turn the timestamp check off or refuse
  // every delivery: a programming error, not a bad delivery, so it throws a TypeError (not a 400 reason).
  if (!Number.isFinite(tolerance) || tolerance < 0) {
    throw new TypeError('toleranceSeconds must be a finite number of seconds, 0 or more.');
  }
  const nowMs = (options.now ?? new Date()).getTime();
  if (!Number.isFinite(nowMs)) throw new TypeError('now must be a valid Date.');
  if (typeof options.secret !== 'string' || options.secret.length === 0) {
    throw new TypeError('secret must be the endpoint secret (whsec_…), used whole.');
  }
  const parsed = parseSignatureHeader(options.header);
  if (!parsed) {
    throw new WebhookSignatureError('malformed_header', 'Service-Signature is missing or not `t=<seconds>,v1=<hex>`.');
  }
  const now = Math.floor(nowMs / 1000);
  if (parsed.timestamp < now - tolerance) {
    throw new WebhookSignatureError('timestamp_too_old', `The signature is more than ${tolerance} seconds old.`);
  }
  if (parsed.timestamp > now + tolerance) {
    throw new WebhookSignatureError(
      'timestamp_in_future',
      `The signature is more than ${tolerance} seconds in the future.`,
    );
  }
  const expected = Buffer.from(computeWebhookSignature(options.payload, parsed.timestamp, options.secret), 'hex');
  let matched = false;
  for (const candidate of parsed.signatures) {
    const given = Buffer.from(candidate, 'hex');
    // Every candidate is compared (no early exit), in constant time on equal-length buffers.
    if (given.length === expected.length && timingSafeEqual(given, expected)) matched = true;
  }
  if (!matched) {
    throw new WebhookSignatureError('signature_mismatch', 'No v1 signature matches this body and secret.');
  }
  return { timestamp: parsed.timestamp };
}

/** The same check, as a result instead of an exception (a misconfiguration still throws a TypeError). */
export function checkWebhookSignature(
  options: VerifyWebhookSignatureOptions,
): { ok: true; timestamp: number } | { ok: false; reason: WebhookSignatureFailure; message: string } {
  try {
    return { ok: true, ...verifyWebhookSignature(options) };
  } catch (error) {
    if (error instanceof WebhookSignatureError) return { ok: false, reason: error.reason, message: error.message };
    throw error;
  }
}

export interface SignWebhookPayloadOptions {
  payload: string | Buffer | Uint8Array;
  /** One secret, or several during a rotation (one `v1` each, in order). */
  secret: string | string[];
  /** Default: now. */
  timestamp?: number | Date;
}

/** Builds a `Service-Signature` header value as the service does; for tests and local receivers. */
export function signWebhookPayload(options: SignWebhookPayloadOptions): string {
  const t =
    options.timestamp instanceof Date
      ? Math.floor(options.timestamp.getTime() / 1000)
      : (options.timestamp ?? Math.floor(Date.now() / 1000));
  const secrets = Array.isArray(options.secret) ? options.secret : [options.secret];
  return [`t=${t}`, ...secrets.map((s) => `v1=${computeWebhookSignature(options.payload, t, s)}`)].join(',');
}
