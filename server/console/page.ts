// The console page at /console, served wherever the sandbox is on: one HTML page, its script and its style,
// bundled by esbuild in memory from console/ (a Preact app in TypeScript) at the first request, never written
// to disk. Nothing else is served and nothing comes from the network: the page's Content-Security-Policy allows
// this server only.
//
// The page is a client of the admin API (its token comes in the URL fragment, never sent to the server by the
// browser) and of the public API (with a key it creates through the admin API): it has no route of its own.
//
// esbuild is a development dependency: a production install (npm prune --omit=dev) has none, so there the page
// answers 404 even with the sandbox on, and says why once in the log.
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import express, { type Router } from 'express';
import type { Logger } from 'pino';

export const CONSOLE_PATH = '/console';

interface Bundle {
  js: string;
  css: string;
}

/** console/ at the repository root, from server/console/ (tsx) or dist/server/console/ (compiled). */
function sourceDir(): string | undefined {
  for (const up of ['../../console/', '../../../console/']) {
    const dir = fileURLToPath(new URL(up, import.meta.url));
    if (existsSync(`${dir}main.tsx`)) return dir;
  }
  return undefined;
}

async function bundle(): Promise<Bundle> {
  const dir = sourceDir();
  if (!dir) throw new Error('console/main.tsx is not beside the server (a production install has no console)');
  const esbuild = await import('esbuild');
  const result = await esbuild.build({
    entryPoints: [`${dir}main.tsx`],
    bundle: true,
    write: false,
    outdir: 'out',
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    minify: true,
    sourcemap: false,
    logLevel: 'silent',
    absWorkingDir: resolve(dir, '..'),
  });
  const text = (ext: string) => result.outputFiles.find((file) => file.path.endsWith(ext))?.text ?? '';
  return { js: text('.js'), css: text('.css') };
}

const html = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>Sandbox console</title>
    <link rel="stylesheet" href="${CONSOLE_PATH}/app.css" />
  </head>
  <body>
    <div id="app"></div>
    <script type="module" src="${CONSOLE_PATH}/app.js"></script>
  </body>
</html>
`;

/** This server only: scripts, styles, images (media links), fetches; no frame, form target or base elsewhere. */
const CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "media-src 'self' blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
  "form-action 'none'",
].join('; ');

/** The router of the page (mount it only while the sandbox is on). The bundle is built once, at first use. */
export function consoleRouter(logger: Logger): Router {
  const router = express.Router();
  let built: Promise<Bundle | undefined> | undefined;
  const get = () =>
    (built ??= bundle().catch((error: unknown) => {
      logger.warn({ err: error }, 'console page unavailable: its bundle could not be built');
      return undefined;
    }));
  const send = (type: string, pick: (b: Bundle) => string) =>
    ((_req, res, next) => {
      get()
        .then((b) => {
          if (!b) return next();
          res.setHeader('Content-Type', type);
          res.setHeader('Cache-Control', 'no-store');
          res.setHeader('Content-Security-Policy', CSP);
          res.setHeader('X-Content-Type-Options', 'nosniff');
          res.setHeader('Referrer-Policy', 'no-referrer');
          res.send(pick(b));
        })
        .catch(next);
    }) satisfies express.RequestHandler;
  router.get(
    CONSOLE_PATH,
    send('text/html; charset=utf-8', () => html),
  );
  router.get(
    `${CONSOLE_PATH}/app.js`,
    send('text/javascript; charset=utf-8', (b) => b.js),
  );
  router.get(
    `${CONSOLE_PATH}/app.css`,
    send('text/css; charset=utf-8', (b) => b.css),
  );
  return router;
}
