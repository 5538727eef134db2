// `npm run docs`: the API reference as one offline HTML file, docs/index.html (Redoc, inlined bundle), from
// generated/openapi.yaml and docs/getting-started.md. Run `npm run generate` first after changing spec/.
import { buildDocs } from './lib/docs.js';
import { repoRoot } from './lib/root.js';

try {
  const output = await buildDocs({ root: repoRoot, output: process.argv[2] });
  console.log(`docs: wrote ${output}; open it in a browser (works offline)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
