// Meta's error codes for a WhatsApp Cloud API send, mapped to the seeds' outcomes: the one table of
// docs/decisions.md "The WhatsApp Cloud API (issue 35)", tested row by row (test/whatsapp-cloud-errors.test.ts).
// Pure: the provider reads Meta's error body and asks here; what an answer does to the message, the connection
// and the window is the domain's (the window's own answer, 131047, is the window module's `windowClosed`).

/** What a Graph error code means for the send that got it. */
export type GraphSendError =
  /** The conversation is outside the 24-hour window on Meta's clock: `template_required`. */
  | { kind: 'window_closed' }
  | { kind: 'recipient_unavailable' }
  | { kind: 'throttled' }
  /** A template the number cannot send as asked; `resync`: Meta no longer knows it, read the templates again. */
  | {
      kind: 'template';
      code: 'template_variables_mismatch' | 'template_not_found' | 'template_not_approved';
      resync: boolean;
    }
  /** The token or its permissions are gone: the connection is disconnected (`authorization_lost`). */
  | { kind: 'authorization_lost' }
  /** Meta refused the message. `ourDefect`: the request's shape was wrong, which is our encoder's bug (logged). */
  | { kind: 'rejected'; ourDefect: boolean };

const THROTTLED = new Set([4, 80007, 130429, 131056]);
const OUR_DEFECT = new Set([100, 131008, 131009, 131051]);
const AUTHORIZATION = new Set([0, 10, 190]);

/** Meta's permission errors: 200 to 299. */
const isPermissionError = (code: number) => code >= 200 && code <= 299;

/** The meaning of Meta's error `code` (undefined: an error body without one) for a send. */
export function graphSendError(code: number | undefined): GraphSendError {
  if (code === undefined) return { kind: 'rejected', ourDefect: false };
  if (code === 131047) return { kind: 'window_closed' };
  if (code === 131026) return { kind: 'recipient_unavailable' };
  if (THROTTLED.has(code)) return { kind: 'throttled' };
  if (code === 132000) return { kind: 'template', code: 'template_variables_mismatch', resync: false };
  if (code === 132001) return { kind: 'template', code: 'template_not_found', resync: true };
  if (code === 132015 || code === 132016) return { kind: 'template', code: 'template_not_approved', resync: false };
  if (AUTHORIZATION.has(code) || isPermissionError(code)) return { kind: 'authorization_lost' };
  if (OUR_DEFECT.has(code)) return { kind: 'rejected', ourDefect: true };
  // 131049 and 131050 (Meta's own limits on marketing messages) and every code not above.
  return { kind: 'rejected', ourDefect: false };
}
