// What the platform reads of a WhatsApp Cloud API number when it is attached, and again on a template sync: the
// number's display phone and verified name (`GET /{version}/{phone_number_id}`), and the WhatsApp Business
// Account's templates (`GET /{version}/{waba_id}/message_templates`, every page). A read answers what the Graph
// API said in three kinds the admin routes tell apart: the token was refused, the Graph API did not answer, or
// it refused the request for another reason.
import { isRecord } from '../../guards.js';
import { graphErrorOf, type GraphAnswer, type GraphClient } from '../graph/client.js';

/** Why a read failed. `unauthorized`: Meta's 190, 10 or a permission error (200–299). */
export type GraphReadFailure = { failure: 'unauthorized' | 'unavailable' | 'refused'; message: string };
export type GraphRead<T> = { ok: true; value: T } | ({ ok: false } & GraphReadFailure);

export interface NumberProfile {
  /** As Meta displays it (`+1 555-010-0001`). */
  displayPhoneNumber: string;
  verifiedName: string | null;
}

/** The Graph API reads of a number, with its token. */
export interface WhatsAppCloudAccountApi {
  readNumber(accessToken: string, phoneNumberId: string): Promise<GraphRead<NumberProfile>>;
  /** Every page of the account's templates, as Meta lists them (unchecked: the domain reads them). */
  readTemplates(accessToken: string, wabaId: string): Promise<GraphRead<unknown[]>>;
}

/** At most this many template pages are read (Meta's default page holds 25 templates; a WABA up to 6,000). */
export const MAX_TEMPLATE_PAGES = 100;

/** Meta's codes that mean the token cannot read the number (see errors.ts: the authorization row). */
const unauthorized = (code: number | undefined) =>
  code !== undefined && (code === 0 || code === 10 || code === 190 || (code >= 200 && code <= 299));

/** A read's failure from an answer that was not a 2xx JSON one (Instagram's account reads share it). */
export function failureOf(answer: GraphAnswer): GraphReadFailure {
  if (answer.kind === 'not_connected') return { failure: 'unavailable', message: `no connection (${answer.reason})` };
  if (answer.kind === 'lost') return { failure: 'unavailable', message: `the answer was lost (${answer.reason})` };
  const error = graphErrorOf(answer.body);
  if (answer.status >= 500 || !answer.body.json)
    return { failure: 'unavailable', message: `The Graph API answered ${answer.status}.` };
  const message = error?.message ?? `The Graph API answered ${answer.status}.`;
  return { failure: unauthorized(error?.code) || answer.status === 401 ? 'unauthorized' : 'refused', message };
}

/** A 2xx answer with a JSON body. */
export const okJson = (
  answer: GraphAnswer,
): answer is Extract<GraphAnswer, { kind: 'answered' }> & {
  body: { json: true; value: unknown };
} => answer.kind === 'answered' && answer.status >= 200 && answer.status <= 299 && answer.body.json;

/** The reads, over the Graph API client. */
export class GraphWhatsAppAccount implements WhatsAppCloudAccountApi {
  constructor(private readonly graph: GraphClient) {}

  async readNumber(accessToken: string, phoneNumberId: string): Promise<GraphRead<NumberProfile>> {
    const answer = await this.graph.call({
      method: 'GET',
      segments: [phoneNumberId],
      query: { fields: 'display_phone_number,verified_name' },
      token: accessToken,
    });
    if (!okJson(answer)) return { ok: false, ...failureOf(answer) };
    const body = answer.body.value;
    if (!isRecord(body) || typeof body.display_phone_number !== 'string')
      return { ok: false, failure: 'unavailable', message: 'The Graph API answered without display_phone_number.' };
    const verifiedName = typeof body.verified_name === 'string' ? body.verified_name : null;
    return { ok: true, value: { displayPhoneNumber: body.display_phone_number, verifiedName } };
  }

  /** Every page, following `paging.cursors.after` while Meta says there is a next page. */
  async readTemplates(accessToken: string, wabaId: string): Promise<GraphRead<unknown[]>> {
    const templates: unknown[] = [];
    let after: string | undefined;
    for (let page = 0; page < MAX_TEMPLATE_PAGES; page++) {
      const answer = await this.graph.call({
        method: 'GET',
        segments: [wabaId, 'message_templates'],
        query: after !== undefined ? { after } : {},
        token: accessToken,
      });
      if (!okJson(answer)) return { ok: false, ...failureOf(answer) };
      const body = answer.body.value;
      if (!isRecord(body) || !Array.isArray(body.data))
        return { ok: false, failure: 'unavailable', message: 'The Graph API answered without a data list.' };
      templates.push(...body.data);
      after = nextCursor(body.paging);
      if (after === undefined) return { ok: true, value: templates };
    }
    return { ok: false, failure: 'refused', message: `More than ${MAX_TEMPLATE_PAGES} pages of templates.` };
  }
}

/** The cursor of the next page: only when Meta gives a `next` link (the last page has a cursor but no link). */
function nextCursor(paging: unknown): string | undefined {
  if (!isRecord(paging) || typeof paging.next !== 'string' || !isRecord(paging.cursors)) return undefined;
  const after = paging.cursors.after;
  return typeof after === 'string' && after !== '' ? after : undefined;
}
