// .env.example is built from server/config.ts (issue 23): every setting, its meaning and its default, current.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { readSettings, renderEnvExample } from '../scripts/lib/env-example.js';
import { repoRoot } from '../scripts/lib/root.js';

describe('.env.example', () => {
  it('is what server/config.ts says (npm run generate writes it, check:generated compares)', () => {
    expect(readFileSync(join(repoRoot, '.env.example'), 'utf8')).toBe(renderEnvExample(repoRoot));
  });

  it('names every setting the server reads, with its default', () => {
    const settings = readSettings(repoRoot);
    const byName = new Map(settings.map((s) => [s.name, s.defaultValue]));
    expect(byName.get('PORT')).toBe('3000');
    expect(byName.get('DATA_DIR')).toBe('./data');
    expect(byName.get('DB_STATEMENT_TIMEOUT_MS')).toBe('30000');
    expect(byName.get('WORKERS')).toBe('true');
    expect(byName.has('DATABASE_URL')).toBe(true);
    expect(byName.get('DATABASE_URL')).toBeUndefined();
    // Every name read in config.ts as an environment variable is in the file.
    const source = readFileSync(join(repoRoot, 'server/config.ts'), 'utf8');
    const read = new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g)].map((m) => m[1]));
    expect([...read].filter((name) => !byName.has(name!))).toEqual([]);
  });

  it('refuses a setting without a comment saying what it is', () => {
    const root = mkdtempSync(join(tmpdir(), 'ep-env-'));
    try {
      mkdirSync(join(root, 'server'));
      writeFileSync(
        join(root, 'server/config.ts'),
        'const s = z.object({\n  // The port.\n  PORT: z.coerce.number().default(3000),\n  SECRET_THING: z.string().optional(),\n});\n',
      );
      expect(() => renderEnvExample(root)).toThrow(/without a comment saying what they are: SECRET_THING/);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
