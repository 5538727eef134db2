// Media (Part A): created with POST /v1/media and uploaded to a pre-signed link, or received with a contact's
// message; read through GET /v1/media/{mediaId}/content, which redirects to a pre-signed download link.
//
// - Uploaded media: the upload window is 5 minutes from creation; a repeat upload inside it replaces the file.
//   Never uploaded → 404 on content, `media_not_uploaded` at send. Kept as long as the account exists.
// - Received media: stored when the message arrives, readable 3 seconds later (404 until then, "still being
//   stored"), kept 90 days (`410 media_expired` after).
// - Sent by an automation (Part B): a console upload becomes a media of origin `console` with the upload's id
//   (the console keeps the file: the sandbox's stand-in console keeps none, so its content answers 404), and a
//   `media_url` a media of origin `link` whose content redirects to that address.
// - The bytes live in the media storage (server/media/storage.ts); when it does not answer, 503
//   `service_unavailable`. A file the database knows but the storage no longer has is "no longer stored" (410).
import { mediaFamily, type MediaInfo, type MediaType } from './send-rules.js';
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { SchemaMedia } from '../../../generated/api.js';
import type { Clock } from '../../clock.js';
import { ApiError, notFound } from '../../errors.js';
import { hasCome, isMediaExpired } from '../../media/expiry.js';
import { downloadLink, uploadLink } from '../../media/links.js';
import { mediaKey, type MediaStorage } from '../../media/storage.js';
import mime from 'mime-types';
import { findUpload } from '../../store/console.js';
import { findMedia, insertMedia, insertMediaIfAbsent, type MediaRow } from '../../store/media.js';
import type { DB } from '../../store/schema.js';
import { isUuid } from '../../ids.js';

/** How long after creation the file can be uploaded. */
export const UPLOAD_WINDOW_MS = 5 * 60_000;
/** How long a received media answers 404 "still being stored". */
export const RECEIVED_MEDIA_STORING_MS = 3_000;
/** How long a received media is kept. */
export const RECEIVED_MEDIA_RETENTION_MS = 90 * 24 * 60 * 60_000;

export const mediaExpired = () => new ApiError(410, 'media_expired', 'This media is no longer stored.');
export const mediaStorageUnavailable = () =>
  new ApiError(503, 'service_unavailable', 'Media storage did not answer. Nothing ran; retry.');

const mediaNotFound = () => notFound('No such media.');
/** The column is a uuid: anything else names no media (and must not reach SQL, which would refuse it). */
const findMediaById = (db: Kysely<DB>, accountId: string, mediaId: string) =>
  isUuid(mediaId) ? findMedia(db, accountId, mediaId) : Promise.resolve(undefined);

/** POST /v1/media: a media waiting for its file, and where to upload it. */
export async function createMedia(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  input: { content_type: string; filename?: string | null | undefined },
  baseUrl: string,
): Promise<SchemaMedia> {
  const now = clock.now();
  const uploadExpiresAt = new Date(now.getTime() + UPLOAD_WINDOW_MS);
  const row = await insertMedia(db, {
    id: randomUUID(),
    account_id: accountId,
    origin: 'upload',
    content_type: input.content_type,
    filename: input.filename ?? null,
    size: null,
    upload_expires_at: uploadExpiresAt.toISOString(),
    uploaded_at: null,
    available_at: null,
    expires_at: null,
    created_at: now.toISOString(),
  });
  return {
    id: row.id,
    content_type: row.content_type ?? input.content_type,
    filename: row.filename,
    upload_url: await uploadLink(db, clock, baseUrl, row, uploadExpiresAt),
    upload_expires_at: row.upload_expires_at ?? uploadExpiresAt.toISOString(), // set by the insert above
    created_at: row.created_at,
  };
}

/**
 * GET /v1/media/{mediaId}/content: the download link (valid 5 minutes) the route redirects to.
 * 404 unknown, another account's, never uploaded or still being stored; 410 `media_expired` after retention
 * (or when the storage lost the file); 503 `service_unavailable` when the storage does not answer.
 */
export async function mediaContentLink(
  db: Kysely<DB>,
  storage: MediaStorage,
  clock: Clock,
  accountId: string,
  mediaId: string,
  baseUrl: string,
): Promise<string> {
  const media = await findMediaById(db, accountId, mediaId);
  if (!media) throw mediaNotFound();
  const now = clock.now();
  if (media.origin === 'link' && media.source_url) return media.source_url;
  if (media.origin === 'upload' && media.uploaded_at === null)
    throw notFound('This media has no file: nothing was uploaded to its upload_url.');
  if (media.origin === 'received' && (media.available_at === null || !hasCome(media.available_at, now)))
    throw notFound('This media is not available yet. Retry in a few seconds.');
  if (isMediaExpired(media, now)) throw mediaExpired();
  let stored: boolean;
  try {
    stored = await storage.exists(mediaKey(accountId, mediaId));
  } catch {
    throw mediaStorageUnavailable();
  }
  if (!stored && media.origin === 'console')
    throw notFound('This file was uploaded in the console, which keeps it: its content is not served here.');
  if (!stored) throw mediaExpired();
  return downloadLink(db, clock, baseUrl, media);
}

/**
 * A media that arrived with a contact's message: the bytes go to the storage first (a row never names a
 * missing file), then the row, readable 3 seconds from now and kept 90 days. Throws what the storage throws.
 */
export async function storeReceivedMedia(
  db: Kysely<DB>,
  storage: MediaStorage,
  clock: Clock,
  accountId: string,
  input: { content_type: string; filename?: string | null | undefined; bytes: Buffer },
): Promise<MediaRow> {
  const id = randomUUID();
  const { size } = await storage.put(mediaKey(accountId, id), input.bytes);
  const now = clock.now();
  return insertMedia(db, {
    id,
    account_id: accountId,
    origin: 'received',
    content_type: input.content_type,
    filename: input.filename ?? null,
    size,
    upload_expires_at: null,
    uploaded_at: null,
    available_at: new Date(now.getTime() + RECEIVED_MEDIA_STORING_MS).toISOString(),
    expires_at: new Date(now.getTime() + RECEIVED_MEDIA_RETENTION_MS).toISOString(),
    created_at: now.toISOString(),
  });
}

/**
 * The media `mediaId` of the account, or undefined (`media_not_found` at send). `clock` decides `expired`: the
 * service clock, never the database's.
 */
export async function findMediaInfo(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  mediaId: string,
): Promise<MediaInfo | undefined> {
  const media = await findMediaById(db, accountId, mediaId);
  if (!media) return undefined;
  return {
    id: media.id,
    origin: media.origin,
    uploaded: media.origin !== 'upload' || media.uploaded_at !== null,
    expired: isMediaExpired(media, clock.now()),
    content_type: media.content_type,
    size: media.size === null ? null : Number(media.size),
    filename: media.filename,
    ...(media.origin === 'received' ? { expires_at: media.expires_at } : {}),
    detected_format: media.detected_format,
  };
}

/**
 * The media an automation sends for the console upload `uploadId` (the upload's id, created at its first
 * send), or undefined when the account has no such upload (deleted since the automation was published).
 */
export async function mediaOfUpload(
  db: Kysely<DB>,
  accountId: string,
  uploadId: string,
): Promise<{ id: string; type: MediaType } | undefined> {
  const upload = isUuid(uploadId) ? await findUpload(db, accountId, uploadId) : undefined;
  if (!upload) return undefined;
  await insertMediaIfAbsent(db, {
    id: upload.id,
    account_id: accountId,
    origin: 'console',
    content_type: upload.content_type,
    filename: upload.name,
    size: Number(upload.size),
    upload_expires_at: null,
    uploaded_at: upload.created_at,
    available_at: null,
    expires_at: null,
    created_at: upload.created_at,
  });
  return { id: upload.id, type: mediaFamily(upload.content_type) };
}

/**
 * The media an automation sends by address (`media_url`, instagram): the channel fetches the file, so its
 * size is unknown and its type comes from the address's extension (an image when it has none we know).
 */
export async function mediaOfLink(
  db: Kysely<DB>,
  clock: Clock,
  accountId: string,
  url: string,
): Promise<{ id: string; type: MediaType }> {
  let path = url;
  try {
    path = new URL(url).pathname;
  } catch {
    // Not an address: the send rules refuse it.
  }
  const contentType = mime.lookup(path) || null;
  const row = await insertMedia(db, {
    id: randomUUID(),
    account_id: accountId,
    origin: 'link',
    content_type: contentType,
    filename: fileName(path),
    size: null,
    upload_expires_at: null,
    uploaded_at: clock.now().toISOString(),
    available_at: null,
    expires_at: null,
    source_url: url,
    created_at: clock.now().toISOString(),
  });
  return { id: row.id, type: contentType ? mediaFamily(contentType) : 'image' };
}

function fileName(path: string): string | null {
  const last = path.split('/').pop() ?? '';
  try {
    return decodeURIComponent(last) || null;
  } catch {
    return last || null;
  }
}
