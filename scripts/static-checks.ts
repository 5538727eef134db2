// The static checks of `npm test` (typecheck, lint, format), side by side: each is one single-threaded process, so
// one after another they left a core of this 2-core machine idle for a minute or more. Each one's output is
// printed whole when it ends, with its time; the exit code is 1 when any failed. The spec lint and the generated
// files are checked inside the vitest run (test/spec-lint.test.ts, test/generated.test.ts, test/env-example.test.ts).
import { spawn } from 'node:child_process';

const CHECKS = ['typecheck', 'lint', 'format:check'];

interface Finished {
  name: string;
  code: number;
  output: string;
  seconds: number;
}

function run(name: string): Promise<Finished> {
  const started = Date.now();
  const child = spawn('npm', ['run', '--silent', name], { stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
  return new Promise((resolve) =>
    child.on('close', (code) => resolve({ name, code: code ?? 1, output, seconds: (Date.now() - started) / 1000 })),
  );
}

const finished = await Promise.all(CHECKS.map(run));
for (const check of finished) {
  if (check.output.trim()) console.log(check.output.trimEnd());
  console.log(`${check.name}: ${check.code === 0 ? 'passed' : `failed (exit ${check.code})`} in ${check.seconds} s`);
}
process.exit(finished.every((check) => check.code === 0) ? 0 : 1);
