// `npm run check:generated`: fails, listing the files, when generated/ or spec/components/examples/ differ
// from what `npm run generate` produces. It regenerates into a temporary folder; nothing in the tree changes.
import { checkGenerated } from './lib/check.js';
import { repoRoot } from './lib/root.js';

try {
  const problems = await checkGenerated(repoRoot);
  if (problems.length) {
    console.error('generated files are not what `npm run generate` produces:');
    for (const p of problems) console.error(`  ${p}`);
    console.error('Run `npm run generate` and commit the result.');
    process.exit(1);
  }
  console.log('check:generated: generated/ and spec/components/examples/ are up to date');
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
