// `GET /{waba_id}/message_templates`, paged as the Graph API pages: `limit` (a small default, so that a client
// must follow every page), `after` (the cursor of the last item read), an optional `status` filter, and
// `{data, paging: {cursors: {before, after}, next}}` with `next` (a full URL) on every page but the last.
import { createHash } from 'node:crypto';
import { graphError, type GraphAnswer } from './graph-errors.js';
import type { FakeState } from './state.js';
import type { FakeNumber, FakeTemplate } from './types.js';

/** A cursor like Meta's (opaque base64), naming an item's place in the list. */
const cursorAt = (index: number) => Buffer.from(`fake-cursor:${index}`).toString('base64url');

/** The place a cursor names, or undefined for one the fake never gave. */
function placeOf(cursor: string): number | undefined {
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  const match = /^fake-cursor:(\d{1,6})$/.exec(text);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

/** A template as Meta lists it (an id made from its name and language when it has none). */
export function listedTemplate(wabaId: string, template: FakeTemplate): Record<string, unknown> {
  const derived = createHash('sha256').update(`${wabaId}:${template.name}:${template.language}`).digest('hex');
  return {
    name: template.name,
    parameter_format: 'POSITIONAL',
    components: template.components,
    language: template.language,
    status: template.status,
    category: template.category,
    id: template.id ?? String(parseInt(derived.slice(0, 13), 16)),
  };
}

/** One page of the WABA's templates. */
export function listTemplates(
  state: FakeState,
  numbers: FakeNumber[],
  request: { url: URL; objectId: string },
): GraphAnswer {
  const query = request.url.searchParams;
  const wabaId = request.objectId;
  const limitText = query.get('limit');
  const limit = limitText === null ? state.templatePageSize : Number(limitText);
  if (!Number.isInteger(limit) || limit < 1 || limit > 1000)
    return graphError({ code: 100, details: 'Param limit must be an integer from 1 to 1000.' });
  const after = query.get('after');
  const afterPlace = after === null ? -1 : placeOf(after);
  if (afterPlace === undefined) return graphError({ code: 100, details: `Invalid cursor: ${after ?? ''}` });
  const wanted = query.get('status');
  const all = numbers.flatMap((n) => n.templates).filter((t) => wanted === null || t.status === wanted);
  const start = afterPlace + 1;
  const page = all.slice(start, start + limit);
  const data = page.map((t) => listedTemplate(wabaId, t));
  if (page.length === 0) return { status: 200, body: { data } };
  const last = start + page.length - 1;
  const paging: Record<string, unknown> = { cursors: { before: cursorAt(start), after: cursorAt(last) } };
  if (last < all.length - 1) {
    const next = new URL(`${state.baseUrl}${request.url.pathname}`);
    for (const [key, value] of query) next.searchParams.set(key, value);
    next.searchParams.set('limit', String(limit));
    next.searchParams.set('after', cursorAt(last));
    paging.next = next.toString();
  }
  return { status: 200, body: { data, paging } };
}
