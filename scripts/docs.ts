// `npm run docs`: the references as offline HTML files (Redoc, inlined bundle), one per description:
// docs/index.html (the public API, with docs/getting-started.md first) from generated/openapi.json, and
// docs/admin.html (the vendor console and the sandbox) from generated/admin-openapi.json. Run `npm run generate`
// first after changing spec/. `npm run docs -- <file>` writes the public page there instead, and nothing else.
import { ADMIN_DESCRIPTION, PUBLIC_DESCRIPTION } from './lib/descriptions.js';
import { buildDocs } from './lib/docs.js';
import { repoRoot } from './lib/root.js';

try {
  const output = process.argv[2];
  const pages = output
    ? [await buildDocs({ root: repoRoot, output })]
    : [
        await buildDocs({ root: repoRoot, description: PUBLIC_DESCRIPTION }),
        await buildDocs({ root: repoRoot, description: ADMIN_DESCRIPTION }),
      ];
  for (const page of pages) console.log(`docs: wrote ${page}; open it in a browser (works offline)`);
} catch (error) {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
}
