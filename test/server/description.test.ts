// GET /openapi.json serves the public description without a key, cacheable and revalidated by its ETag; in
// development (the sandbox on) /docs serves the reference `npm run docs` builds, which loads nothing from the
// network; with the sandbox off (production) /docs is no route. On PGlite alone (walkthroughEngines): these
// routes serve files and read no database.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_DESCRIPTION } from '../../scripts/lib/descriptions.js';
import { buildDocs, findExternalResources } from '../../scripts/lib/docs.js';
import { repoRoot } from '../helpers.js';
import { walkthroughEngines, startTestApp, type TestApp } from './harness.js';
import { expectError } from './http-helpers.js';

const published: unknown = JSON.parse(readFileSync(join(repoRoot, 'generated/openapi.json'), 'utf8'));

describe.each(walkthroughEngines)('the description and the reference on %s', (engine) => {
  const docsDir = mkdtempSync(join(tmpdir(), 'served-docs-'));
  const emptyDir = mkdtempSync(join(tmpdir(), 'no-docs-'));
  let dev: TestApp;
  let production: TestApp;
  let unbuilt: TestApp;

  beforeAll(async () => {
    // The pages as `npm run docs` builds them (a few seconds each; longer on a busy machine).
    await Promise.all([
      buildDocs({ root: repoRoot, output: join(docsDir, 'index.html') }),
      buildDocs({ root: repoRoot, description: ADMIN_DESCRIPTION, output: join(docsDir, 'admin.html') }),
    ]);
    dev = await startTestApp(engine, { env: { SANDBOX_ENABLED: 'true', DOCS_DIR: docsDir } });
    production = await startTestApp(engine, { env: { SANDBOX_ENABLED: 'false', DOCS_DIR: docsDir } });
    unbuilt = await startTestApp(engine, { env: { SANDBOX_ENABLED: 'true', DOCS_DIR: emptyDir } });
  }, 300_000);

  afterAll(async () => {
    await Promise.all([dev?.close(), production?.close(), unbuilt?.close()]);
    rmSync(docsDir, { recursive: true, force: true });
    rmSync(emptyDir, { recursive: true, force: true });
  });

  it('GET /openapi.json answers the public description without a key, cacheable, with an ETag', async () => {
    const res = await fetch(`${production.baseUrl}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('cache-control')).toBe('public, max-age=300');
    const etag = res.headers.get('etag');
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{32}"$/);
    const body: unknown = await res.json();
    expect(body).toEqual(published);
    const paths = Object.keys((body as { paths: Record<string, unknown> }).paths);
    expect(paths).toContain('/openapi.json');
    expect(paths.filter((path) => path.startsWith('/admin'))).toEqual([]);
    // The same bytes for every process and every call: the ETag is of the content.
    expect((await fetch(`${dev.baseUrl}/openapi.json`)).headers.get('etag')).toBe(etag);
  });

  it('answers 304 without a body to If-None-Match with its ETag, and 200 to another', async () => {
    const { headers } = await fetch(`${dev.baseUrl}/openapi.json`);
    const etag = headers.get('etag')!;
    const unchanged = await fetch(`${dev.baseUrl}/openapi.json`, { headers: { 'If-None-Match': `"old", ${etag}` } });
    expect(unchanged.status).toBe(304);
    expect(unchanged.headers.get('etag')).toBe(etag);
    expect(unchanged.headers.get('cache-control')).toBe('public, max-age=300');
    expect(await unchanged.text()).toBe('');
    const other = await fetch(`${dev.baseUrl}/openapi.json`, { headers: { 'If-None-Match': '"old"' } });
    expect(other.status).toBe(200);
  });

  it('/docs serves the reference in development, loading nothing from the network; /docs/admin the console', async () => {
    const res = await fetch(`${dev.baseUrl}/docs`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    const html = await res.text();
    expect(html).toContain('<title>Engagement Platform API reference</title>');
    expect(findExternalResources(html)).toEqual([]);
    expect(html).not.toMatch(/<script[^>]+src=["']?(https?:)?\/\//i);
    const admin = await fetch(`${dev.baseUrl}/docs/admin`);
    expect(admin.status).toBe(200);
    expect(await admin.text()).toContain('<title>Vendor console and sandbox reference</title>');
  });

  it('/docs is no route with the sandbox off, and says how to build it when it is not built', async () => {
    await expectError(await fetch(`${production.baseUrl}/docs`), 404, { code: 'not_found' });
    const res = await fetch(`${unbuilt.baseUrl}/docs`);
    const body = await expectError(res, 404, { code: 'not_found' });
    expect(JSON.stringify(body)).toContain('npm run docs');
  });
});
