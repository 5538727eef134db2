// Runs the Redocly CLI of node_modules (never a downloaded one) and drops its Node 20 deprecation banner.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { DESCRIPTIONS } from './descriptions.js';

export interface RunResult {
  code: number;
  /** stdout and stderr, banner dropped. */
  output: string;
  stdout: string;
}

const BANNER = /[║╔╚]/;

export function runRedocly(root: string, args: string[]): Promise<RunResult> {
  return new Promise((resolvePromise) => {
    execFile(
      join(root, 'node_modules/.bin/redocly'),
      args,
      { cwd: root, maxBuffer: 64 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', NO_COLOR: '1' } },
      (error, stdout, stderr) => {
        const output = `${stdout}${stderr}`
          .split('\n')
          .filter((line) => !BANNER.test(line))
          .join('\n')
          .replace(/^\n+/, '');
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolvePromise({ code, output, stdout });
      },
    );
  });
}

export interface LintResult extends RunResult {
  errors: number;
  warnings: number;
}

/** `redocly lint` of both roots (spec/openapi.yaml, spec/admin.yaml) with redocly.yaml; counts errors and warnings. */
export async function lintSpec(root: string): Promise<LintResult> {
  const result = await runRedocly(root, [
    'lint',
    ...DESCRIPTIONS.map((d) => d.root),
    '--format',
    'stylish',
    '--config',
    'redocly.yaml',
  ]);
  // The summary line: "Validation failed with 3 errors and 1 warning." / "You have 2 warnings." / "Woohoo!…"
  const summary =
    result.output
      .split('\n')
      .filter((l) => /Validation failed with|You have \d+ warning|Woohoo/.test(l))
      .pop() ?? '';
  const count = (word: string) => Number(new RegExp(`(\\d+) ${word}`).exec(summary)?.[1] ?? 0);
  const errors = Math.max(count('error'), result.code === 0 ? 0 : 1);
  const warnings = count('warning');
  return { ...result, errors, warnings };
}

export interface LintProblem {
  ruleId: string;
  severity: string;
  message: string;
  location: { source: { ref: string }; pointer: string }[];
}

/** `redocly lint --format json` of any root file with the repository's redocly.yaml: the problems found. */
export async function lintProblems(root: string, specFile: string): Promise<LintProblem[]> {
  const result = await runRedocly(root, [
    'lint',
    specFile,
    '--format',
    'json',
    '--config',
    'redocly.yaml',
    '--max-problems',
    '10000',
  ]);
  const start = result.stdout.indexOf('{');
  if (start < 0) throw new Error(`redocly lint gave no JSON:\n${result.output}`);
  const report = JSON.parse(result.stdout.slice(start)) as { problems: LintProblem[] };
  return report.problems;
}
