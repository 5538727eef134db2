// `redocly lint` with redocly.yaml (recommended-strict plus this API's rules) finds nothing, and Spectral's
// spectral:oas ('all', scripts/lib/spectral.ts) finds nothing in the bundled descriptions and fails lint:spec on
// a description it finds fault with.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { lintSpec } from '../scripts/lib/redocly.js';
import { formatSpectral, spectralLint } from '../scripts/lib/spectral.js';
import { repoRoot } from './helpers.js';

const run = promisify(execFile);

describe('spec lint', () => {
  it('has zero errors and zero warnings', async () => {
    const result = await lintSpec(repoRoot);
    if (result.errors || result.warnings) console.error(result.output);
    expect({ errors: result.errors, warnings: result.warnings, exitCode: result.code }).toEqual({
      errors: 0,
      warnings: 0,
      exitCode: 0,
    });
  });
});

/** A small valid 3.1 description; `extra` is merged into its operation, `components` into its components. */
function description(operation: string, components = ''): string {
  return `openapi: 3.1.0
info:
  title: Probe
  version: v1
  description: A description for the lint test.
  contact: { name: Team, url: https://things.test, email: team@things.test }
  license: { name: Proprietary, url: https://things.test/terms }
servers:
  - url: https://api.things.test
tags:
  - name: Things
    description: Things.
paths:
  /v1/things:
    get:
      operationId: listThings
      summary: List things
      description: Lists the things.
      tags: [Things]
${operation}
      responses:
        '200':
          description: The things.
          content:
            application/json:
              schema: { $ref: '#/components/schemas/Thing' }
components:
  securitySchemes:
    ApiKey: { type: http, scheme: bearer, description: A key. }
  schemas:
    Thing:
      type: object
      description: A thing.
      properties:
        id: { type: string, description: Its id. }
${components}`;
}

describe('spectral:oas in lint:spec', () => {
  const dir = mkdtempSync(join(tmpdir(), 'spectral-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const file = (name: string, text: string) => {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  };

  it('finds nothing in generated/openapi.yaml and generated/admin-openapi.yaml', async () => {
    const problems = await spectralLint(repoRoot);
    expect(formatSpectral(problems)).toBe('');
  }, 60_000);

  it("fails lint:spec's check on a description with a Spectral error, naming the rule and the path", async () => {
    // operation-operationId-unique is an error in spectral:oas.
    const bad = description(
      `      security: [{ ApiKey: [] }]\n    post:\n      operationId: listThings\n      summary: Make a thing\n      description: Makes one.\n      tags: [Things]\n      responses:\n        '204': { description: Made. }`,
    );
    // The script as `npm run lint:spec` runs it (tsx), in one process: npx and tsx's CLI would start two more.
    const lintSpec = (path: string) =>
      run(process.execPath, ['--import', 'tsx', 'scripts/lint-spec.ts', path], { cwd: repoRoot });
    const failed = await lintSpec(file('bad.yaml', bad)).then(
      () => undefined,
      (error: { code: number; stdout: string }) => error,
    );
    expect(failed?.code).toBe(1);
    expect(failed?.stdout).toMatch(/error operation-operationId-unique at paths\.\/v1\/things\.post\.operationId/);
    // The same description without the duplicate passes.
    const good = description('      security: [{ ApiKey: [] }]');
    const passed = await lintSpec(file('good.yaml', good));
    expect(passed.stdout).toContain('spectral:oas: no problem found');
  }, 60_000);

  it('allows 3.1 role names on a bearer scheme but not an undefined scheme or an unused component', async () => {
    const roles = file('roles.yaml', description('      security: [{ ApiKey: [things:read] }]'));
    expect(await spectralLint(repoRoot, [roles])).toEqual([]);
    const undefinedScheme = file('scheme.yaml', description('      security: [{ Missing: [] }]'));
    expect((await spectralLint(repoRoot, [undefinedScheme])).map((p) => [p.rule, p.path])).toEqual([
      ['oas3-operation-security-defined', 'paths./v1/things.get.security.0.Missing'],
    ]);
    // Only WebhookEvent may be unreferenced.
    const unused = file(
      'unused.yaml',
      description('      security: [{ ApiKey: [] }]', '    Other: { type: string, description: Unused. }'),
    );
    expect((await spectralLint(repoRoot, [unused])).map((p) => [p.rule, p.path])).toEqual([
      ['oas3-unused-component', 'components.schemas.Other'],
    ]);
  }, 60_000);
});
