// No text a tenant writes reaches a code evaluator (issue 33; docs/security.md): the server's source neither imports
// an evaluator of expressions (jsonpath-plus, whose "safe" evaluator ran a tenant's JavaScript; vm; expression
// libraries) nor calls one (`eval`, `Function`, `new Function`). The invoke block's paths are read by an RFC 9535
// interpreter (server/blocks/invoke/field-path.ts); test/server/invoke-field-paths.test.ts runs the escapes.
import { readFileSync, readdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';

const root = new URL('..', import.meta.url).pathname;

function sourcesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourcesUnder(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** Modules that evaluate expressions given as text. */
const EVALUATOR_MODULES =
  /from\s+'(jsonpath-plus|jsonpath|vm|node:vm|expr-eval|mathjs|safe-eval|vm2|jsep|static-eval)'/;
/** Calls that turn text into code. */
const EVALUATOR_CALLS = /\beval\s*\(|\bnew\s+Function\s*\(|(?<![\w.])Function\s*\(/;

describe('no evaluator reaches tenant text', () => {
  const files = sourcesUnder(join(root, 'server'));

  it('reads the server source', () => expect(files.length).toBeGreaterThan(100));

  it('no server module imports an expression evaluator or turns text into code', () => {
    const found = files.flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) =>
          EVALUATOR_MODULES.test(line) || EVALUATOR_CALLS.test(line)
            ? [`${relative(root, file)}:${i + 1}: ${line.trim()}`]
            : [],
        ),
    );
    expect(found).toEqual([]);
  });

  it('the rules catch what they are for', () => {
    expect(EVALUATOR_MODULES.test("import { JSONPath } from 'jsonpath-plus';")).toBe(true);
    expect(EVALUATOR_MODULES.test("import vm from 'node:vm';")).toBe(true);
    expect(EVALUATOR_CALLS.test("const f = new Function('return 1');")).toBe(true);
    expect(EVALUATOR_CALLS.test('eval(text)')).toBe(true);
    expect(EVALUATOR_CALLS.test("@.constructor.constructor('x')")).toBe(false);
    expect(EVALUATOR_CALLS.test('const worker = new Worker(url, { eval: false });')).toBe(false);
  });

  it('the dependencies hold no jsonpath-plus at run time', () => {
    const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
    };
    expect(Object.keys(pkg.dependencies)).not.toContain('jsonpath-plus');
    expect(pkg.dependencies['jsonpath-rfc9535']).toBeDefined();
  });
});
