// Meta's webhook signature: `X-Hub-Signature-256: sha256=<hex>`, the HMAC-SHA256 of the request's raw body bytes
// under the app secret. Checked on the bytes as they came (a parsed and re-serialized body would differ), and
// compared in constant time. Shared by whatsapp and instagram, whose webhooks Meta signs alike.
import { createHmac, timingSafeEqual } from 'node:crypto';

const HEADER = /^sha256=([0-9a-f]{64})$/i;

/** Whether `header` is the signature of `rawBody` under `appSecret`. */
export function metaSignatureValid(rawBody: Uint8Array, header: string | undefined, appSecret: string): boolean {
  const given = header === undefined ? null : HEADER.exec(header.trim());
  const hex = given?.[1];
  if (hex === undefined) return false;
  const expected = createHmac('sha256', appSecret).update(rawBody).digest();
  return timingSafeEqual(expected, Buffer.from(hex, 'hex'));
}

/** The header Meta would send with `rawBody` (the fake Graph API and the tests sign with it). */
export function metaSignature(rawBody: Uint8Array | string, appSecret: string): string {
  return `sha256=${createHmac('sha256', appSecret).update(rawBody).digest('hex')}`;
}
