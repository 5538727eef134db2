// The routes of the pre-signed media links, PUT /media-upload/:token and GET (and HEAD) /media-download/:token,
// answering as server/media/links.ts describes; that file signs and follows the links, this one speaks HTTP.
// These routes are the storage, not the API: no key, no rate limit, no OpenAPI validation, and their errors
// are a small `{message}`. They are mounted before the API pipeline (app.ts).
import express, { type Request, type Response, type Router } from 'express';
import { followLink, recordUpload, type LinkKind, type LinkRefusal } from '../media/links.js';
import { mediaKey } from '../media/storage.js';
import { cappedBody } from '../media/upload-body.js';
import { LARGEST_MEDIA_BYTES } from '../domain/messaging/send-rules.js';
import type { AppContext } from './context.js';

/** The route label of the request log and metrics (observability.ts reads `res.locals.route`). */
const label = (res: Response, path: string) => {
  res.locals.route = path;
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

/** The answer to a link that leads to no media. */
function refuseLink(res: Response, kind: LinkKind, refusal: LinkRefusal): void {
  switch (refusal) {
    case 'invalid':
      return refuse(res, 403, `This ${kind} link is not valid.`);
    case 'expired':
      return refuse(
        res,
        403,
        kind === 'upload'
          ? 'This upload link expired: create another media.'
          : 'This download link expired: request the media again for a fresh one.',
      );
    case 'no_media':
      return refuse(res, 404, 'No such media.');
    case 'media_gone':
      return refuse(res, 410, 'This media is no longer stored.');
  }
}

/** The media type of a Content-Type header without its parameters, lower case (MIME types ignore case). */
const essence = (value: string | null | undefined): string =>
  ((value ?? '').split(';', 1)[0] ?? '').trim().toLowerCase();

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
  router.put('/media-upload/:token', upload(ctx));
  router.all('/media-upload/:token', (_req, res) => {
    label(res, '/media-upload/{token}');
    refuse(res, 405, 'Upload the file with PUT.', { Allow: 'PUT' });
  });
  // GET, and HEAD (Express routes it here; Node sends no body for it).
  router.get('/media-download/:token', download(ctx));
  router.all('/media-download/:token', (_req, res) => {
    label(res, '/media-download/{token}');
    refuse(res, 405, 'Download the file with GET.', { Allow: 'GET, HEAD' });
  });
  return router;
}

/** The media a link of `kind` leads to; otherwise the refusal is sent and undefined returned. */
async function followed(ctx: AppContext, req: Request, res: Response, kind: LinkKind) {
  const link = await followLink(ctx.database.db, ctx.clock, kind, req.params.token);
  if ('refusal' in link) {
    refuseLink(res, kind, link.refusal);
    return undefined;
  }
  return link.media;
}

function failed(ctx: AppContext, res: Response, error: unknown, what: string): void {
  ctx.logger.error({ err: error, requestId: res.locals.requestId }, `media ${what} failed`);
  storageDown(res);
}

/** PUT /media-upload/:token: the bytes of a media waiting for its file, of the type it was created with. */
function upload(ctx: AppContext) {
  return async (req: Request, res: Response) => {
    label(res, '/media-upload/{token}');
    try {
      const media = await followed(ctx, req, res, 'upload');
      if (!media) return;
      const expected = media.content_type ?? '';
      if (essence(req.get('content-type')) !== essence(expected)) {
        refuse(res, 415, `The Content-Type must be ${expected}, the content_type given when the media was created.`);
        return;
      }
      // At most the largest file a channel accepts plus one byte is stored: a bigger one reads as too large at send.
      const upload = cappedBody(req, LARGEST_MEDIA_BYTES + 1);
      let size: number;
      try {
        ({ size } = await ctx.storage.put(mediaKey(media.account_id, media.id), upload.body));
      } catch (error) {
        // The client hung up mid-upload (or the storage failed mid-body, which cuts the connection): the
        // partial file is gone and there is no one left to answer.
        if (req.socket.destroyed) {
          res.destroy();
          return;
        }
        failed(ctx, res, error, 'upload');
        return;
      }
      await recordUpload(ctx.database.db, ctx.clock, media, { size, detected_format: await upload.format() });
      res.setHeader('Cache-Control', 'no-store');
      // The rest of a body past the cap is not read: the connection closes after the answer.
      if (upload.cut()) res.setHeader('Connection', 'close');
      res.status(204).end();
    } catch (error) {
      failed(ctx, res, error, 'upload');
    }
  };
}

/** GET (or HEAD) /media-download/:token: the file, streamed, never sniffed. */
function download(ctx: AppContext) {
  return async (req: Request, res: Response) => {
    label(res, '/media-download/{token}');
    try {
      const media = await followed(ctx, req, res, 'download');
      if (!media) return;
      let file;
      try {
        file = await ctx.storage.open(mediaKey(media.account_id, media.id));
      } catch (error) {
        failed(ctx, res, error, 'download');
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
      failed(ctx, res, error, 'download');
    }
  };
}
