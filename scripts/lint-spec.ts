// `npm run lint:spec`: redocly lint with redocly.yaml; fails on any error or warning.
import { lintSpec } from './lib/redocly.js';
import { repoRoot } from './lib/root.js';

const result = await lintSpec(repoRoot);
console.log(result.output.trimEnd());
if (result.code !== 0 || result.errors > 0 || result.warnings > 0) {
  console.error(`lint:spec: ${result.errors} error(s), ${result.warnings} warning(s); zero of each is required`);
  process.exit(1);
}
