// The webhook signature helper of the client (Part C "Signature of each delivery"): `t=<seconds>,v1=<hex>`,
// hex HMAC-SHA256 of `<t>.<raw body>` keyed with the whole secret, several v1 values, 5-minute tolerance.
import { createHmac } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  WebhookSignatureError,
  checkWebhookSignature,
  parseSignatureHeader,
  signWebhookPayload,
  verifyWebhookSignature,
} from '../client/index.js';

const SECRET = 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e9FH';
const OTHER_SECRET = 'whsec_Qm3nT8vYx2LkP0aZcR7uW4eJ9sH1dF6g';
const BODY =
  '{"id":"evt_1","type":"webhook.test","api_version":"v1","created_at":"2026-11-20T14:00:00.000000Z","data":{"webhook_id":"9b2f6d0c-3e1a-4f5b-8c7d-6a5b4c3d2e1f"}}';
const T = 1795183200; // 2026-11-20T14:00:00Z
const NOW = new Date(T * 1000);
// Computed independently: printf '%s' "1795183200.$BODY" | openssl dgst -sha256 -hmac "$SECRET"
const FIXED_V1 = '944b9e5df998efa1ea0b0fcc6edbe18b0181e4ba9c2c3e96ba6bd0723c2e342b';

function reason(fn: () => unknown): string | undefined {
  try {
    fn();
    return undefined;
  } catch (error) {
    expect(error).toBeInstanceOf(WebhookSignatureError);
    return (error as WebhookSignatureError).reason;
  }
}

describe('verifyWebhookSignature', () => {
  it('verifies a fixed vector', () => {
    expect(
      verifyWebhookSignature({ payload: BODY, header: `t=${T},v1=${FIXED_V1}`, secret: SECRET, now: NOW }),
    ).toEqual({
      timestamp: T,
    });
  });

  it('verifies a vector computed with crypto.createHmac, from a string or a Buffer body', () => {
    const v1 = createHmac('sha256', SECRET).update(`${T}.${BODY}`).digest('hex');
    expect(v1).toBe(FIXED_V1);
    const header = `t=${T},v1=${v1}`;
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW }).timestamp).toBe(T);
    expect(verifyWebhookSignature({ payload: Buffer.from(BODY), header, secret: SECRET, now: NOW }).timestamp).toBe(T);
  });

  it('signs like the service (signWebhookPayload)', () => {
    expect(signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: T })).toBe(`t=${T},v1=${FIXED_V1}`);
  });

  it('accepts two v1 values when one matches (secret rotation), in either order', () => {
    const header = signWebhookPayload({ payload: BODY, secret: [OTHER_SECRET, SECRET], timestamp: T });
    expect(header.split(',').filter((p) => p.startsWith('v1=')).length).toBe(2);
    expect(verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW }).timestamp).toBe(T);
    expect(verifyWebhookSignature({ payload: BODY, header, secret: OTHER_SECRET, now: NOW }).timestamp).toBe(T);
  });

  it('refuses a tampered body', () => {
    const header = `t=${T},v1=${FIXED_V1}`;
    expect(
      reason(() =>
        verifyWebhookSignature({ payload: BODY.replace('evt_1', 'evt_2'), header, secret: SECRET, now: NOW }),
      ),
    ).toBe('signature_mismatch');
    expect(reason(() => verifyWebhookSignature({ payload: `${BODY} `, header, secret: SECRET, now: NOW }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses a wrong secret, and the secret without its whsec_ prefix', () => {
    const header = `t=${T},v1=${FIXED_V1}`;
    expect(reason(() => verifyWebhookSignature({ payload: BODY, header, secret: OTHER_SECRET, now: NOW }))).toBe(
      'signature_mismatch',
    );
    expect(reason(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET.slice(6), now: NOW }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses a signature for another timestamp', () => {
    const header = `t=${T + 1},v1=${FIXED_V1}`;
    expect(reason(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW }))).toBe(
      'signature_mismatch',
    );
  });

  it('refuses a timestamp more than 5 minutes old or ahead, and accepts one at 5 minutes', () => {
    const at = (t: number) => signWebhookPayload({ payload: BODY, secret: SECRET, timestamp: t });
    const verify = (t: number) => () =>
      verifyWebhookSignature({ payload: BODY, header: at(t), secret: SECRET, now: NOW });
    expect(reason(verify(T - 301))).toBe('timestamp_too_old');
    expect(reason(verify(T - 3600))).toBe('timestamp_too_old');
    expect(reason(verify(T + 301))).toBe('timestamp_in_future');
    expect(reason(verify(T - 300))).toBeUndefined();
    expect(reason(verify(T + 300))).toBeUndefined();
    expect(
      reason(() =>
        verifyWebhookSignature({ payload: BODY, header: at(T - 301), secret: SECRET, now: NOW, toleranceSeconds: 600 }),
      ),
    ).toBeUndefined();
  });

  it.each([
    ['missing', undefined],
    ['empty', ''],
    ['no t', `v1=${FIXED_V1}`],
    ['no v1', `t=${T}`],
    ['t not a number', `t=abc,v1=${FIXED_V1}`],
    ['v1 not hex', `t=${T},v1=zz${FIXED_V1.slice(2)}`],
    ['v1 too short', `t=${T},v1=${FIXED_V1.slice(0, 62)}`],
    ['two t', `t=${T},t=${T},v1=${FIXED_V1}`],
    ['no =', `t${T},v1=${FIXED_V1}`],
  ])('refuses a malformed header (%s)', (_label, header) => {
    expect(reason(() => verifyWebhookSignature({ payload: BODY, header, secret: SECRET, now: NOW }))).toBe(
      'malformed_header',
    );
  });

  it('ignores unknown signature schemes next to v1', () => {
    expect(parseSignatureHeader(`t=${T},v0=abc,v1=${FIXED_V1}`)).toEqual({ timestamp: T, signatures: [FIXED_V1] });
  });

  it('also answers as a result (checkWebhookSignature)', () => {
    expect(checkWebhookSignature({ payload: BODY, header: `t=${T},v1=${FIXED_V1}`, secret: SECRET, now: NOW })).toEqual(
      {
        ok: true,
        timestamp: T,
      },
    );
    expect(checkWebhookSignature({ payload: BODY, header: 'nonsense', secret: SECRET, now: NOW })).toMatchObject({
      ok: false,
      reason: 'malformed_header',
    });
  });
});
