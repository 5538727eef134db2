import { readFileSync } from 'node:fs';
import { codeSamples, PUBLIC_SAMPLES } from './scripts/lib/code-samples.js';
const doc = JSON.parse(readFileSync('generated/openapi.json', 'utf8'));
for (const [k, s] of codeSamples(doc, PUBLIC_SAMPLES)) { if (process.argv[2] && !k.includes(process.argv[2])) continue; console.log('=== ' + k); console.log(s[0]!.source); if (process.argv[3]) console.log(s[1]!.source); }
