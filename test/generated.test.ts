// generated/ and spec/components/examples/ are exactly what `npm run generate` produces from spec/.
import { describe, expect, it } from 'vitest';
import { checkGenerated } from '../scripts/lib/check.js';
import { GENERATED_FILES } from '../scripts/lib/generate.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { repoRoot } from './helpers.js';

describe('generated files', () => {
  it('exist', () => {
    for (const file of GENERATED_FILES) expect(existsSync(join(repoRoot, file)), file).toBe(true);
  });

  it('are up to date (run `npm run generate` and commit when this fails)', async () => {
    expect(await checkGenerated(repoRoot)).toEqual([]);
  });
});
