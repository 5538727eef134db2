// The reference builds into one HTML file that needs no network: no CDN script, no external stylesheet or
// font; it holds every route, every webhook and the getting-started guide.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs, findExternalResources } from '../scripts/lib/docs.js';
import { isObject, listOperations } from '../scripts/lib/openapi.js';
import { bundledSpec, repoRoot } from './helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'docs-test-'));
let html = '';

beforeAll(async () => {
  html = readFileSync(await buildDocs({ root: repoRoot, output: join(dir, 'index.html') }), 'utf8');
});

afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('docs', () => {
  it('is one HTML file with the Redoc bundle inlined', () => {
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain('hydrate(');
    expect(html.length).toBeGreaterThan(500_000);
  });

  it('loads no external script, stylesheet or font', () => {
    expect(findExternalResources(html)).toEqual([]);
    expect(html).not.toMatch(/<script[^>]+src=["']?https?:/i);
    expect(html).not.toMatch(/<link[^>]+href=["']?https?:/i);
    expect(html).not.toMatch(/fonts\.(googleapis|gstatic)\.com/);
    expect(html).not.toContain('cdn.redoc.ly'); // Redoc's badge logo, inlined by the build
  });

  it('detects external resources when there are some', () => {
    expect(
      findExternalResources(
        '<script src="https://cdn.example/x.js"></script><link rel="stylesheet" href="//fonts.example/f.css">',
      ),
    ).toEqual(['https://cdn.example/x.js', '//fonts.example/f.css']);
  });

  it('holds every operation, every webhook and the getting-started guide', () => {
    const doc = bundledSpec();
    const missing = listOperations(doc)
      .map((op) => String(op.operation.operationId))
      .filter((id) => !html.includes(id));
    expect(missing).toEqual([]);
    expect(Object.keys(isObject(doc.webhooks) ? doc.webhooks : {}).filter((type) => !html.includes(type))).toEqual([]);
    expect(html).toContain('Getting started');
    expect(html).toContain('Service-Signature');
  });
});
