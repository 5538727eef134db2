// Builds the reference: one HTML file per description (Redoc, rendered by `redocly build-docs --inlineBundle`)
// from its bundle. The public API's (docs/index.html) has docs/getting-started.md as its first section
// ("Guides › Getting started", an `x-traitTag`); the vendor console's (docs/admin.html) is a page of its own.
// The Redoc script is inlined: the page needs no network (no CDN script, no external stylesheet or font).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PUBLIC_DESCRIPTION, type Description } from './descriptions.js';
import { isObject, type JsonObject } from './openapi.js';
import { runRedocly } from './redocly.js';

export const DOCS_OUTPUT = PUBLIC_DESCRIPTION.docs;
export const GETTING_STARTED = 'docs/getting-started.md';
const GUIDE_TAG = 'Getting started';

/** A bundled description as Redoc renders it: the public one with the getting-started guide first. */
export function docsDefinition(root: string, description: Description = PUBLIC_DESCRIPTION): JsonObject {
  const doc = JSON.parse(readFileSync(join(root, description.json), 'utf8')) as JsonObject;
  if (description !== PUBLIC_DESCRIPTION) return doc;
  const guide = readFileSync(join(root, GETTING_STARTED), 'utf8')
    // The page's own title becomes the section name.
    .replace(/^# .*\n+/, '');
  const tags = Array.isArray(doc.tags) ? doc.tags : [];
  doc.tags = [{ name: GUIDE_TAG, 'x-traitTag': true, description: guide }, ...tags];
  const groups = Array.isArray(doc['x-tagGroups']) ? doc['x-tagGroups'] : [];
  doc['x-tagGroups'] = [{ name: 'Guides', tags: [GUIDE_TAG] }, ...groups.filter(isObject)];
  return doc;
}

/** External resources the page would load: `<script src>`, stylesheets, fonts, CSS imports over http(s). */
export function findExternalResources(html: string): string[] {
  const found: string[] = [];
  const patterns = [
    /<script\b[^>]*\bsrc\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /<link\b[^>]*\bhref\s*=\s*["']?((?:https?:)?\/\/[^"'\s>]+)/gi,
    /@import\s+(?:url\(\s*)?["']?((?:https?:)?\/\/[^"')\s]+)/gi,
    /\bsrc\s*:\s*url\(\s*["']?((?:https?:)?\/\/[^"')\s]+)/gi, // @font-face src
    /import\s*\{[^}]*\}\s*from\s*["']((?:https?:)?\/\/[^"']+)/gi, // a CDN ES module
    // A CDN address of the docs tooling anywhere in code (Redoc's logo badge was one). Redocly's icon-set base
    // addresses (cdn.redocly.com/icons/…) are only fetched for icons the page uses, and it uses none.
    /["'`]((?:https?:)?\/\/(?:cdn\.redoc\.ly|cdn\.jsdelivr\.net|unpkg\.com|fonts\.googleapis\.com|fonts\.gstatic\.com)\/[^"'`\s)]*)/gi,
  ];
  for (const pattern of patterns) for (const m of html.matchAll(pattern)) found.push(m[1]!);
  return [...new Set(found)];
}

const REDOCLY_BADGE =
  'data:image/svg+xml,' +
  encodeURIComponent(
    '<svg xmlns="http://www.w3.org/2000/svg" width="56" height="14"><text x="0" y="11" font-family="sans-serif" font-size="11" fill="#888">Redocly</text></svg>',
  );

/**
 * The languages of the generated x-codeSamples (scripts/lib/code-samples.ts), in the order of Redoc's switch.
 * Redoc keys a language by its label (else its lang) lowercased, and a sample by its label likewise: a language
 * given a label of its own would match no sample.
 */
const CODE_SAMPLE_LANGUAGES = [{ lang: 'curl' }, { lang: 'TypeScript' }];

export interface BuildDocsOptions {
  root: string;
  /** Which description; the public one by default. */
  description?: Description;
  /** Default the description's page (docs/index.html, docs/admin.html). */
  output?: string;
}

export async function buildDocs(options: BuildDocsOptions): Promise<string> {
  const root = options.root;
  const description = options.description ?? PUBLIC_DESCRIPTION;
  const output = resolve(root, options.output ?? description.docs);
  const work = mkdtempSync(join(tmpdir(), 'docs-'));
  try {
    const definition = join(work, 'openapi.json');
    writeFileSync(definition, JSON.stringify(docsDefinition(root, description)));
    const doc = JSON.parse(readFileSync(definition, 'utf8')) as JsonObject;
    const title =
      isObject(doc.info) && typeof doc.info.title === 'string' ? `${doc.info.title} reference` : 'API reference';
    const result = await runRedocly(root, [
      'build-docs',
      definition,
      '--inlineBundle',
      '--output',
      output,
      '--title',
      title,
      '--config',
      join(root, 'redocly.yaml'),
      '--lint-config',
      'off',
      // Redoc 3 shows an operation's x-codeSamples only in the languages it is told about, matched by `lang`.
      '--openapi',
      JSON.stringify({ codeSamples: { languages: CODE_SAMPLE_LANGUAGES } }),
    ]);
    if (result.code !== 0) throw new Error(`redocly build-docs failed:\n${result.output}`);
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
  // Redoc's "API docs by" badge loads its logo from Redocly's CDN; offline it would be a failed request.
  // Keep the attribution, with the logo inlined as a small SVG text badge.
  const page = readFileSync(output, 'utf8').replace(
    /https:\/\/cdn\.redoc\.ly\/redoc\/logo-mini(?:-full)?\.svg/g,
    REDOCLY_BADGE,
  );
  writeFileSync(output, page);
  const external = findExternalResources(page);
  if (external.length) throw new Error(`${output} loads external resources: ${external.join(', ')}`);
  return output;
}
