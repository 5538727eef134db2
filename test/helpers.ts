// Shared by the tests: the repository root, the seed lists and the two bundled descriptions.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { repoRoot } from '../scripts/lib/root.js';
import { loadAdminSpec, loadBundledSpec, type JsonObject } from '../scripts/lib/openapi.js';

export { repoRoot };

/**
 * The lists extracted from the seed documents. CI runs on a clean clone where `../shared` is a sibling of the
 * repository root.
 */
export const seedListsDir = resolve(repoRoot, '../shared/seed-lists');

/** One item a line, blank lines dropped. */
export function seedList(name: string): string[] {
  return readFileSync(join(seedListsDir, name), 'utf8')
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);
}

let cached: JsonObject | undefined;

/** generated/openapi.json (the public description), parsed once per test file. */
export function bundledSpec(): JsonObject {
  cached ??= loadBundledSpec(repoRoot);
  return cached;
}

let cachedAdmin: JsonObject | undefined;

/** generated/admin-openapi.json (the vendor console and the sandbox), parsed once per test file. */
export function adminBundledSpec(): JsonObject {
  cachedAdmin ??= loadAdminSpec(repoRoot);
  return cachedAdmin;
}
