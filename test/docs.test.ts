// Each reference builds into one HTML file that needs no network: no CDN script, no external stylesheet or
// font. The public one holds every route, every webhook and the getting-started guide, and nothing of the vendor
// console; the vendor console's page holds every admin route.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildDocs, findExternalResources } from '../scripts/lib/docs.js';
import { isObject, listOperations } from '../scripts/lib/openapi.js';
import { ADMIN_DESCRIPTION } from '../scripts/lib/descriptions.js';
import { adminBundledSpec, bundledSpec, repoRoot } from './helpers.js';

const CHROMIUM = '/usr/bin/chromium';
const dir = mkdtempSync(join(tmpdir(), 'docs-test-'));
let html = '';
let adminHtml = '';

beforeAll(async () => {
  html = readFileSync(await buildDocs({ root: repoRoot, output: join(dir, 'index.html') }), 'utf8');
  const admin = { root: repoRoot, description: ADMIN_DESCRIPTION, output: join(dir, 'admin.html') };
  adminHtml = readFileSync(await buildDocs(admin), 'utf8');
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

  // Redoc 3 shows an operation's x-codeSamples only in the languages its options list (scripts/lib/docs.ts), matched
  // by label: in a real browser, an operation shows its curl sample (the example's name with a body), and its
  // TypeScript one behind the language switch.
  it.skipIf(!existsSync(CHROMIUM))(
    'shows the code samples of an operation: curl, and TypeScript on the switch',
    async () => {
      const browser = await chromium.launch({
        executablePath: CHROMIUM,
        headless: true,
        args: ['--no-sandbox', '--disable-background-networking', '--disable-component-update'],
      });
      try {
        const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
        await page.goto(`file://${join(dir, 'index.html')}#tag/Contacts/operation/listContacts`);
        await page.getByText('curl -sS "$BASE_URL/v1/contacts"').first().waitFor({ timeout: 30_000 });
        await page.locator('.panel-request-samples').first().getByRole('button', { name: 'curl' }).click();
        await page.getByRole('menuitem', { name: 'TypeScript' }).first().click();
        await page
          .getByText("const { data, error, response } = await api.GET('/v1/contacts');")
          .first()
          .waitFor({ timeout: 10_000 });
        await page.goto(`file://${join(dir, 'index.html')}#tag/Contacts/operation/createContact`);
        await page.getByText('The body is the example “CreateContactMinimal”.').first().waitFor({ timeout: 30_000 });
      } finally {
        await browser.close();
      }
    },
  );

  it('shows partners nothing of the vendor console', () => {
    expect(html).not.toContain('/admin/v1');
    expect(html).not.toContain('AdminToken');
    const adminIds = listOperations(adminBundledSpec()).map((op) => String(op.operation.operationId));
    expect(adminIds.filter((id) => html.includes(id))).toEqual([]);
  });
});

describe('the vendor console reference', () => {
  it('is its own offline page, titled apart, with every admin operation', () => {
    expect(adminHtml.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(findExternalResources(adminHtml)).toEqual([]);
    expect(adminHtml).toContain('<title>Vendor console and sandbox reference</title>');
    const ids = listOperations(adminBundledSpec()).map((op) => String(op.operation.operationId));
    expect(ids.length).toBeGreaterThan(30);
    expect(ids.filter((id) => !adminHtml.includes(id))).toEqual([]);
    expect(adminHtml).not.toContain('Getting started');
  });
});
