// The table of Meta's answers to an Instagram send (issue 36 §3; server/channels/instagram/errors.ts), row by
// row: each code of the table, codes beside them that must not fall into a row, and the answers that carry
// no Graph error (a timeout or a reset, no connection, a proxy's page).
import { describe, expect, it } from 'vitest';
import type { GraphAnswer } from '../server/channels/graph/client.js';
import { instagramSendError, instagramSendOutcome } from '../server/channels/instagram/errors.js';

/** Meta's error body, as the Graph API answers it. */
const graphError = (
  status: number,
  code: number | undefined,
  subcode?: number,
  message = 'An error occurred',
): GraphAnswer => ({
  kind: 'answered',
  status,
  body: {
    json: true,
    value: {
      error: {
        message,
        type: 'OAuthException',
        ...(code === undefined ? {} : { code }),
        ...(subcode === undefined ? {} : { error_subcode: subcode }),
        fbtrace_id: 'AbCdEf',
      },
    },
  },
});

const unknown = { outcome: 'outcome_unknown', providerAccepted: false, providerMessageId: null };

describe("Meta's instagram send errors", () => {
  it.each([
    [400, 10, 2534022, { outcome: 'window_closed' }],
    [400, 10, 2018278, { outcome: 'window_closed' }],
    [400, 551, undefined, { outcome: 'recipient_unavailable' }],
    [400, 551, 1545041, { outcome: 'recipient_unavailable' }],
    [400, 100, 2018001, { outcome: 'recipient_unavailable' }],
    [400, 613, undefined, { outcome: 'provider_throttled' }],
    [400, 4, undefined, { outcome: 'provider_throttled' }],
    [400, 4, 2207051, { outcome: 'provider_throttled' }],
    [400, 32, undefined, { outcome: 'provider_throttled' }],
    [400, 190, undefined, { outcome: 'authorization_lost' }],
    [401, 190, 463, { outcome: 'authorization_lost' }],
    [403, 10, undefined, { outcome: 'authorization_lost' }],
    [403, 10, 2018065, { outcome: 'authorization_lost' }],
    [403, 200, undefined, { outcome: 'authorization_lost' }],
    [403, 250, undefined, { outcome: 'authorization_lost' }],
    [403, 299, undefined, { outcome: 'authorization_lost' }],
    [403, 230, undefined, { outcome: 'authorization_lost' }],
    [500, 1, undefined, { outcome: 'provider_unavailable' }],
    [400, 1, undefined, { outcome: 'provider_unavailable' }],
    [500, 2, undefined, { outcome: 'provider_unavailable' }],
    [400, 1200, undefined, { outcome: 'provider_unavailable' }],
  ] as const)('HTTP %i, code %i, subcode %s', (status, code, subcode, result) => {
    expect(instagramSendOutcome(graphError(status, code, subcode))).toEqual(result);
  });

  it('a 5xx with a Graph error body in no row: provider_unavailable (Meta failed, nothing went out)', () => {
    expect(instagramSendOutcome(graphError(500, 131000))).toEqual({ outcome: 'provider_unavailable' });
    expect(instagramSendOutcome(graphError(503, 100, 33))).toEqual({ outcome: 'provider_unavailable' });
    expect(instagramSendOutcome(graphError(502, undefined))).toEqual({ outcome: 'provider_unavailable' });
  });

  it("anything else is provider_rejected with Meta's message and code", () => {
    expect(instagramSendOutcome(graphError(400, 100, 2018109, 'Attachment size exceeds the allowable limit'))).toEqual({
      outcome: 'provider_rejected',
      providerMessage: 'Attachment size exceeds the allowable limit',
      providerCode: '100',
    });
    // Codes and subcodes beside the rows fall into none.
    for (const [code, subcode] of [
      [100, undefined],
      [100, 2534022],
      [3, undefined],
      [5, undefined],
      [199, undefined],
      [300, undefined],
      [550, undefined],
      [552, undefined],
      [612, undefined],
      [1201, undefined],
      [2534022, undefined],
    ] as const)
      expect(instagramSendOutcome(graphError(400, code, subcode, 'no')), `${code}/${subcode}`).toEqual({
        outcome: 'provider_rejected',
        providerMessage: 'no',
        providerCode: String(code),
      });
    expect(instagramSendOutcome(graphError(400, undefined, undefined, ''))).toEqual({
      outcome: 'provider_rejected',
      providerMessage: 'The channel refused the message.',
      providerCode: null,
    });
  });

  it('a window subcode only counts on code 10; code 10 without one is the lost authorization', () => {
    expect(instagramSendError({ code: 10, subcode: 2534022 })).toBe('window_closed');
    expect(instagramSendError({ code: 10, subcode: undefined })).toBe('authorization_lost');
    expect(instagramSendError({ code: 190, subcode: 2534022 })).toBe('authorization_lost');
    expect(instagramSendError({ code: undefined, subcode: 2534022 })).toBeUndefined();
  });

  it('a timeout or a reset after the request was written: outcome_unknown, providerAccepted false', () => {
    expect(instagramSendOutcome({ kind: 'lost', reason: 'timeout' })).toEqual(unknown);
    expect(instagramSendOutcome({ kind: 'lost', reason: 'reset' })).toEqual(unknown);
  });

  it('no connection made (nothing written): provider_unavailable', () => {
    expect(instagramSendOutcome({ kind: 'not_connected', reason: 'ECONNREFUSED' })).toEqual({
      outcome: 'provider_unavailable',
    });
  });

  it('an answer without a Graph error (a proxy, no JSON, a 2xx without message_id): outcome_unknown', () => {
    const notJson: GraphAnswer = { kind: 'answered', status: 502, body: { json: false, reason: 'not_json' } };
    expect(instagramSendOutcome(notJson)).toEqual(unknown);
    expect(instagramSendOutcome({ kind: 'answered', status: 400, body: { json: true, value: 'Bad' } })).toEqual(
      unknown,
    );
    expect(instagramSendOutcome({ kind: 'answered', status: 200, body: { json: true, value: {} } })).toEqual(unknown);
    expect(instagramSendOutcome({ kind: 'answered', status: 413, body: { json: false, reason: 'too_large' } })).toEqual(
      unknown,
    );
  });
});
