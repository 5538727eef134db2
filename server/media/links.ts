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
// These routes are the storage, not the API: no key, no rate limit, no OpenAPI validation, and their errors
// are a small `{message}`. They are mounted before the API pipeline (app.ts).
//
// Token: base64url( version · kind · account id (16 bytes) · media id (16) · expiry in ms (6) · first 16 bytes
// of HMAC-SHA256 over all that ). The key is a service secret shared by every process on the database, like
// the cursor key; the expiry is read on the service clock. Any changed byte fails the HMAC.
import { createHmac, timingSafeEqual } from 'node:crypto';
import express, { type Request, type Response, type Router } from 'express';
import type { Kysely } from 'kysely';
import type { Clock } from '../clock.js';
import type { AppContext } from '../http/context.js';
import { isLinkExpired, isMediaExpired } from '../media/expiry.js';
import { findMedia, markMediaUploaded, type MediaRow } from '../store/media.js';
import type { DB } from '../store/schema.js';
import { serviceSecret } from '../store/secrets.js';
import { mediaKey, mediaStorage } from './storage.js';

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
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const uuidBytes = (id: string): Buffer => {
  if (!UUID.test(id)) throw new Error(`not a uuid: ${id}`);
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

const trimBase = (baseUrl: string) => baseUrl.replace(/\/+$/, '');

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

// ------------------------------------------------------------------------------------------------- routes

/** The route label of the request log and metrics (observability.ts reads `res.locals.operation.path`). */
const label = (res: Response, path: string) => {
  (res.locals as { operation?: { path: string } }).operation = { path };
};

function refuse(res: Response, status: number, message: string, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(headers)) res.setHeader(name, value);
  res.status(status).json({ message });
}

const storageDown = (res: Response) => refuse(res, 503, 'Media storage did not answer. Retry.');

/** The media type of a Content-Type header without its parameters, lower case (MIME types ignore case). */
const essence = (value: string | null | undefined): string => (value ?? '').split(';')[0]!.trim().toLowerCase();

/** `attachment` with the file name: an ASCII fallback and the exact name in RFC 5987 form. */
export function contentDisposition(filename: string): string {
  const fallback = filename.replace(/[^\x20-\x7e]|["\\%]/g, '_');
  const exact = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return `attachment; filename="${fallback}"; filename*=UTF-8''${exact}`;
}

/** PUT /media-upload/:token and GET /media-download/:token, before the API pipeline. */
export function mediaTransferRouter(ctx: AppContext): Router {
  const router = express.Router();
  const storage = mediaStorage(ctx);
  const db = ctx.database.db;

  /** The media a valid, unexpired token of `kind` names; otherwise the refusal is sent and undefined returned. */
  async function claimed(req: Request, res: Response, kind: LinkKind): Promise<MediaRow | undefined> {
    const signer = await mediaLinkSigner(db, ctx.clock);
    const claim = signer.verify(kind, req.params.token);
    if (!claim) {
      refuse(res, 403, `This ${kind} link is not valid.`);
      return undefined;
    }
    if (isLinkExpired(claim, ctx.clock.now())) {
      refuse(
        res,
        403,
        kind === 'upload'
          ? 'This upload link expired: create another media.'
          : 'This download link expired: request the media again for a fresh one.',
      );
      return undefined;
    }
    const media = await findMedia(db, claim.accountId, claim.mediaId);
    if (!media || (kind === 'upload' && media.origin !== 'upload')) {
      refuse(res, 404, 'No such media.');
      return undefined;
    }
    return media;
  }

  const failed = (res: Response, error: unknown, what: string) => {
    ctx.logger.error({ err: error, requestId: res.locals.requestId as unknown }, `media ${what} failed`);
    storageDown(res);
  };

  router.put('/media-upload/:token', async (req, res) => {
    label(res, '/media-upload/{token}');
    try {
      const media = await claimed(req, res, 'upload');
      if (!media) return;
      const expected = media.content_type ?? '';
      if (essence(req.get('content-type')) !== essence(expected)) {
        refuse(res, 415, `The Content-Type must be ${expected}, the content_type given when the media was created.`);
        return;
      }
      let size: number;
      try {
        ({ size } = await storage.put(mediaKey(media.account_id, media.id), req));
      } catch (error) {
        // The client hung up mid-upload (or the storage failed mid-body, which cuts the connection): the
        // partial file is gone and there is no one left to answer.
        if (req.socket.destroyed) {
          res.destroy();
          return;
        }
        failed(res, error, 'upload');
        return;
      }
      await markMediaUploaded(db, media.account_id, media.id, { uploaded_at: ctx.clock.now().toISOString(), size });
      res.setHeader('Cache-Control', 'no-store');
      res.status(204).end();
    } catch (error) {
      failed(res, error, 'upload');
    }
  });
  router.all('/media-upload/:token', (_req, res) => {
    label(res, '/media-upload/{token}');
    refuse(res, 405, 'Upload the file with PUT.', { Allow: 'PUT' });
  });

  // GET, and HEAD (Express routes it here; Node sends no body for it).
  router.get('/media-download/:token', async (req, res) => {
    label(res, '/media-download/{token}');
    try {
      const media = await claimed(req, res, 'download');
      if (!media) return;
      if (isMediaExpired(media, ctx.clock.now())) {
        refuse(res, 410, 'This media is no longer stored.');
        return;
      }
      let file;
      try {
        file = await storage.open(mediaKey(media.account_id, media.id));
      } catch (error) {
        failed(res, error, 'download');
        return;
      }
      if (!file) {
        refuse(res, 404, 'This media has no file.');
        return;
      }
      res.status(200);
      res.setHeader('Content-Type', media.content_type ?? 'application/octet-stream');
      res.setHeader('Content-Length', String(file.size));
      if (media.filename) res.setHeader('Content-Disposition', contentDisposition(media.filename));
      res.setHeader('Cache-Control', 'private, no-store');
      // The bytes are whatever a contact or a client sent: never sniffed, never run as a page of this origin.
      res.setHeader('X-Content-Type-Options', 'nosniff');
      res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
      if (req.method === 'HEAD') {
        file.stream.destroy();
        res.end();
        return;
      }
      file.stream.on('error', (error) => {
        ctx.logger.error({ err: error }, 'media download failed while streaming');
        res.destroy();
      });
      file.stream.pipe(res);
      res.on('close', () => file.stream.destroy());
    } catch (error) {
      failed(res, error, 'download');
    }
  });
  router.all('/media-download/:token', (_req, res) => {
    label(res, '/media-download/{token}');
    refuse(res, 405, 'Download the file with GET.', { Allow: 'GET, HEAD' });
  });

  return router;
}
