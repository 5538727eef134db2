// The Graph API routes the fake serves, under any version (`/v23.0/…`): the phone number, the WABA's templates
// (paged), messages (Meta's checks, then the usual answer or the one a test arranged), media upload, read and
// delete, and the media download URL; an Instagram account's paths and `me` go to instagram.ts. Every route checks
// the Bearer token (or `access_token`) against the owner.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { checkMessage } from './checks.js';
import { graphError, unknownObject, type GraphAnswer } from './graph-errors.js';
import { sendAnswer } from './http.js';
import { handleInstagram, instagramTarget } from './instagram.js';
import { checkUpload, parseUpload, type StoredMedia } from './media.js';
import { play } from './play.js';
import { trimSlashes } from './scripts.js';
import type { FakeState } from './state.js';
import { listTemplates } from './templates.js';
import type { FakeNumber, ScriptedAnswer } from './types.js';
import { digitsOf } from './webhooks.js';

export interface GraphRequest {
  req: IncomingMessage;
  res: ServerResponse;
  version: string;
  objectId: string;
  edge: string | undefined;
  url: URL;
  raw: Buffer;
}

/** The object a path names, and the numbers whose token may read it. */
type Owner =
  | { kind: 'number'; number: FakeNumber }
  | { kind: 'waba'; numbers: FakeNumber[] }
  | { kind: 'media'; media: StoredMedia; number: FakeNumber };

/** `/v23.0/{id}` or `/v23.0/{id}/{edge}`, or undefined for any other path. */
export function graphPath(pathname: string): { version: string; objectId: string; edge?: string } | undefined {
  const [version, objectId, edge, ...rest] = pathname.split('/').filter(Boolean);
  if (!version || !/^v\d{1,3}\.\d{1,2}$/.test(version) || !objectId || rest.length > 0) return undefined;
  return { version, objectId, edge };
}

/** The token: `Authorization: Bearer …`, or the `access_token` parameter (Meta takes both). */
export function tokenOf(req: IncomingMessage, url: URL): string | undefined {
  const header = req.headers.authorization ?? '';
  if (header.toLowerCase().startsWith('bearer ')) return header.slice(7).trim();
  return url.searchParams.get('access_token') ?? undefined;
}

function ownerOf(state: FakeState, id: string): Owner | undefined {
  const number = state.number(id);
  if (number) return { kind: 'number', number };
  const numbers = state.numbersOfWaba(id);
  if (numbers.length > 0) return { kind: 'waba', numbers };
  const media = state.media.get(id);
  const mediaNumber = media && state.number(media.phoneNumberId);
  return media && mediaNumber ? { kind: 'media', media, number: mediaNumber } : undefined;
}

const numbersOf = (owner: Owner): FakeNumber[] => (owner.kind === 'waba' ? owner.numbers : [owner.number]);

/** Meta's 401 for a missing, malformed or revoked token. */
export const badToken = (): GraphAnswer => graphError({ code: 190 });

/** Answers a Graph API request. */
export async function handleGraph(state: FakeState, request: GraphRequest): Promise<void> {
  const { req, res, objectId, edge } = request;
  const token = tokenOf(req, request.url);
  const owner = ownerOf(state, objectId);
  if (token === undefined || token === '') return sendAnswer(res, badToken());
  // An Instagram account's (or its Page's) path, or `me`: Instagram's routes (instagram.ts).
  const instagram = instagramTarget(state, objectId, token);
  if (instagram === 'bad_token') return sendAnswer(res, badToken());
  if (instagram === 'not_visible') return sendAnswer(res, unknownObject(objectId, req.method));
  if (instagram) return handleInstagram(state, request, instagram);
  if (!owner || !numbersOf(owner).some((n) => n.accessToken === token))
    return sendAnswer(res, state.tokenKnown(token) ? unknownObject(objectId, req.method) : badToken());
  const arranged = state.scripts.takePath(trimSlashes(`${objectId}/${edge ?? ''}`));
  return arranged ? playOnPath(state, request, owner, arranged) : route(state, request, owner);
}

/** An answer arranged for the path: `accept` and a delay's end lead to the route's own answer. */
function playOnPath(
  state: FakeState,
  request: GraphRequest,
  owner: Owner,
  arranged: ScriptedAnswer,
): Promise<void> | void {
  if (arranged.kind === 'accept') return route(state, request, owner);
  if (arranged.kind === 'delay') {
    const then = arranged.then;
    return state.later(arranged.ms, () =>
      then ? playOnPath(state, request, owner, then) : route(state, request, owner),
    );
  }
  return play(state, request.res, arranged, () => ({ answer: { status: 200, body: { success: true } } }));
}

async function route(state: FakeState, request: GraphRequest, owner: Owner): Promise<void> {
  const { req, res, objectId, edge } = request;
  const method = req.method ?? 'GET';
  const key = `${method} ${owner.kind}${edge === undefined ? '' : `/${edge}`}`;
  if (owner.kind === 'number' && key === 'GET number') return sendAnswer(res, phoneNumber(owner.number, request.url));
  if (owner.kind === 'number' && key === 'POST number/messages') return postMessage(state, owner.number, request);
  if (owner.kind === 'number' && key === 'POST number/media')
    return sendAnswer(res, await upload(state, owner.number, request));
  if (owner.kind === 'waba' && key === 'GET waba/message_templates')
    return sendAnswer(res, listTemplates(state, owner.numbers, request));
  if (owner.kind === 'media' && key === 'GET media')
    return sendAnswer(res, { status: 200, body: state.media.describe(owner.media, state.baseUrl) });
  if (owner.kind === 'media' && key === 'DELETE media') {
    state.media.delete(owner.media.id);
    return sendAnswer(res, { status: 200, body: { success: true } });
  }
  return sendAnswer(res, unknownObject(objectId, method));
}

const PHONE_FIELDS = [
  'verified_name',
  'display_phone_number',
  'quality_rating',
  'code_verification_status',
  'platform_type',
  'throughput',
  'id',
];

/** `GET /{phone_number_id}`: the fields asked (`?fields=…`, all when absent) and the id. */
function phoneNumber(number: FakeNumber, url: URL): GraphAnswer {
  const all: Record<string, unknown> = {
    verified_name: number.verifiedName,
    display_phone_number: number.displayPhoneNumber,
    quality_rating: 'GREEN',
    code_verification_status: 'VERIFIED',
    platform_type: 'CLOUD_API',
    throughput: { level: 'STANDARD' },
    id: number.phoneNumberId,
  };
  const asked = (url.searchParams.get('fields') ?? '')
    .split(',')
    .map((f) => f.trim())
    .filter(Boolean);
  const unknown = asked.find((field) => !PHONE_FIELDS.includes(field));
  if (unknown)
    return graphError({
      code: 100,
      message: `(#100) Tried accessing nonexisting field (${unknown}) on node type (WhatsAppBusinessPhoneNumber)`,
    });
  if (asked.length === 0) return { status: 200, body: all };
  return { status: 200, body: Object.fromEntries([...asked, 'id'].map((field) => [field, all[field]])) };
}

/** `POST /{phone_number_id}/messages`: Meta's checks, then a read receipt's success or a send's answer. */
function postMessage(state: FakeState, number: FakeNumber, request: GraphRequest): void {
  let body: unknown;
  try {
    body = JSON.parse(request.raw.toString('utf8'));
  } catch {
    body = undefined;
  }
  const checked = checkMessage(body, {
    templates: state.templatesOfWaba(number.wabaId),
    hasMedia: (id) => state.media.ownedBy(number.phoneNumberId, id),
  });
  if ('error' in checked) return sendAnswer(request.res, checked.error);
  const ok = checked.ok;
  if (ok.kind === 'read') {
    state.reads.push({ phoneNumberId: number.phoneNumberId, messageId: ok.messageId, at: new Date() });
    return sendAnswer(request.res, { status: 200, body: { success: true } });
  }
  play(state, request.res, state.scripts.takeRecipient(ok.to), () => {
    const message = state.accept(number, ok.to, ok.type, ok.body);
    const sent: Record<string, unknown> = { id: message.id };
    if (ok.type === 'template') sent.message_status = 'accepted';
    const answer = {
      status: 200,
      body: { messaging_product: 'whatsapp', contacts: [{ input: ok.to, wa_id: digitsOf(ok.to) }], messages: [sent] },
    };
    return { answer, accepted: { message, number } };
  });
}

/** `POST /{phone_number_id}/media` (multipart: messaging_product, type, file): the new media's id. */
async function upload(state: FakeState, number: FakeNumber, request: GraphRequest): Promise<GraphAnswer> {
  const parsed = await parseUpload(request.raw, request.req.headers['content-type'] ?? '');
  const checked = checkUpload(parsed);
  if ('status' in checked) return checked;
  const media = state.media.add({
    phoneNumberId: number.phoneNumberId,
    bytes: checked.file.bytes,
    mimeType: checked.type,
    fileName: checked.file.name,
  });
  return { status: 200, body: { id: media.id } };
}

/** The media URL `GET /{media-id}` gave: the bytes, to the owner's token only (401 without it, 404 once expired). */
export function download(state: FakeState, req: IncomingMessage, url: URL, res: ServerResponse): void {
  const media = state.media.fromUrl(url.searchParams);
  if (!media) {
    res.writeHead(404, { 'content-type': 'text/plain' });
    res.end('URL signature mismatch or expired');
    return;
  }
  const owner = state.number(media.phoneNumberId);
  if (!owner || tokenOf(req, url) !== owner.accessToken) return sendAnswer(res, badToken());
  res.writeHead(200, { 'content-type': media.mimeType, 'content-length': media.bytes.length });
  res.end(media.bytes);
}
