// What the platform reads of an Instagram professional account when it is attached, and the subscription of the
// app to the account's webhooks. Two logins, two hosts:
//
// - Instagram Login: the token is the account's own Instagram user token, on graph.instagram.com
//   (INSTAGRAM_GRAPH_BASE_URL): `GET /{version}/me?fields=user_id,username` (`user_id` is the account's Instagram
//   id, the one webhooks name; `id` is app-scoped), then `POST /{version}/{ig_user_id}/subscribed_apps`.
// - Facebook Login: the token is a Page token, on graph.facebook.com (GRAPH_API_BASE_URL):
//   `GET /{version}/{page_id}?fields=instagram_business_account{id,username}` (the Page's linked account), then
//   `POST /{version}/{page_id}/subscribed_apps`.
//
// A call answers in the kinds WhatsApp's reads do (whatsapp-cloud/account.ts): the token was refused, the Graph API
// did not answer, or it refused the request for another reason.
import { isRecord } from '../../guards.js';
import type { GraphClient } from '../graph/client.js';
import { failureOf, okJson, type GraphRead } from '../whatsapp-cloud/account.js';

/** The Instagram account a token reads: its Instagram id and its username (as Meta gives it). */
export interface InstagramIdentity {
  igUserId: string;
  username: string;
}

/** The Graph API calls of an account's attach, with its token. */
export interface InstagramAccountApi {
  /** Instagram Login: the account the token belongs to (graph.instagram.com). */
  readInstagramLogin(accessToken: string): Promise<GraphRead<InstagramIdentity>>;
  /** Facebook Login: the Page's linked Instagram account, null when the Page has none (graph.facebook.com). */
  readPageAccount(accessToken: string, pageId: string): Promise<GraphRead<InstagramIdentity | null>>;
  /** Instagram Login: subscribes the app to the account's webhook fields; answers the fields. */
  subscribeAccount(accessToken: string, igUserId: string): Promise<GraphRead<readonly string[]>>;
  /** Facebook Login: subscribes the app to the Page's webhook fields; answers the fields. */
  subscribePage(accessToken: string, pageId: string): Promise<GraphRead<readonly string[]>>;
}

/**
 * The fields an account attached with Instagram Login is subscribed to: direct messages and what happens to them
 * (taps, reactions, edits, reads), and the comments under its posts and lives.
 */
export const INSTAGRAM_SUBSCRIBED_FIELDS = [
  'messages',
  'messaging_postbacks',
  'message_reactions',
  'message_edit',
  'messaging_seen',
  'comments',
  'live_comments',
] as const;

/**
 * The fields a Page is subscribed to (Facebook Login). Meta sends an Instagram account's webhooks only when its
 * Page has the app subscribed (to any Page field); the Instagram fields themselves are the app's subscription to
 * the `instagram` object, made in the App Dashboard. The Page's messaging fields: no `feed`, whose changes (the
 * Page's own posts) the platform does not read.
 */
export const PAGE_SUBSCRIBED_FIELDS = [
  'messages',
  'messaging_postbacks',
  'message_reactions',
  'messaging_seen',
] as const;

/** Meta's ids are digits; a username is Instagram's (letters, digits, `.` and `_`, at most 30). */
const ID = /^[0-9]{1,32}$/;
const USERNAME = /^[A-Za-z0-9._]{1,30}$/;

/** The account an answer names (`user_id` or `id`, and `username`), undefined when it names none readable. */
function identityOf(value: unknown, idField: 'user_id' | 'id'): InstagramIdentity | undefined {
  if (!isRecord(value)) return undefined;
  const id = value[idField];
  const username = value.username;
  if (typeof id !== 'string' || !ID.test(id) || typeof username !== 'string' || !USERNAME.test(username))
    return undefined;
  return { igUserId: id, username };
}

/** The Graph API calls, over one client per host. */
export class GraphInstagramAccount implements InstagramAccountApi {
  constructor(
    private readonly hosts: {
      /** graph.instagram.com (INSTAGRAM_GRAPH_BASE_URL): Instagram Login's tokens. */
      instagram: GraphClient;
      /** graph.facebook.com (GRAPH_API_BASE_URL): Facebook Login's Page tokens. */
      facebook: GraphClient;
    },
  ) {}

  async readInstagramLogin(accessToken: string): Promise<GraphRead<InstagramIdentity>> {
    const answer = await this.hosts.instagram.call({
      method: 'GET',
      segments: ['me'],
      query: { fields: 'user_id,username' },
      token: accessToken,
    });
    if (!okJson(answer)) return { ok: false, ...failureOf(answer) };
    const identity = identityOf(answer.body.value, 'user_id');
    if (!identity)
      return { ok: false, failure: 'unavailable', message: 'The Graph API answered without user_id and username.' };
    return { ok: true, value: identity };
  }

  async readPageAccount(accessToken: string, pageId: string): Promise<GraphRead<InstagramIdentity | null>> {
    const answer = await this.hosts.facebook.call({
      method: 'GET',
      segments: [pageId],
      query: { fields: 'instagram_business_account{id,username}' },
      token: accessToken,
    });
    if (!okJson(answer)) return { ok: false, ...failureOf(answer) };
    const body = answer.body.value;
    if (!isRecord(body))
      return { ok: false, failure: 'unavailable', message: 'The Graph API answered without a Page.' };
    // Meta leaves the field out when the Page has no Instagram professional account linked.
    if (body.instagram_business_account === undefined || body.instagram_business_account === null)
      return { ok: true, value: null };
    const identity = identityOf(body.instagram_business_account, 'id');
    if (!identity)
      return {
        ok: false,
        failure: 'unavailable',
        message: "The Graph API answered without the Instagram account's id and username.",
      };
    return { ok: true, value: identity };
  }

  subscribeAccount(accessToken: string, igUserId: string): Promise<GraphRead<readonly string[]>> {
    return subscribe(this.hosts.instagram, accessToken, igUserId, INSTAGRAM_SUBSCRIBED_FIELDS);
  }

  subscribePage(accessToken: string, pageId: string): Promise<GraphRead<readonly string[]>> {
    return subscribe(this.hosts.facebook, accessToken, pageId, PAGE_SUBSCRIBED_FIELDS);
  }
}

/** `POST /{version}/{node}/subscribed_apps?subscribed_fields=…`: Meta answers `{success: true}`. */
async function subscribe(
  graph: GraphClient,
  accessToken: string,
  nodeId: string,
  fields: readonly string[],
): Promise<GraphRead<readonly string[]>> {
  const answer = await graph.call({
    method: 'POST',
    segments: [nodeId, 'subscribed_apps'],
    query: { subscribed_fields: fields.join(',') },
    token: accessToken,
  });
  if (!okJson(answer)) return { ok: false, ...failureOf(answer) };
  const body = answer.body.value;
  if (!isRecord(body) || body.success !== true)
    return { ok: false, failure: 'refused', message: 'The Graph API did not confirm the subscription.' };
  return { ok: true, value: fields };
}
