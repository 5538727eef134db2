// `npm run check:generated`: fails, listing the files, when generated/ or spec/components/examples/ differ
// from what `npm run generate` produces, and .env.example from what server/config.ts says.
// It regenerates into a temporary folder; nothing in the tree changes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { checkGenerated } from './lib/check.js';
import { ENV_EXAMPLE, renderEnvExample } from './lib/env-example.js';
import { repoRoot } from './lib/root.js';

/** .env.example is built from server/config.ts (scripts/lib/env-example.ts). */
function checkEnvExample(): string[] {
  let actual: string | undefined;
  try {
    actual = readFileSync(join(repoRoot, ENV_EXAMPLE), 'utf8');
  } catch {
    return [`missing: ${ENV_EXAMPLE}`];
  }
  return actual === renderEnvExample(repoRoot) ? [] : [`changed: ${ENV_EXAMPLE}`];
}

try {
  const problems = [...(await checkGenerated(repoRoot)), ...checkEnvExample()];
  if (problems.length) {
    console.error('generated files are not what `npm run generate` produces:');
    for (const p of problems) console.error(`  ${p}`);
    console.error('Run `npm run generate` and commit the result.');
    process.exit(1);
  }
  console.log('check:generated: generated/, spec/components/examples/ and .env.example are up to date');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
