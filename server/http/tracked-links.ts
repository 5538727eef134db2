// GET (and HEAD) /links/:token: the tracking address of an automation's link button (issue 22), opened by the
// contact's browser. domain/workflows/tracked-links.ts records the click; this file speaks HTTP: a 302 to the
// button's address, or a small HTML page (404, 410). No key, no rate limit, no OpenAPI validation: mounted before
// the API pipeline (app.ts). A fault reading the link goes to the error envelope (the spec's `default`).
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { openTrackedLink } from '../domain/workflows/tracked-links.js';
import type { AppContext } from './context.js';

/** The pages of a link that leads nowhere (the spec's examples TrackedLinkNotFound and TrackedLinkExpired). */
const PAGES = {
  not_found: { status: 404, html: '<!doctype html><title>Link not found</title><p>This link does not exist.</p>' },
  expired: { status: 410, html: '<!doctype html><title>Link expired</title><p>This link has expired.</p>' },
} as const;

function page(res: Response, refusal: keyof typeof PAGES): void {
  const { status, html } = PAGES[refusal];
  res.status(status).type('html').send(html);
}

export function trackedLinkRouter(ctx: AppContext): Router {
  const router = express.Router();
  router.get('/links/:token', async (req, res, next) => {
    // The route label of the request log and metrics (observability.ts reads `res.locals.route`).
    res.locals.route = '/links/{token}';
    try {
      const opened = await openTrackedLink(ctx.database.db, ctx.clock, req.params.token, ctx.logger);
      res.setHeader('Cache-Control', 'no-store');
      if ('refusal' in opened) return page(res, opened.refusal);
      // `location` percent-encodes what a header cannot carry; an ASCII address goes as it is.
      res.location(opened.location).status(302).end();
    } catch (error) {
      next(error);
    }
  });
  // A token is base64url: an address that is not even valid percent-encoding (`/links/%ZZ`, which Express refuses
  // before the handler) is a link that does not exist, and the browser gets the page, not the API's 400.
  router.use('/links', (error: unknown, _req: Request, res: Response, next: NextFunction) => {
    if (error instanceof Error && /decode param/i.test(error.message)) return page(res, 'not_found');
    next(error);
  });
  return router;
}
