// `npm run lint:spec`: redocly lint of spec/ with redocly.yaml, then Spectral's spectral:oas ('all') on the two
// bundled descriptions (scripts/lib/spectral.ts); fails on any error or warning of either.
// `tsx scripts/lint-spec.ts <file>…` runs only the Spectral check, on those files (test/spec-lint.test.ts).
import { lintSpec } from './lib/redocly.js';
import { repoRoot } from './lib/root.js';
import { formatSpectral, spectralLint } from './lib/spectral.js';

const files = process.argv.slice(2);
let redocly = { errors: 0, warnings: 0, failed: false };
if (!files.length) {
  const result = await lintSpec(repoRoot);
  console.log(result.output.trimEnd());
  redocly = { errors: result.errors, warnings: result.warnings, failed: result.code !== 0 };
}
const spectral = await spectralLint(repoRoot, files.length ? files : undefined);
console.log(spectral.length ? formatSpectral(spectral) : 'spectral:oas: no problem found');
if (redocly.failed || redocly.errors > 0 || redocly.warnings > 0 || spectral.length > 0) {
  console.error(
    `lint:spec: redocly ${redocly.errors} error(s), ${redocly.warnings} warning(s); spectral:oas ${spectral.length} problem(s); zero of each is required`,
  );
  process.exit(1);
}
