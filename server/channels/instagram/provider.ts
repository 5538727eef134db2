// Instagram Messaging behind the channel interface (issue 36): deliver (upload the media when the service's own
// address is not public, then send), fetch a contact's attachment from the CDN address Meta gave. Meta's answers
// become the seeds' outcomes through the one table (./errors.ts); the plan is docs/decisions.md "Instagram
// Messaging (issue 36)".
//
// - Two hosts: an account attached with Instagram Login is called on graph.instagram.com
//   (INSTAGRAM_GRAPH_BASE_URL) by its Instagram id; one attached with Facebook Login on graph.facebook.com
//   (GRAPH_API_BASE_URL) by its Page's id, with the Page token.
// - Credentials and outbound media bytes come through ports the domain implements: this room reads no store.
// - The access token is never in a log line, an error or a result.
import type { Logger } from 'pino';
import type { GraphClient } from '../graph/client.js';
import type { ChannelConnection, ChannelDelivery, ChannelProvider, DeliveryResult, InboundMedia } from '../provider.js';
import type { OutboundMediaSource } from '../whatsapp-cloud/provider.js';

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

export interface InstagramProviderOptions<Session = unknown> {
  /** graph.instagram.com (INSTAGRAM_GRAPH_BASE_URL): accounts attached with Instagram Login. */
  instagramGraph: GraphClient;
  /** graph.facebook.com (GRAPH_API_BASE_URL): accounts attached with Facebook Login, and the CDN downloads. */
  facebookGraph: GraphClient;
  credentials: InstagramCredentials<Session>;
  media: OutboundMediaSource<Session>;
  logger: Pick<Logger, 'error' | 'warn'>;
  /**
   * INSTAGRAM_CDN_BASE_URL (tests, local play): an attachment's URL is fetched from this origin, its path and query
   * kept; absent: from the URL Meta sent.
   */
  cdnBaseUrl?: string;
}

export class InstagramProvider<Session> implements ChannelProvider<Session> {
  constructor(private readonly options: InstagramProviderOptions<Session>) {}

  /** Every send waits on Meta over the network: an automation's goes out after its stretch commits. */
  remote(): boolean {
    return true;
  }

  deliver(_session: Session, delivery: ChannelDelivery, _now: Date): Promise<DeliveryResult> {
    // The sends are the next slice's (issue 36, slice 5).
    return Promise.reject(new Error(`instagram sends are not built yet (connection ${delivery.connection.id})`));
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
