// Meta's answers to an Instagram send, mapped to the seeds' outcomes: the one table of issue 36 §3, tested row by
// row (test/instagram-errors.test.ts). Pure: the provider takes a 2xx with `message_id` as accepted and hands
// every other answer of the Graph client (channels/graph/client.ts) here; what an outcome does to the message,
// the connection and the window is the domain's.
//
// - A Graph error body goes through the table (first matching row wins: code 10 with a window subcode before
//   code 10 alone); a code in no row is `provider_rejected` with Meta's message, or `provider_unavailable` when
//   Meta answered it with a 5xx (it failed on its side and says so: nothing went out, send again).
// - A timeout or a reset after the request was written is `outcome_unknown`, `providerAccepted` false, a video
//   send included: the seeds warn that a video may go out although Meta did not confirm, but nothing says Meta
//   accepted it, and if it went out its echo (`message.is_echo`, a `mid` we did not store) records it as the
//   account's message. So do an answer without a Graph error (a 5xx or 4xx from a proxy, a body not JSON, a 2xx
//   without `message_id`): the seeds' "unexplained refusal" that may have gone out.
// - A call that never connected (nothing was written, the client's retry spent) is `provider_unavailable`.
import { graphErrorOf, type GraphAnswer, type GraphError } from '../graph/client.js';
import type { DeliveryResult } from '../provider.js';

/** The outcomes a row of the table gives (each a DeliveryResult of its `outcome` alone). */
export type TableOutcome = Extract<
  DeliveryResult['outcome'],
  'window_closed' | 'recipient_unavailable' | 'provider_throttled' | 'authorization_lost' | 'provider_unavailable'
>;

export interface ErrorRow {
  /** Meta's `code`: one, or an inclusive range. */
  code: number | { from: number; to: number };
  /** Meta's `error_subcode`: one of these; absent, any subcode or none. */
  subcodes?: readonly number[];
  outcome: TableOutcome;
}

/** Issue 36 §3, in its order. */
export const INSTAGRAM_SEND_ERRORS: readonly ErrorRow[] = [
  // Outside the messaging window on Meta's clock (a private reply past its 7 days too).
  { code: 10, subcodes: [2534022, 2018278], outcome: 'window_closed' },
  // The user is not available (blocked the account, deactivated), or no user matches the id.
  { code: 551, outcome: 'recipient_unavailable' },
  { code: 100, subcodes: [2018001], outcome: 'recipient_unavailable' },
  // Rate limits: calls per hour (613), the app's (4), the page's (32).
  { code: 613, outcome: 'provider_throttled' },
  { code: 4, outcome: 'provider_throttled' },
  { code: 32, outcome: 'provider_throttled' },
  // The token, or a permission it needs, is gone: the connection is disconnected.
  { code: 190, outcome: 'authorization_lost' },
  { code: 10, outcome: 'authorization_lost' },
  { code: { from: 200, to: 299 }, outcome: 'authorization_lost' },
  { code: 230, outcome: 'authorization_lost' },
  // Meta's own failures (unknown error, service down, temporary send failure): nothing went out.
  { code: 1, outcome: 'provider_unavailable' },
  { code: 2, outcome: 'provider_unavailable' },
  { code: 1200, outcome: 'provider_unavailable' },
];

const codeMatches = (row: ErrorRow, code: number): boolean =>
  typeof row.code === 'number' ? row.code === code : code >= row.code.from && code <= row.code.to;

/** The table's outcome for Meta's error, or undefined when no row holds it (a plain refusal). */
export function instagramSendError(error: Pick<GraphError, 'code' | 'subcode'>): TableOutcome | undefined {
  const { code, subcode } = error;
  if (code === undefined) return undefined;
  const row = INSTAGRAM_SEND_ERRORS.find(
    (candidate) =>
      codeMatches(candidate, code) &&
      (candidate.subcodes === undefined || (subcode !== undefined && candidate.subcodes.includes(subcode))),
  );
  return row?.outcome;
}

const unknownOutcome: DeliveryResult = { outcome: 'outcome_unknown', providerAccepted: false, providerMessageId: null };

/** The outcome of a send Meta did not accept with a `message_id` (see the header). */
export function instagramSendOutcome(answer: GraphAnswer): DeliveryResult {
  switch (answer.kind) {
    case 'not_connected':
      return { outcome: 'provider_unavailable' };
    case 'lost':
      return unknownOutcome;
    case 'answered': {
      const error = graphErrorOf(answer.body);
      if (!error) return unknownOutcome;
      const outcome = instagramSendError(error);
      if (outcome) return { outcome };
      if (answer.status >= 500) return { outcome: 'provider_unavailable' };
      return {
        outcome: 'provider_rejected',
        providerMessage: error.message || 'The channel refused the message.',
        providerCode: error.code === undefined ? null : String(error.code),
      };
    }
  }
}
