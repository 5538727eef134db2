// What the WhatsApp Cloud provider (channels/whatsapp-cloud/provider.ts) reads of the service's own state,
// through the ports it was built with, since the channel room reaches neither the domain nor the store: a
// number's credentials (the token opened from its sealed form only for the call that needs it, never kept in
// the clear) and the bytes of a media the account sends (uploaded to Meta before the send).
import { isIP } from 'node:net';
import type { Kysely } from 'kysely';
import type { InstagramCredentials, MediaAddresses } from '../../channels/instagram/provider.js';
import type { OutboundMediaSource, WhatsAppCloudCredentials } from '../../channels/whatsapp-cloud/provider.js';
import { mediaKey, type MediaStorage } from '../../media/storage.js';
import { MEDIA_BYTES_LIMIT } from '../../channels/graph/client.js';
import { findConnectionProvider } from '../../store/channel-providers.js';
import { findMedia } from '../../store/media.js';
import { downloadLink } from '../../media/links.js';
import { classifyAddress } from '../../webhooks/targets.js';
import type { DB } from '../../store/schema.js';
import { openToken, type Keyring } from './credentials.js';

/** `session`: the send's own (its transaction's), else `db`. */
export function numberCredentials(db: Kysely<DB>, keyring: Keyring): WhatsAppCloudCredentials<Kysely<DB>> {
  return {
    async credentialsFor(connectionId, session) {
      const row = await findConnectionProvider(session ?? db, connectionId);
      if (!row || row.phone_number_id === null) return undefined;
      return { phoneNumberId: row.phone_number_id, accessToken: openToken(keyring, row.sealed_token, connectionId) };
    },
  };
}

/** An attached Instagram account's ids and token (opened for the one call), in the send's session. */
export function instagramCredentials(db: Kysely<DB>, keyring: Keyring): InstagramCredentials<Kysely<DB>> {
  return {
    async credentialsFor(connectionId, session) {
      const row = await findConnectionProvider(session ?? db, connectionId);
      if (!row || row.provider !== 'instagram_graph' || row.ig_user_id === null || row.login === null) return undefined;
      return {
        login: row.login,
        igUserId: row.ig_user_id,
        pageId: row.page_id,
        accessToken: openToken(keyring, row.sealed_token, connectionId),
      };
    },
  };
}

/** The media's bytes as stored; throws when they are not (a console upload, an address, an expired file). */
export function storedMediaSource(db: Kysely<DB>, storage: MediaStorage): OutboundMediaSource<Kysely<DB>> {
  return {
    async read(accountId, mediaId, session) {
      const media = await findMedia(session ?? db, accountId, mediaId);
      const file = media && (await storage.open(mediaKey(accountId, mediaId)));
      if (!media || !file) throw new Error(`media ${mediaId} has no stored bytes to upload`);
      const chunks: Buffer[] = [];
      let size = 0;
      for await (const chunk of file.stream) {
        const bytes = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
        size += bytes.length;
        if (size > MEDIA_BYTES_LIMIT) {
          file.stream.destroy();
          throw new Error(`media ${mediaId} is larger than the channel takes`);
        }
        chunks.push(bytes);
      }
      return {
        bytes: Buffer.concat(chunks),
        contentType: media.content_type ?? 'application/octet-stream',
        filename: media.filename,
      };
    },
  };
}

/**
 * Whether Meta can reach the service at `baseUrl` (PUBLIC_BASE_URL): http(s), and a host that is a name (not
 * `localhost` nor under `.localhost`, `.local`, `.internal`) or a public IP address. Loopback, private or unset: no.
 */
export function reachableFromInternet(baseUrl: string | undefined): boolean {
  if (!baseUrl) return false;
  let url: URL;
  try {
    url = new URL(baseUrl);
  } catch {
    return false;
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return false;
  const host = url.hostname.toLowerCase().replace(/^\[|\]$/g, '');
  if (host === 'localhost' || ['.localhost', '.local', '.internal'].some((end) => host.endsWith(end))) return false;
  return isIP(host) === 0 || classifyAddress(host) === 'public';
}

/**
 * The address Meta fetches a media of the account at (Instagram sends media and card images by address): a link
 * the client gave (`origin` `link`), else a signed download link (5 minutes) on `publicBaseUrl` when Meta can
 * reach it; undefined otherwise (the provider then uploads the bytes). Read in the send's session.
 */
export function mediaAddresses(db: Kysely<DB>, publicBaseUrl: string | undefined): MediaAddresses<Kysely<DB>> {
  const base = reachableFromInternet(publicBaseUrl) ? publicBaseUrl : undefined;
  return {
    async addressOf(accountId, mediaId, now, session) {
      const media = await findMedia(session ?? db, accountId, mediaId);
      if (!media) return undefined;
      if (media.origin === 'link' && media.source_url && /^https?:\/\//i.test(media.source_url))
        return media.source_url;
      if (base === undefined) return undefined;
      return downloadLink(session ?? db, { now: () => now }, base, media);
    },
  };
}
