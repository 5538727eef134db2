// Meta's error bodies, as the Graph API answers them: `{error: {message, type, code, error_data, fbtrace_id}}`,
// the code's title in the message (`(#131009) Parameter value is not valid`), the HTTP status Meta uses for it.
import { randomBytes } from 'node:crypto';

/** An answer the fake sends: status and JSON body. */
export interface GraphAnswer {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

/** Meta's title for the codes the fake answers (the message is `(#code) title`, 190's is its own sentence). */
const TITLES: Record<number, string> = {
  0: 'AuthException',
  4: 'Application request limit reached',
  10: 'Application does not have permission for this action',
  100: 'Invalid parameter',
  190: 'Invalid OAuth access token - Cannot parse access token',
  200: 'Permissions error',
  80007: 'Rate limit issues',
  130429: 'Rate limit hit',
  131000: 'Something went wrong',
  131005: 'Access denied',
  131008: 'Required parameter is missing',
  131009: 'Parameter value is not valid',
  131026: 'Message undeliverable',
  131047: 'Re-engagement message',
  131049: 'This message was not delivered to maintain healthy ecosystem engagement.',
  131050: 'User has stopped marketing messages',
  131051: 'Unsupported message type',
  131052: 'Media download error',
  131053: 'Media upload error',
  131056: '(Business Account, Consumer Account) pair rate limit hit',
  132000: 'Number of parameters does not match the expected number of params',
  132001: 'Template name does not exist in the translation',
  132015: 'Template is Paused',
  132016: 'Template is Disabled',
};

/** Meta's details for the codes whose answer a test scripts without giving its own. */
const DETAILS: Record<number, string> = {
  131026: 'Message Undeliverable.',
  131047:
    'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
  130429: 'Cloud API message throughput has been reached.',
  131056: 'Too many messages sent from the sender phone number to the same recipient phone number in a short period.',
};

/** Meta's title for a code (the webhook's `errors[].title`), or a generic one. */
export const titleOf = (code: number): string => TITLES[code] ?? 'Something went wrong';

/** Meta's details for a code, or its title. */
export const detailsOf = (code: number): string => DETAILS[code] ?? titleOf(code);

/** The HTTP status Meta answers with a code: 401 for a bad token, 403 for a permission, else 400 (rate limits too). */
export function statusOf(code: number): number {
  if (code === 190 || code === 0) return 401;
  if (code === 10 || (code >= 200 && code <= 299)) return 403;
  return 400;
}

/** A trace id like Meta's (`AbC1dEfG2hI`). */
export const traceId = (): string => randomBytes(9).toString('base64url');

/** Meta's message for a code: `(#131009) Parameter value is not valid`; 190's is a sentence of its own. */
export const messageOf = (code: number): string => (code === 190 ? titleOf(190) : `(#${code}) ${titleOf(code)}`);

export interface GraphErrorInput {
  code: number;
  message?: string;
  details?: string;
  status?: number;
  subcode?: number;
  type?: string;
  /** Whose error: WhatsApp's carry `error_data` (the default); Instagram's (Messenger's) do not. */
  product?: 'whatsapp' | 'instagram';
}

/** Meta's error answer for a code: status, and the body with `error_data.details` and a trace id. */
export function graphError(input: GraphErrorInput): GraphAnswer {
  const { code } = input;
  const error: Record<string, unknown> = {
    message: input.message ?? messageOf(code),
    type: input.type ?? 'OAuthException',
    code,
  };
  if (input.subcode !== undefined) error.error_subcode = input.subcode;
  // A token error or an unknown object carries no `error_data`: it is the Graph API's, not WhatsApp's.
  if (code !== 190 && error.type === 'OAuthException' && input.product !== 'instagram')
    error.error_data = { messaging_product: 'whatsapp', details: input.details ?? detailsOf(code) };
  const fbtrace = traceId();
  error.fbtrace_id = fbtrace;
  const headers: Record<string, string> = { 'x-fb-trace-id': fbtrace };
  if (code === 190)
    headers['www-authenticate'] = 'OAuth "Facebook Platform" "invalid_token" "Invalid OAuth access token"';
  return { status: input.status ?? statusOf(code), body: { error }, headers };
}

/** A check of the request's shape failed: 100, 131008 (missing) or 131009 (not valid), with Meta's details. */
export const shapeError = (code: 100 | 131008 | 131009, details: string): GraphAnswer => graphError({ code, details });

/** The Graph API's answer for an id it does not know (or the token cannot see): 100, subcode 33. */
export const unknownObject = (id: string, method = 'GET'): GraphAnswer =>
  graphError({
    code: 100,
    subcode: 33,
    type: 'GraphMethodException',
    message: `Unsupported ${method.toLowerCase()} request. Object with ID '${id}' does not exist, cannot be loaded due to missing permissions, or does not support this operation. Please read the Graph API documentation at https://developers.facebook.com/docs/graph-api`,
  });
