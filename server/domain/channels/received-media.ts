// What both real channels' webhook appliers share (./whatsapp-apply.ts, ./instagram-apply.ts): their dependencies,
// and a contact's attachment fetched through the provider and stored as the platform's received media, or, when it
// cannot be fetched, stored as missing (a media whose content answers 410 media_expired): the message is never
// dropped for its media.
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Logger } from 'pino';
import type { Clock } from '../../clock.js';
import type { MediaStorage } from '../../media/storage.js';
import type { ConnectionRow } from '../../store/console.js';
import type { JobsAtCommit } from '../../store/jobs.js';
import { insertMedia } from '../../store/media.js';
import type { DB } from '../../store/schema.js';
import { channelConnection, type MessagingProvider } from '../messaging/delivery.js';
import { storeReceivedMedia } from '../messaging/media.js';

export interface WebhookApplyDeps {
  db: Kysely<DB>;
  clock: Clock;
  provider: MessagingProvider;
  storage: MediaStorage;
  logger: Logger;
  /**
   * This process's worker: a recorded message's `messaging.inbound` job (its triggers, its run's first stretch)
   * is claimed for it and runs as soon as the message commits, not at the loops' next claim.
   */
  jobs?: JobsAtCommit;
}

/** An attachment a webhook names, in the seeds' attachment types. */
export interface ReceivedMediaRef<Type extends string = string> {
  type: Type;
  /** What the provider fetches it by (WhatsApp's media id, Instagram's CDN URL); null: nothing to fetch (missing). */
  fetchKey: string | null;
  contentType: string | null;
  filename: string | null;
}

/** The attachment as the message stores it: the bytes fetched and stored, or a media marked missing. */
export async function receivedAttachment<Type extends string>(
  deps: WebhookApplyDeps,
  connection: ConnectionRow,
  media: ReceivedMediaRef<Type>,
) {
  const { db, clock, storage, provider } = deps;
  try {
    if (media.fetchKey === null) throw new Error('the channel gave no address for the media');
    if (!provider.fetchInboundMedia) throw new Error('the provider hands no media over');
    const fetched = await provider.fetchInboundMedia(channelConnection(connection), media.fetchKey);
    const row = await storeReceivedMedia(db, storage, clock, connection.account_id, {
      content_type: fetched.contentType ?? media.contentType ?? 'application/octet-stream',
      filename: media.filename ?? fetched.filename,
      bytes: Buffer.from(fetched.bytes),
    });
    return attachmentOf(media.type, row);
  } catch (error) {
    deps.logger.warn(
      { err: error, connection_id: connection.id, media: shownKey(media.fetchKey) },
      "a contact's media could not be fetched from the channel: the message is stored without it",
    );
    return attachmentOf(media.type, await missingMedia(db, clock.now(), connection.account_id, media));
  }
}

/** A media id as it is; a CDN address without its query (it carries the signature). */
function shownKey(key: string | null): string | null {
  if (key === null || !URL.canParse(key)) return key;
  const url = new URL(key);
  return `${url.origin}${url.pathname}`;
}

/** A received media whose bytes never arrived: known, and no longer stored (its content answers 410). */
async function missingMedia(db: Kysely<DB>, now: Date, accountId: string, media: ReceivedMediaRef) {
  const at = now.toISOString();
  return insertMedia(db, {
    id: randomUUID(),
    account_id: accountId,
    origin: 'received',
    content_type: media.contentType,
    filename: media.filename,
    size: null,
    upload_expires_at: null,
    uploaded_at: null,
    available_at: at,
    expires_at: at,
    created_at: at,
  });
}

function attachmentOf<Type extends string>(
  type: Type,
  row: {
    id: string;
    content_type: string | null;
    size: string | number | null;
    filename: string | null;
    expires_at: string | null;
  },
) {
  return {
    type,
    media_id: row.id,
    content_type: row.content_type,
    size: row.size === null ? null : Number(row.size),
    filename: row.filename,
    expires_at: row.expires_at,
  };
}
