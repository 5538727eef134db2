// `npm run generate`: builds everything in generated/ (and the named examples) from spec/.
// See scripts/lib/generate.ts for the list of outputs.
import { generate } from './lib/generate.js';
import { repoRoot } from './lib/root.js';

const started = performance.now();
try {
  const files = await generate({ root: repoRoot, log: (line) => console.log(line) });
  console.log(`generate: ${files.length} files in ${Math.round(performance.now() - started)} ms`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
