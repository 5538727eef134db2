// Pre-signed media links: the `upload_url` of `POST /v1/media` and the download link `GET
// /v1/media/{mediaId}/content` redirects to. They need no API key: the token in the path is the permission.
//
//   PUT <base>/media-upload/<token>    the raw bytes, Content-Type equal to the media's content_type.
//                                      204 (no body) when stored; a repeat upload in the window replaces the
//                                      file. 403 link not valid or past the 5-minute window, 404 media gone,
//                                      415 another Content-Type (nothing stored), 503 storage did not answer.
//   GET <base>/media-download/<token>  the file, with its Content-Type, Content-Length and (when the media has
//                                      a file name) Content-Disposition. 403 link not valid or older than
//                                      5 minutes, 404 no file, 410 retention over, 503 storage did not answer.
//
// This file signs and follows the links (which media a token leads to, and whether it may still be read or
// written); server/http/media-links.ts serves them and words the answers.
//
// Token: base64url( version · kind · account id (16 bytes) · media id (16) · expiry in ms (6) · first 16 bytes
// of HMAC-SHA256 over all that ). The key is a service secret shared by every process on the database, like
// the cursor key; the expiry is read on the service clock. Any changed byte fails the HMAC.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import { isLinkExpired, isMediaExpired } from './expiry.js';
import { findMedia, markMediaUploaded, type MediaRow } from '../store/media.js';
import type { DB } from '../store/schema.js';
import { serviceSecret } from '../store/secrets.js';
import { isUuid } from '../ids.js';
import { trimEnd } from '../text.js';

/** How long a download link works. */
export const DOWNLOAD_LINK_VALIDITY_MS = 5 * 60_000;

export type LinkKind = 'upload' | 'download';

export interface LinkClaim {
  accountId: string;
  mediaId: string;
  /** Epoch milliseconds; the link works up to and including this instant. */
  expiresAt: number;
}

const VERSION = 1;
const KINDS: Record<LinkKind, number> = { upload: 1, download: 2 };
const MAC_BYTES = 16;
const BODY_BYTES = 1 + 1 + 16 + 16 + 6;
const SECRET_NAME = 'media_link_signing_key';

const uuidBytes = (id: string): Buffer => {
  if (!isUuid(id)) throw new Error(`not a uuid: ${id}`);
  return Buffer.from(id.replace(/-/g, ''), 'hex');
};
const uuidText = (bytes: Buffer): string => {
  const h = bytes.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
};

export class MediaLinkSigner {
  constructor(private readonly key: Buffer) {
    if (key.length < 32) throw new Error('the media link key must have at least 32 bytes');
  }

  sign(kind: LinkKind, claim: LinkClaim): string {
    const body = Buffer.alloc(BODY_BYTES);
    body[0] = VERSION;
    body[1] = KINDS[kind];
    uuidBytes(claim.accountId).copy(body, 2);
    uuidBytes(claim.mediaId).copy(body, 18);
    body.writeUIntBE(claim.expiresAt, 34, 6);
    return Buffer.concat([body, this.mac(body)]).toString('base64url');
  }

  /** The claim of a token this service signed for `kind`, or undefined. Expiry is the caller's check. */
  verify(kind: LinkKind, token: unknown): LinkClaim | undefined {
    if (typeof token !== 'string' || !/^[A-Za-z0-9_-]+$/.test(token)) return undefined;
    const bytes = Buffer.from(token, 'base64url');
    // Only the canonical spelling: changing any character of a token changes its bytes.
    if (bytes.length !== BODY_BYTES + MAC_BYTES || bytes.toString('base64url') !== token) return undefined;
    const body = bytes.subarray(0, BODY_BYTES);
    if (!timingSafeEqual(bytes.subarray(BODY_BYTES), this.mac(body))) return undefined;
    if (body[0] !== VERSION || body[1] !== KINDS[kind]) return undefined;
    return {
      accountId: uuidText(body.subarray(2, 18)),
      mediaId: uuidText(body.subarray(18, 34)),
      expiresAt: body.readUIntBE(34, 6),
    };
  }

  private mac(body: Buffer): Buffer {
    return createHmac('sha256', this.key).update('ep-media-link\0').update(body).digest().subarray(0, MAC_BYTES);
  }
}

const signers = new WeakMap<Kysely<DB>, Promise<MediaLinkSigner>>();

/** The signer of this database (its key is read, or created, once per handle). */
export function mediaLinkSigner(db: Kysely<DB>, clock: Clock): Promise<MediaLinkSigner> {
  let signer = signers.get(db);
  if (!signer) {
    signer = serviceSecret(db, SECRET_NAME, clock).then(
      (secret) => new MediaLinkSigner(Buffer.from(secret, 'base64url')),
    );
    // A failed read (database briefly down) is not remembered: the next request tries again.
    signer.catch(() => signers.delete(db));
    signers.set(db, signer);
  }
  return signer;
}

const trimBase = (baseUrl: string) => trimEnd(baseUrl, '/');

/** The `upload_url` of a media: works until `expiresAt` (the end of its upload window). */
export async function uploadLink(
  db: Kysely<DB>,
  clock: Clock,
  baseUrl: string,
  media: { account_id: string; id: string },
  expiresAt: Date,
): Promise<string> {
  const signer = await mediaLinkSigner(db, clock);
  const token = signer.sign('upload', {
    accountId: media.account_id,
    mediaId: media.id,
    expiresAt: expiresAt.getTime(),
  });
  return `${trimBase(baseUrl)}/media-upload/${token}`;
}

/** A download link of a media's file, valid 5 minutes from now. */
export async function downloadLink(
  db: Kysely<DB>,
  clock: Clock,
  baseUrl: string,
  media: { account_id: string; id: string },
): Promise<string> {
  const signer = await mediaLinkSigner(db, clock);
  const token = signer.sign('download', {
    accountId: media.account_id,
    mediaId: media.id,
    expiresAt: clock.now().getTime() + DOWNLOAD_LINK_VALIDITY_MS,
  });
  return `${trimBase(baseUrl)}/media-download/${token}`;
}

// ------------------------------------------------------------------------------------------ following a link

/** Why a link leads to no media: not signed by this service, past its window, no such media, retention over. */
export type LinkRefusal = 'invalid' | 'expired' | 'no_media' | 'media_gone';

/**
 * The media a link token of `kind` leads to now, or why it leads nowhere, in the order the checks run: the
 * token is valid, then unexpired, then names a media (for an upload, one created to be uploaded), then (for a
 * download) one still kept.
 */
export async function followLink(
  db: Kysely<DB>,
  clock: Clock,
  kind: LinkKind,
  token: unknown,
): Promise<{ media: MediaRow } | { refusal: LinkRefusal }> {
  const signer = await mediaLinkSigner(db, clock);
  const claim = signer.verify(kind, token);
  if (!claim) return { refusal: 'invalid' };
  if (isLinkExpired(claim, clock.now())) return { refusal: 'expired' };
  const media = await findMedia(db, claim.accountId, claim.mediaId);
  if (!media || (kind === 'upload' && media.origin !== 'upload')) return { refusal: 'no_media' };
  if (kind === 'download' && isMediaExpired(media, clock.now())) return { refusal: 'media_gone' };
  return { media };
}

/** Records that the file of an uploaded media is stored (`size` bytes), now. */
export async function recordUpload(
  db: Kysely<DB>,
  clock: Clock,
  media: { account_id: string; id: string },
  upload: { size: number; detected_format: string },
): Promise<void> {
  await markMediaUploaded(db, media.account_id, media.id, { uploaded_at: clock.now().toISOString(), ...upload });
}
