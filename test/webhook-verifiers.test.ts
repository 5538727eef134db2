// Two verifiers of `Service-Signature`, one verdict: the partner's (client/webhooks.ts, a package of its own that
// imports nothing of the server) and the server's (server/webhooks/signing.ts `checkSignatureHeader`, which the
// console's built-in receiver uses). Each case is checked with both, with one secret and with the rotation's two.
import { describe, expect, it } from 'vitest';
import { checkWebhookSignature, signWebhookPayload } from '../client/index.js';
import { checkSignatureHeader, signatureHeader, SIGNATURE_TOLERANCE_SECONDS } from '../server/webhooks/signing.js';

const SECRET = 'whsec_5WbX5kEWLlfzsGNjH64I8lOOqUB6e9FH';
const OTHER_SECRET = 'whsec_Qm3nT8vYx2LkP0aZcR7uW4eJ9sH1dF6g';
const BODY = '{"id":"evt_1","type":"webhook.test","data":{"name":"Zoë 🌵"}}';
const T = 1795183200;
const NOW = new Date(T * 1000);
/** test/webhook-signature.test.ts's vector: printf '%s' "$T.$FIXED_BODY" | openssl dgst -sha256 -hmac "$SECRET" */
const FIXED_BODY =
  '{"id":"evt_1","type":"webhook.test","api_version":"v1","created_at":"2026-11-20T14:00:00.000000Z","data":{"webhook_id":"9b2f6d0c-3e1a-4f5b-8c7d-6a5b4c3d2e1f"}}';
const FIXED_V1 = '944b9e5df998efa1ea0b0fcc6edbe18b0181e4ba9c2c3e96ba6bd0723c2e342b';
/** Bytes that are not UTF-8: a verifier that decoded them to text first would sign something else. */
const BYTES = Buffer.from([0x7b, 0xff, 0xfe, 0x22, 0x61, 0x22, 0x7d]);

const signed = (payload: string | Buffer, secrets: string[], t = T) =>
  signWebhookPayload({ payload, secret: secrets, timestamp: t });

type Case = [label: string, payload: string | Buffer, header: string | undefined, secrets: string[]];
const CASES: Case[] = [
  ['the fixed vector', FIXED_BODY, `t=${T},v1=${FIXED_V1}`, [SECRET]],
  ['a signed body', BODY, signed(BODY, [SECRET]), [SECRET]],
  ['bytes that are not UTF-8', BYTES, signed(BYTES, [SECRET]), [SECRET]],
  ['a rotation, the previous secret', BODY, signed(BODY, [OTHER_SECRET, SECRET]), [SECRET]],
  ['a rotation, the receiver holding both', BODY, signed(BODY, [OTHER_SECRET]), [SECRET, OTHER_SECRET]],
  ['a tampered body', `${BODY} `, signed(BODY, [SECRET]), [SECRET]],
  ['a wrong secret', BODY, signed(BODY, [OTHER_SECRET]), [SECRET]],
  ['the secret without its prefix', BODY, signed(BODY, [SECRET.slice(6)]), [SECRET]],
  ['another timestamp', FIXED_BODY, `t=${T + 1},v1=${FIXED_V1}`, [SECRET]],
  ['5 minutes old', BODY, signed(BODY, [SECRET], T - 300), [SECRET]],
  ['5 minutes ahead', BODY, signed(BODY, [SECRET], T + 300), [SECRET]],
  ['older than 5 minutes', BODY, signed(BODY, [SECRET], T - 301), [SECRET]],
  ['further ahead than 5 minutes', BODY, signed(BODY, [SECRET], T + 301), [SECRET]],
  ['upper-case hex', FIXED_BODY, `t=${T},v1=${FIXED_V1.toUpperCase()}`, [SECRET]],
  ['an unknown scheme beside v1', FIXED_BODY, `t=${T},v0=abc,v1=${FIXED_V1}`, [SECRET]],
  ['spaces around the parts', FIXED_BODY, ` t=${T} , v1=${FIXED_V1} `, [SECRET]],
  ['no header', BODY, undefined, [SECRET]],
  ['an empty header', BODY, '', [SECRET]],
  ['no t', FIXED_BODY, `v1=${FIXED_V1}`, [SECRET]],
  ['no v1', FIXED_BODY, `t=${T}`, [SECRET]],
  ['t not a number', FIXED_BODY, `t=abc,v1=${FIXED_V1}`, [SECRET]],
  ['v1 not hex', FIXED_BODY, `t=${T},v1=zz${FIXED_V1.slice(2)}`, [SECRET]],
  ['v1 too short', FIXED_BODY, `t=${T},v1=${FIXED_V1.slice(0, 62)}`, [SECRET]],
  ['two t', FIXED_BODY, `t=${T},t=${T},v1=${FIXED_V1}`, [SECRET]],
  ['a part without =', FIXED_BODY, `t${T},v1=${FIXED_V1}`, [SECRET]],
  ['a header over 4096 characters', FIXED_BODY, `t=${T},v1=${FIXED_V1},${'v0=x,'.repeat(820)}v0=x`, [SECRET]],
];

/** The client's verdict over several secrets: the first that verifies, else the last refusal's reason. */
function clientVerdict(payload: string | Buffer, header: string | undefined, secrets: string[]): string {
  let verdict = 'no secret';
  for (const secret of secrets) {
    const check = checkWebhookSignature({ payload, header, secret, now: NOW });
    if (check.ok) return `ok ${check.timestamp}`;
    verdict = check.reason;
  }
  return verdict;
}

function serverVerdict(payload: string | Buffer, header: string | undefined, secrets: string[]): string {
  const check = checkSignatureHeader(payload, header, secrets, NOW);
  return check.ok ? `ok ${check.timestamp}` : check.reason;
}

describe('the server and the client verify Service-Signature alike', () => {
  it('reads the cases (each verdict seen at least once)', () => {
    const verdicts = new Set(CASES.map(([, payload, header, secrets]) => serverVerdict(payload, header, secrets)));
    expect([...verdicts].map((v) => v.split(' ')[0])).toEqual(
      expect.arrayContaining([
        'ok',
        'signature_mismatch',
        'timestamp_too_old',
        'timestamp_in_future',
        'malformed_header',
      ]),
    );
  });

  it.each(CASES)('%s', (_label, payload, header, secrets) => {
    expect(serverVerdict(payload, header, secrets)).toBe(clientVerdict(payload, header, secrets));
  });

  it('the server verifies what the server signs, and the client agrees', () => {
    const header = signatureHeader(BODY, [SECRET, OTHER_SECRET], T);
    expect(checkSignatureHeader(BODY, header, [OTHER_SECRET], NOW)).toEqual({ ok: true, timestamp: T });
    expect(checkWebhookSignature({ payload: BODY, header, secret: OTHER_SECRET, now: NOW })).toEqual({
      ok: true,
      timestamp: T,
    });
    expect(signatureHeader(FIXED_BODY, [SECRET], T)).toBe(`t=${T},v1=${FIXED_V1}`);
  });

  it('the same tolerance (5 minutes)', () => {
    expect(SIGNATURE_TOLERANCE_SECONDS).toBe(300);
  });
});
