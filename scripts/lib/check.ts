// Regenerates into a temporary folder and compares with the tree.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GENERATED_DIRS, generate, listFiles } from './generate.js';

/** Lines `changed: file`, `missing: file` (should exist), `stale: file` (should not exist); empty when up to date. */
export async function checkGenerated(root: string): Promise<string[]> {
  const out = mkdtempSync(join(tmpdir(), 'check-generated-'));
  try {
    await generate({ root, out });
    const expected = new Set(listFiles(out, GENERATED_DIRS));
    const actual = new Set(listFiles(root, GENERATED_DIRS));
    const problems: string[] = [];
    for (const file of [...expected].sort()) {
      if (!actual.has(file)) problems.push(`missing: ${file}`);
      else if (!readFileSync(join(out, file)).equals(readFileSync(join(root, file)))) problems.push(`changed: ${file}`);
    }
    for (const file of [...actual].sort()) if (!expected.has(file)) problems.push(`stale: ${file}`);
    return problems;
  } finally {
    rmSync(out, { recursive: true, force: true });
  }
}
