// Instagram Messaging behind the channel interface (issue 36): deliver (upload the media when the service's own
// address is not public, then send), fetch a contact's attachment from the CDN address Meta gave. Meta's answers
// become the seeds' outcomes through the one table (./errors.ts); the plan is docs/decisions.md "Instagram
// Messaging (issue 36)".
//
// - Two hosts: an account attached with Instagram Login is called on graph.instagram.com
//   (INSTAGRAM_GRAPH_BASE_URL) by its Instagram id; one attached with Facebook Login on graph.facebook.com
//   (GRAPH_API_BASE_URL) by its Page's id, with the Page token.
// - Credentials, outbound media bytes and the addresses Meta can fetch a media at come through ports the domain
//   implements: this room reads no store.
// - A message: `POST /{ig_user_id | page_id}/messages`. Its media goes by an address Meta fetches when the domain
//   has one (a link the client gave, or a signed download link on a public PUBLIC_BASE_URL), else uploaded first
//   (`POST …/message_attachments`, multipart `filedata`) and sent by the `attachment_id`. A card's image goes by
//   address only: without one the send is refused (`provider_rejected`, saying why) before Meta is called; so is a
//   card with its title alone, which Meta refuses.
// - A public reply under a comment (`replyTo.kind` `comment_public_reply`): `POST /{comment_id}/replies` with
//   `message`, on the account's host; Meta answers the new comment's `id`.
// - Retries: only a call that never connected is sent again, once. A send's answer goes through the one table
//   (./errors.ts); an upload that fails without Meta's error body (lost, not JSON, no id) is `provider_unavailable`:
//   no message went out.
// - The access token is never in a log line, an error or a result.
import type { Logger } from 'pino';
import { isRecord } from '../../guards.js';
import { graphErrorOf, type GraphAnswer, type GraphBody, type GraphClient } from '../graph/client.js';
import type {
  ChannelConnection,
  ChannelDelivery,
  ChannelProvider,
  DeliveryResult,
  InboundMedia,
  OutboundContent,
} from '../provider.js';
import { MEDIA_TOTAL_TIMEOUT_MS, type OutboundMediaSource } from '../whatsapp-cloud/provider.js';
import { EncodeError, encodeMessage, mediaToSend, type InstagramMediaRef } from './encode.js';
import { instagramSendOutcome } from './errors.js';

/** An attached account's credentials, as the domain opens them for one call. */
export interface InstagramAccountCredentials {
  login: 'instagram' | 'facebook';
  igUserId: string;
  /** Facebook Login: the Page sends go through; null with Instagram Login. */
  pageId: string | null;
  accessToken: string;
}

/** An account's credentials, kept sealed by the domain; undefined: none attached (read in the send's session). */
export interface InstagramCredentials<Session = unknown> {
  credentialsFor(connectionId: string, session?: Session): Promise<InstagramAccountCredentials | undefined>;
}

/**
 * Where Meta can fetch a media of the account at `now`: an http(s) address reachable from the internet, or
 * undefined when the service has none for it (PUBLIC_BASE_URL unset, loopback or private): then it is uploaded.
 */
export interface MediaAddresses<Session = unknown> {
  addressOf(accountId: string, mediaId: string, now: Date, session?: Session): Promise<string | undefined>;
}

export interface InstagramProviderOptions<Session = unknown> {
  /** graph.instagram.com (INSTAGRAM_GRAPH_BASE_URL): accounts attached with Instagram Login. */
  instagramGraph: GraphClient;
  /** graph.facebook.com (GRAPH_API_BASE_URL): accounts attached with Facebook Login, and the CDN downloads. */
  facebookGraph: GraphClient;
  credentials: InstagramCredentials<Session>;
  media: OutboundMediaSource<Session>;
  /** Absent: no media has an address Meta can fetch (every media is uploaded, and cards with images refused). */
  addresses?: MediaAddresses<Session>;
  logger: Pick<Logger, 'error' | 'warn'>;
  mediaTimeoutMs?: number;
  /**
   * INSTAGRAM_CDN_BASE_URL (tests, local play): an attachment's URL is fetched from this origin, its path and query
   * kept; absent: from the URL Meta sent.
   */
  cdnBaseUrl?: string;
}

/** The host and the object an account's calls go to, and its token. */
interface Sender {
  graph: GraphClient;
  node: string;
  token: string;
}

const isSuccess = (status: number) => status >= 200 && status <= 299;

/** Sends again once when the first call never connected (nothing was written). */
async function withConnectRetry(call: () => Promise<GraphAnswer>): Promise<GraphAnswer> {
  const first = await call();
  return first.kind === 'not_connected' ? call() : first;
}

/** A string field of a JSON answer (`message_id`, `attachment_id`, `id`), or undefined. */
function answerField(body: GraphBody, field: string): string | undefined {
  if (!body.json || !isRecord(body.value)) return undefined;
  const value = body.value[field];
  return typeof value === 'string' && value !== '' ? value : undefined;
}

/** A few words on an answer that was not what a call wanted, for a log line (never the token). */
function describe(answer: GraphAnswer): string {
  switch (answer.kind) {
    case 'answered': {
      const error = graphErrorOf(answer.body);
      const meta = error ? `, code ${error.code ?? 'none'}/${error.subcode ?? '-'}: ${error.message ?? ''}` : '';
      return `HTTP ${answer.status}${answer.body.json ? '' : ` (${answer.body.reason})`}${meta}`;
    }
    case 'not_connected':
      return `no connection (${answer.reason})`;
    case 'lost':
      return `the answer was lost (${answer.reason})`;
  }
}

const rejected = (providerMessage: string): DeliveryResult => ({ outcome: 'provider_rejected', providerMessage });

/** Meta refuses a generic template element with its title alone (the encoder's rule, said before any call). */
function titleOnlyCard(content: OutboundContent): boolean {
  return content.attachments.some(
    (attachment) =>
      attachment.type === 'cards' &&
      attachment.cards.some((card) => !card.subtitle && !card.image && card.buttons.length === 0),
  );
}

export class InstagramProvider<Session> implements ChannelProvider<Session> {
  constructor(private readonly options: InstagramProviderOptions<Session>) {}

  /** Every send waits on Meta over the network: an automation's goes out after its stretch commits. */
  remote(): boolean {
    return true;
  }

  async deliver(session: Session, delivery: ChannelDelivery, now: Date): Promise<DeliveryResult> {
    const { connection, recipient, content, replyTo } = delivery;
    if (connection.channel !== 'instagram' || recipient.channel !== 'instagram')
      throw new Error(`the instagram provider got a ${connection.channel} connection`);
    const credentials = await this.options.credentials.credentialsFor(connection.id, session);
    if (!credentials) return { outcome: 'authorization_lost' };
    const sender = this.senderOf(credentials);
    if (replyTo?.kind === 'comment_public_reply') return this.publicReply(connection, sender, content, replyTo);
    if (replyTo?.kind !== 'comment_private_reply' && !recipient.userId) return { outcome: 'recipient_unavailable' };
    if (titleOnlyCard(content))
      return rejected('Instagram does not send a card with its title alone: add a subtitle, an image or a button.');

    const media = await this.mediaRefs(session, connection, sender, content, now);
    if (!(media instanceof Map)) return media;
    let body;
    try {
      body = encodeMessage(delivery, { media });
    } catch (error) {
      if (!(error instanceof EncodeError)) throw error;
      this.options.logger.error(
        { connection_id: connection.id, form: content.form, reason: error.message },
        'an instagram message could not be encoded: the send rules let through a form the encoder does not write',
      );
      return rejected('The message could not be written for instagram.');
    }
    const answer = await withConnectRetry(() =>
      sender.graph.call({ method: 'POST', segments: [sender.node, 'messages'], token: sender.token, json: body }),
    );
    if (answer.kind === 'answered' && isSuccess(answer.status)) {
      const providerMessageId = answerField(answer.body, 'message_id');
      if (providerMessageId) return { outcome: 'accepted', providerMessageId };
    }
    return this.outcomeOf(connection, answer);
  }

  /** Instagram Login: graph.instagram.com by the account's id; Facebook Login: graph.facebook.com by the Page's. */
  private senderOf(credentials: InstagramAccountCredentials): Sender {
    return credentials.login === 'facebook'
      ? {
          graph: this.options.facebookGraph,
          node: credentials.pageId ?? credentials.igUserId,
          token: credentials.accessToken,
        }
      : { graph: this.options.instagramGraph, node: credentials.igUserId, token: credentials.accessToken };
  }

  /** The send's outcome from Meta's answer (the one table), logged when it leaves the outcome open. */
  private outcomeOf(connection: ChannelConnection, answer: GraphAnswer): DeliveryResult {
    const result = instagramSendOutcome(answer);
    if (result.outcome === 'outcome_unknown' || result.outcome === 'provider_unavailable')
      this.options.logger.warn(
        { connection_id: connection.id, answer: describe(answer), outcome: result.outcome },
        'instagram did not take a send',
      );
    return result;
  }

  /**
   * How Meta gets each media of the message: its address, else (not a card image) its upload's id. A card image
   * without an address, or a failed upload, is the send's outcome instead.
   */
  private async mediaRefs(
    session: Session,
    connection: ChannelConnection,
    sender: Sender,
    content: OutboundContent,
    now: Date,
  ): Promise<Map<string, InstagramMediaRef> | DeliveryResult> {
    const refs = new Map<string, InstagramMediaRef>();
    const { attachments, cardImages } = mediaToSend(content);
    const addressOf = (mediaId: string) =>
      this.options.addresses?.addressOf(connection.accountId, mediaId, now, session) ?? Promise.resolve(undefined);
    for (const mediaId of cardImages) {
      const url = await addressOf(mediaId);
      if (url === undefined)
        return rejected(
          "Instagram reads a card's image from an address it can reach: set PUBLIC_BASE_URL to the service's public address.",
        );
      refs.set(mediaId, { url });
    }
    for (const mediaId of attachments) {
      const url = await addressOf(mediaId);
      if (url !== undefined) {
        refs.set(mediaId, { url });
        continue;
      }
      const attachment = content.attachments.find((a) => a.type !== 'cards' && a.media_id === mediaId);
      const type =
        attachment && attachment.type !== 'cards' && attachment.type !== 'sticker' ? attachment.type : 'file';
      const uploaded = await this.upload(session, connection, sender, mediaId, type);
      if (typeof uploaded !== 'string') return uploaded;
      refs.set(mediaId, { attachmentId: uploaded });
    }
    return refs;
  }

  /** Uploads one media (`POST …/message_attachments`): Meta's `attachment_id`, or the send's outcome. */
  private async upload(
    session: Session,
    connection: ChannelConnection,
    sender: Sender,
    mediaId: string,
    type: 'image' | 'video' | 'audio' | 'file',
  ): Promise<string | DeliveryResult> {
    let file: Awaited<ReturnType<OutboundMediaSource['read']>>;
    try {
      file = await this.options.media.read(connection.accountId, mediaId, session);
    } catch (error) {
      this.options.logger.warn({ err: error, media_id: mediaId }, 'a media could not be read for an instagram send');
      return rejected('The media could not be uploaded to instagram.');
    }
    const answer = await withConnectRetry(() =>
      sender.graph.upload({
        segments: [sender.node, 'message_attachments'],
        token: sender.token,
        fields: { message: JSON.stringify({ attachment: { type, payload: { is_reusable: false } } }) },
        file: {
          field: 'filedata',
          bytes: file.bytes,
          contentType: file.contentType,
          filename: file.filename ?? mediaId,
        },
        totalTimeoutMs: this.options.mediaTimeoutMs ?? MEDIA_TOTAL_TIMEOUT_MS,
      }),
    );
    if (answer.kind === 'answered' && isSuccess(answer.status)) {
      const id = answerField(answer.body, 'attachment_id');
      if (id) return id;
    }
    // No message went out whatever the upload's fate: an open outcome is Meta's failure to take the file.
    const result = instagramSendOutcome(answer);
    this.options.logger.warn(
      { connection_id: connection.id, media_id: mediaId, answer: describe(answer) },
      'instagram did not take a media upload',
    );
    return result.outcome === 'outcome_unknown' ? { outcome: 'provider_unavailable' } : result;
  }

  /** A public reply under a comment: `POST /{comment_id}/replies` with `message` (the reply's text). */
  private async publicReply(
    connection: ChannelConnection,
    sender: Sender,
    content: OutboundContent,
    replyTo: Extract<ChannelDelivery['replyTo'], { kind: 'comment_private_reply' | 'comment_public_reply' }>,
  ): Promise<DeliveryResult> {
    const commentId = replyTo.providerMessageId;
    if (!commentId) return { outcome: 'recipient_unavailable' };
    if (content.form !== 'text' || !content.text) return rejected('A public reply under a comment is text only.');
    const message = content.text;
    const answer = await withConnectRetry(() =>
      sender.graph.call({
        method: 'POST',
        segments: [commentId, 'replies'],
        token: sender.token,
        json: { message },
      }),
    );
    if (answer.kind === 'answered' && isSuccess(answer.status)) {
      const id = answerField(answer.body, 'id');
      if (id) return { outcome: 'accepted', providerMessageId: id };
    }
    return this.outcomeOf(connection, answer);
  }

  /**
   * A contact's attachment by the CDN address the webhook carried (`mediaId` is that address: Instagram gives no
   * media id). Signed addresses: no token is sent. With `cdnBaseUrl` the address's path and query go to that origin.
   */
  async fetchInboundMedia(_connection: ChannelConnection, mediaId: string): Promise<InboundMedia> {
    const answer = await this.options.facebookGraph.download({ url: cdnAddress(mediaId, this.options.cdnBaseUrl) });
    if (answer.kind !== 'downloaded')
      throw new Error(
        `the attachment could not be fetched (${answer.kind === 'answered' ? answer.status : answer.kind})`,
      );
    return { bytes: answer.bytes, contentType: answer.contentType, filename: null };
  }
}

/** The address an attachment is fetched from: Meta's, or its path and query on `cdnBaseUrl` (no trailing slash). */
export function cdnAddress(url: string, cdnBaseUrl: string | undefined): string {
  if (cdnBaseUrl === undefined) return url;
  const parsed = new URL(url);
  return `${cdnBaseUrl}${parsed.pathname}${parsed.search}`;
}
