// `npm run build`: the server compiled to JavaScript in dist/ (tsconfig.build.json), so production runs
// `node dist/server/main.js` with no TypeScript loader and no development dependency (`npm run start:prod`).
// The files the server reads at run time beside its modules (the bundled spec, the block catalog schema) are
// copied to the same place under dist/, where their `new URL('../../generated/…', import.meta.url)` finds them.
import { execFileSync } from 'node:child_process';
import { cpSync, readdirSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from './lib/root.js';

const dist = join(repoRoot, 'dist');
const started = performance.now();
rmSync(dist, { recursive: true, force: true }); // no module left over from a file since removed
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
execFileSync(process.execPath, [tsc, '-p', join(repoRoot, 'tsconfig.build.json')], { stdio: 'inherit' });
for (const file of readdirSync(join(repoRoot, 'generated')).filter((name) => name.endsWith('.json')))
  cpSync(join(repoRoot, 'generated', file), join(dist, 'generated', file));
console.log(`build: dist/ in ${Math.round(performance.now() - started)} ms; run it with npm run start:prod`);
