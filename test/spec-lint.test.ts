// `redocly lint` with redocly.yaml (recommended-strict plus this API's rules) finds nothing.
import { describe, expect, it } from 'vitest';
import { lintSpec } from '../scripts/lib/redocly.js';
import { repoRoot } from './helpers.js';

describe('spec lint', () => {
  it('has zero errors and zero warnings', async () => {
    const result = await lintSpec(repoRoot);
    if (result.errors || result.warnings) console.error(result.output);
    expect({ errors: result.errors, warnings: result.warnings, exitCode: result.code }).toEqual({
      errors: 0,
      warnings: 0,
      exitCode: 0,
    });
  });
});
