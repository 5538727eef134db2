// The Instagram routes of the fake Graph API, for both hosts on one server (Instagram Login's `graph.instagram.com`
// and Facebook Login's `graph.facebook.com`: the server points INSTAGRAM_GRAPH_BASE_URL and GRAPH_API_BASE_URL at
// it). Every route checks the token against the account the path names (`me` is the token's own object: the
// instagram account under Instagram Login, the Page under Facebook Login); a bad token answers Meta's 190.
//   GET  /{v}/me?fields=user_id,username                         the account (Instagram Login token)
//   GET  /{v}/{page_id}?fields=instagram_business_account{username}   the Page's account (Page token)
//   POST /{v}/{ig_user_id | me | page_id}/subscribed_apps?subscribed_fields=…   the app subscribed
//   GET  /{v}/{ig_user_id | me | page_id}/subscribed_apps        what it is subscribed to
//   POST /{v}/{ig_user_id | me | page_id}/messages               a send (instagram-checks.ts), a private reply once
//   POST /{v}/{ig_user_id | me | page_id}/message_attachments    an upload (by URL, or multipart `filedata`)
//   POST /{v}/{comment_id}/replies   {message}                    a public reply under a comment (any id that is not
//                                                                 an account's, with an account's token: the fake
//                                                                 does not know every comment), answers the reply's id
// Arranged answers: per recipient (an IGSID or a comment id: `scriptInstagram`) and per path (`scriptPath`).
import type { ServerResponse } from 'node:http';
import { isOneOf, isRecord } from '../../../server/guards.js';
import { graphError, unknownObject, type GraphAnswer } from './graph-errors.js';
import type { GraphRequest } from './graph.js';
import { sendAnswer } from './http.js';
import { checkInstagramMessage, IG_MEDIA_TYPES, invalid } from './instagram-checks.js';
import { newIgId, newMid } from './instagram-webhooks.js';
import { play } from './play.js';
import { trimSlashes } from './scripts.js';
import type { FakeState } from './state.js';
import type { FakeInstagramAccount, ScriptedAnswer } from './types.js';

/** Meta's messages for the error table's codes on an Instagram send (Messenger's wording). */
const MESSAGES: Record<string, string> = {
  '1': 'An unknown error has occurred.',
  '2': 'An unexpected error has occurred. Please retry your request later.',
  '4': '(#4) Application request limit reached',
  '10': '(#10) Application does not have permission for this action',
  '10/2534022': '(#10) This message is sent outside of allowed window.',
  '10/2018278': '(#10) This message is sent outside of allowed window.',
  '32': '(#32) Page request limit reached',
  '100/2018001': '(#100) No matching user found',
  '190': 'Invalid OAuth access token - Cannot parse access token',
  '200': '(#200) Permissions error',
  '230': '(#230) Requires pages_messaging permission to manage the object',
  '551': "(#551) This person isn't available right now.",
  '613': '(#613) Calls to this api have exceeded the rate limit.',
  '1200': '(#1200) Temporary send message failure. Please try again later',
  '10900': 'Activity already replied to',
};

/** Meta's 5xx for its own failures (1, 2), else the usual status for the code. */
const STATUSES: Record<number, number> = { 1: 500, 2: 503 };

/** Meta's Instagram error answer for a code (and subcode): Messenger's message, no WhatsApp `error_data`. */
export function instagramError(input: {
  code: number;
  subcode?: number;
  message?: string;
  status?: number;
}): GraphAnswer {
  const { code, subcode } = input;
  const message =
    input.message ?? MESSAGES[`${code}/${subcode ?? ''}`] ?? MESSAGES[String(code)] ?? `(#${code}) Unknown error`;
  return graphError({ code, subcode, message, status: input.status ?? STATUSES[code], product: 'instagram' });
}

/** The fields an app subscribes an account to (Instagram's and a Page's messaging fields). */
export const SUBSCRIBABLE_FIELDS = [
  'messages',
  'messaging_postbacks',
  'message_reactions',
  'message_edit',
  'messaging_seen',
  'messaging_optins',
  'messaging_referral',
  'messaging_handover',
  'standby',
  'comments',
  'live_comments',
  'mentions',
  'story_insights',
  'feed',
] as const;

/** What a path names: the instagram account itself, its Page (Facebook Login), or a comment (its `replies`). */
type Target = { account: FakeInstagramAccount; node: 'account' | 'page' | 'comment' };

/** The Instagram account a request names, undefined when the path is none of Instagram's (WhatsApp's, then). */
export function instagramTarget(
  state: FakeState,
  objectId: string,
  token: string,
): Target | 'bad_token' | 'not_visible' | undefined {
  if (objectId === 'me') {
    const account = state.instagramAccounts.find((a) => a.accessToken === token);
    if (!account) return state.tokenKnown(token) ? undefined : 'bad_token';
    return { account, node: account.login === 'facebook' ? 'page' : 'account' };
  }
  const account = state.instagramAccount(objectId);
  if (!account) {
    // A digits-only id with an Instagram account's token: a comment of that account (only `replies` answers).
    const owner = /^\d{1,32}$/.test(objectId)
      ? state.instagramAccounts.find((a) => a.accessToken === token)
      : undefined;
    return owner && { account: owner, node: 'comment' };
  }
  if (account.accessToken !== token) return state.tokenKnown(token) ? 'not_visible' : 'bad_token';
  return { account, node: objectId === account.igUserId ? 'account' : 'page' };
}

/** Answers an Instagram request whose target was found (the token is the account's). */
export async function handleInstagram(state: FakeState, request: GraphRequest, target: Target): Promise<void> {
  const arranged = state.scripts.takePath(trimSlashes(`${request.objectId}/${request.edge ?? ''}`));
  return arranged ? playOnPath(state, request, target, arranged) : route(state, request, target);
}

/** An answer arranged for the path: `accept` and a delay's end lead to the route's own answer. */
function playOnPath(
  state: FakeState,
  request: GraphRequest,
  target: Target,
  arranged: ScriptedAnswer,
): Promise<void> | void {
  if (arranged.kind === 'accept') return route(state, request, target);
  if (arranged.kind === 'delay') {
    const then = arranged.then;
    return state.later(arranged.ms, () =>
      then ? playOnPath(state, request, target, then) : route(state, request, target),
    );
  }
  return playInstagram(state, request.res, arranged, () => ({ status: 200, body: { success: true } }));
}

/**
 * An arranged answer in Instagram's terms: a Meta error in Messenger's wording, a 200 without `message_id` (only
 * `recipient_id`), a delay then its `then`; the others as play.ts plays them (`fail_later` is a plain accept:
 * Instagram sends no failed status).
 */
function playInstagram(
  state: FakeState,
  res: ServerResponse,
  answer: ScriptedAnswer,
  usual: () => GraphAnswer,
  recipientId?: string,
): void {
  if (answer.kind === 'error') return sendAnswer(res, instagramError(answer));
  if (answer.kind === 'no_message_id')
    return sendAnswer(res, { status: 200, body: recipientId === undefined ? {} : { recipient_id: recipientId } });
  if (answer.kind === 'delay') {
    const then = answer.then;
    return state.later(answer.ms, () =>
      then ? playInstagram(state, res, then, usual, recipientId) : sendAnswer(res, usual()),
    );
  }
  play(state, res, answer, () => ({ answer: usual() }));
}

async function route(state: FakeState, request: GraphRequest, target: Target): Promise<void> {
  const { req, res, objectId, edge } = request;
  const method = req.method ?? 'GET';
  const key = `${method} ${edge ?? ''}`;
  if (target.node === 'comment')
    return sendAnswer(res, key === 'POST replies' ? publicReply(paramsOf(request)) : unknownObject(objectId, method));
  if (key === 'GET ')
    return sendAnswer(
      res,
      target.node === 'page' ? page(target.account, request.url) : user(target.account, request.url),
    );
  if (key === 'POST subscribed_apps') return sendAnswer(res, subscribe(target.account, paramsOf(request)));
  if (key === 'GET subscribed_apps')
    return sendAnswer(res, {
      status: 200,
      body: { data: [{ id: 'fake-app', name: 'Fake app', subscribed_fields: target.account.subscribedFields ?? [] }] },
    });
  if (key === 'POST messages') return send(state, request, target.account);
  if (key === 'POST message_attachments') return sendAnswer(res, await upload(state, request, target.account));
  return sendAnswer(res, unknownObject(objectId, method));
}

/** `POST /{comment_id}/replies`: `message`, a text of 1 to 2200 characters (Instagram's comment limit). */
function publicReply(params: Record<string, unknown>): GraphAnswer {
  const message = params.message;
  if (typeof message !== 'string' || message.trim() === '') return invalid('The parameter message is required');
  if ([...message].length > 2200) return invalid('Param message must be at most 2200 characters');
  return { status: 200, body: { id: newIgId() } };
}

/** The fields asked (`?fields=a,b{c,d}`): their top-level names, each with its nested part. */
function fieldsOf(url: URL): { name: string; nested: string[] }[] {
  const raw = url.searchParams.get('fields') ?? '';
  const fields: { name: string; nested: string[] }[] = [];
  for (const match of raw.matchAll(/([a-z_]+)(?:\{([^}]*)\})?/g)) {
    const name = match[1];
    if (name)
      fields.push({
        name,
        nested: (match[2] ?? '')
          .split(',')
          .map((f) => f.trim())
          .filter(Boolean),
      });
  }
  return fields;
}

const nonexisting = (field: string, node: string) =>
  graphError({
    code: 100,
    message: `(#100) Tried accessing nonexisting field (${field}) on node type (${node})`,
    product: 'instagram',
  });

/** `GET /me` (or `/{ig_user_id}`): the account's fields, `id` always (Meta's app-scoped id; here the account's). */
function user(account: FakeInstagramAccount, url: URL): GraphAnswer {
  const all: Record<string, unknown> = {
    user_id: account.igUserId,
    username: account.username,
    id: account.igUserId,
    account_type: 'BUSINESS',
  };
  const asked = fieldsOf(url);
  const unknown = asked.find((f) => !(f.name in all));
  if (unknown) return nonexisting(unknown.name, 'User');
  if (asked.length === 0) return { status: 200, body: { id: all.id } };
  return { status: 200, body: Object.fromEntries([...asked.map((f) => f.name), 'id'].map((f) => [f, all[f]])) };
}

/** `GET /{page_id}?fields=instagram_business_account{username}`: the Page and its linked account. */
function page(account: FakeInstagramAccount, url: URL): GraphAnswer {
  const pageId = account.pageId ?? account.igUserId;
  const body: Record<string, unknown> = {};
  for (const field of fieldsOf(url)) {
    if (field.name === 'name') body.name = `${account.username} (Page)`;
    else if (field.name === 'id') continue;
    else if (field.name === 'instagram_business_account') {
      const ig: Record<string, unknown> = {};
      for (const nested of field.nested) {
        if (nested === 'username') ig.username = account.username;
        else if (nested !== 'id') return nonexisting(nested, 'IGUser');
      }
      body.instagram_business_account = { ...ig, id: account.igUserId };
    } else return nonexisting(field.name, 'Page');
  }
  return { status: 200, body: { ...body, id: pageId } };
}

/** The parameters of a POST: the query's, then a JSON or form body's (Meta reads both). */
function paramsOf(request: GraphRequest): Record<string, unknown> {
  const params: Record<string, unknown> = Object.fromEntries(request.url.searchParams);
  const text = request.raw.toString('utf8');
  const type = request.req.headers['content-type'] ?? '';
  if (type.includes('application/x-www-form-urlencoded'))
    Object.assign(params, Object.fromEntries(new URLSearchParams(text)));
  else if (text !== '') {
    try {
      const parsed: unknown = JSON.parse(text);
      if (isRecord(parsed)) Object.assign(params, parsed);
    } catch {
      // Not JSON: the query's parameters only.
    }
  }
  return params;
}

/** `POST …/subscribed_apps`: `subscribed_fields` (a comma list or an array) of known fields. */
function subscribe(account: FakeInstagramAccount, params: Record<string, unknown>): GraphAnswer {
  const raw = params.subscribed_fields;
  const fields = Array.isArray(raw) ? raw : typeof raw === 'string' ? raw.split(',').map((f) => f.trim()) : [];
  if (fields.length === 0 || fields.some((f) => f === ''))
    return invalid('The parameter subscribed_fields is required');
  const wrong = fields.findIndex((f) => !isOneOf(SUBSCRIBABLE_FIELDS, f));
  if (wrong >= 0)
    return invalid(
      `Param subscribed_fields[${wrong}] must be one of {${SUBSCRIBABLE_FIELDS.join(', ')}} - got "${String(fields[wrong])}".`,
    );
  account.subscribedFields = fields.map(String);
  return { status: 200, body: { success: true } };
}

/** `POST …/messages`: Meta's checks, a private reply once per comment, then the arranged or the usual answer. */
function send(state: FakeState, request: GraphRequest, account: FakeInstagramAccount): void {
  let body: unknown;
  try {
    body = JSON.parse(request.raw.toString('utf8'));
  } catch {
    body = paramsOf(request);
  }
  const checked = checkInstagramMessage(
    body,
    (id) => state.instagramAttachments.get(id)?.igUserId === account.igUserId,
  );
  if ('error' in checked) return sendAnswer(request.res, checked.error);
  const ok = checked.ok;
  const commentId = 'comment_id' in ok.recipient ? ok.recipient.comment_id : undefined;
  if (commentId !== undefined && state.repliedComments.has(commentId))
    return sendAnswer(request.res, instagramError({ code: 10900 }));
  const scriptKey = 'id' in ok.recipient ? ok.recipient.id : ok.recipient.comment_id;
  const usual = (): GraphAnswer => {
    // The contact a private reply reaches: the comment's author when the fake sent the comment, else a new IGSID.
    const recipientId =
      'id' in ok.recipient ? ok.recipient.id : (state.commentAuthors.get(ok.recipient.comment_id) ?? newIgId());
    if (commentId !== undefined) state.repliedComments.add(commentId);
    const message = {
      id: newMid(account.igUserId),
      igUserId: account.igUserId,
      recipient: ok.recipient,
      recipientId,
      kind: ok.kind,
      body: ok.body,
      at: new Date(),
    };
    state.instagramSent.push(message);
    return { status: 200, body: { recipient_id: recipientId, message_id: message.id } };
  };
  const arranged = state.scripts.takeInstagram(scriptKey);
  if (arranged === undefined) return sendAnswer(request.res, usual());
  return playInstagram(state, request.res, arranged, usual, 'id' in ok.recipient ? ok.recipient.id : undefined);
}

/**
 * `POST …/message_attachments`: `message` (JSON, or a form field holding JSON) with `attachment {type, payload}`,
 * the payload's `url`, or a multipart `filedata`; answers `{attachment_id}`, good for sends from this account.
 */
async function upload(state: FakeState, request: GraphRequest, account: FakeInstagramAccount): Promise<GraphAnswer> {
  const type = request.req.headers['content-type'] ?? '';
  let params = paramsOf(request);
  let file: { name: string; type: string; size: number } | undefined;
  if (type.toLowerCase().startsWith('multipart/form-data')) {
    const form = await new Response(request.raw, { headers: { 'content-type': type } })
      .formData()
      .catch(() => undefined);
    if (!form) return invalid('The request must be multipart/form-data');
    params = { ...Object.fromEntries(request.url.searchParams) };
    for (const [key, value] of form.entries()) {
      if (typeof value === 'string') params[key] = value;
      else if (key === 'filedata') file = { name: value.name, type: value.type, size: value.size };
    }
  }
  let message = params.message;
  if (typeof message === 'string') {
    try {
      message = JSON.parse(message);
    } catch {
      return invalid('Param message must be JSON');
    }
  }
  const attachment = isRecord(message) ? message.attachment : undefined;
  if (!isRecord(attachment)) return invalid('The parameter message[attachment] is required');
  const kind = attachment.type;
  if (typeof kind !== 'string' || !IG_MEDIA_TYPES.some((t) => t === kind))
    return invalid('Param message[attachment][type] must be one of {image, video, audio, file}');
  const payload = isRecord(attachment.payload) ? attachment.payload : {};
  const url = typeof payload.url === 'string' ? payload.url : undefined;
  if ((url === undefined) === (file === undefined))
    return invalid('An attachment needs exactly one of message[attachment][payload][url] or filedata');
  if (url !== undefined && !/^https?:\/\//.test(url))
    return invalid('Param message[attachment][payload][url] must be a valid URL');
  if (file !== undefined && file.size === 0) return invalid('The parameter filedata is required');
  const id = newIgId();
  state.instagramAttachments.set(id, { id, igUserId: account.igUserId, type: kind, url, file });
  return { status: 200, body: { attachment_id: id } };
}
