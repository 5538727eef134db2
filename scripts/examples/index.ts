// Entry point of `npm run generate:examples`.
import { buildExamples } from './build.js';

const files = await buildExamples(process.cwd());
console.log(`examples: wrote ${files.length} files`);
