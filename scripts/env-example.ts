// `npm run generate:env` (part of `npm run generate`): writes .env.example from server/config.ts.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ENV_EXAMPLE, renderEnvExample } from './lib/env-example.js';
import { repoRoot } from './lib/root.js';

try {
  writeFileSync(join(repoRoot, ENV_EXAMPLE), renderEnvExample(repoRoot));
  console.log(`generate: ${ENV_EXAMPLE}`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
