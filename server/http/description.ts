// GET /openapi.json: the public API's own description (generated/openapi.json, what partners import into
// Postman or Insomnia and generate an SDK from), with no key. It changes only with a deploy, so it may be cached
// (`Cache-Control: public, max-age=300`) and revalidated by its ETag (304). In development (the sandbox on, the
// embedded default), GET /docs serves the reference page `npm run docs` builds (Redoc with its script inlined:
// the page loads nothing from the network), and /docs/admin the vendor console's.
// Mounted before the API pipeline (app.ts): no key, no per-account rate limit, no request validation.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type Router } from 'express';
import { ApiError } from '../errors.js';
import type { AppContext } from './context.js';
import { bundledSpecPath } from './spec.js';

export const DESCRIPTION_PATH = '/openapi.json';
/** How long a client or a proxy may reuse the description without asking again. */
export const DESCRIPTION_MAX_AGE_SECONDS = 300;

/** The reference pages of `npm run docs`, under DOCS_DIR. */
const DOCS_PAGES = { '/docs': 'index.html', '/docs/admin': 'admin.html' } as const;

/** The description as served: compact JSON, read once, with the strong ETag of its bytes. */
function loadDescription(): { body: Buffer; etag: string } {
  const body = Buffer.from(JSON.stringify(JSON.parse(readFileSync(bundledSpecPath, 'utf8'))));
  const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 32)}"`;
  return { body, etag };
}

/** Whether If-None-Match names this ETag (a list, weak forms, or `*`). */
function matches(ifNoneMatch: string | undefined, etag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t === etag || t === `W/${etag}`;
  });
}

export function descriptionRouter(ctx: AppContext): Router {
  const router = express.Router();
  const { body, etag } = loadDescription();
  router.all(DESCRIPTION_PATH, (req, res, next) => {
    res.locals.route = DESCRIPTION_PATH;
    // The API's rules for any route: another method is no route, and a query parameter it does not take is a 400.
    if (req.method !== 'GET' && req.method !== 'HEAD')
      return next(new ApiError(404, 'not_found', `No route ${req.method} ${req.path}.`));
    const unknown = Object.keys(req.query);
    if (unknown.length > 0)
      return void res.status(400).json({
        type: 'error',
        message: 'The request does not follow the API format.',
        context: {
          details: unknown.map((name) => ({ location: 'query', path: name, message: 'unknown query parameter' })),
        },
      });
    res.setHeader('Cache-Control', `public, max-age=${DESCRIPTION_MAX_AGE_SECONDS}`);
    res.setHeader('ETag', etag);
    if (matches(req.headers['if-none-match'], etag)) return void res.status(304).end();
    res.status(200).type('application/json').send(body);
  });

  // The reference pages are a development aid: off with the sandbox (production), where /docs is no route.
  if (!ctx.config.sandboxEnabled) return router;
  const dir = resolve(ctx.config.docsDir);
  for (const [path, file] of Object.entries(DOCS_PAGES)) {
    router.get(path, (_req, res, next) => {
      res.locals.route = path;
      let html: Buffer;
      try {
        // Read at each request: `npm run docs` may rebuild it while the server runs.
        html = readFileSync(join(dir, file));
      } catch {
        return next(new ApiError(404, 'not_found', `The reference is not built: run \`npm run docs\` (${file}).`));
      }
      res.setHeader('Cache-Control', 'no-cache');
      res.status(200).type('html').send(html);
    });
  }
  return router;
}
