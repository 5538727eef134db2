// The arrows between the server's rooms point one way (server/README.md, "Rules of the house"): every import of
// every .ts file under server/ is read with the TypeScript parser (type-only imports, re-exports and dynamic
// import() included) and checked against the rules below.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

interface Import {
  /** The importing file, relative to the repository root (`server/…`). */
  from: string;
  /** The imported file relative to the repository root, or the package name of a bare specifier. */
  to: string;
  /** The names it imports or re-exports (`default`, `*` for a namespace or a dynamic import). */
  names: string[];
}

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return tsFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}

/** `./x.js` from server/a/b.ts → server/a/x.ts (the NodeNext spelling of a TypeScript file). */
function target(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  return relative(repoRoot, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts');
}

function bindingNames(clause: ts.ImportClause | undefined): string[] {
  if (!clause) return []; // import './side-effect.js'
  const names = clause.name ? ['default'] : [];
  const bindings = clause.namedBindings;
  if (bindings && ts.isNamespaceImport(bindings)) names.push('*');
  if (bindings && ts.isNamedImports(bindings))
    for (const element of bindings.elements) names.push((element.propertyName ?? element.name).text);
  return names;
}

function importsOf(file: string): Import[] {
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const from = relative(repoRoot, file);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
      found.push({ from, to: target(file, node.moduleSpecifier.text), names: bindingNames(node.importClause) });
    else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.exportClause;
      const names =
        clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
      found.push({ from, to: target(file, node.moduleSpecifier.text), names });
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    )
      found.push({ from, to: target(file, node.arguments[0].text), names: ['*'] });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

const imports = tsFiles(join(repoRoot, 'server')).flatMap(importsOf);

const under = (path: string, dir: string) => path.startsWith(`${dir}/`);
const edge = (i: Import) => `${i.from} → ${i.to}`;

describe('the import arrows of server/', () => {
  it('reads the imports (a parser that found none would pass every rule)', () => {
    expect(imports.map(edge)).toEqual(
      expect.arrayContaining([
        'server/http/app.ts → server/http/idempotency.ts',
        'server/main.ts → server/http/app.ts',
        'server/domain/webhooks/endpoints.ts → server/errors.ts',
      ]),
    );
  });

  it('only server/http/ imports from server/http/ (and the process entry, which assembles the app)', () => {
    const wrong = imports.filter(
      (i) => under(i.to, 'server/http') && !under(i.from, 'server/http') && i.from !== 'server/main.ts',
    );
    expect(wrong.map(edge)).toEqual([]);
  });

  it('server/store/ never imports from server/domain/', () => {
    const wrong = imports.filter((i) => under(i.from, 'server/store') && under(i.to, 'server/domain'));
    expect(wrong.map(edge)).toEqual([]);
  });

  it('server/domain/ never imports GatewayError: the domain throws ApiError', () => {
    const wrong = imports.filter((i) => under(i.from, 'server/domain') && i.names.includes('GatewayError'));
    expect(wrong.map(edge)).toEqual([]);
  });

  it('no middleware imports from server/http/routes/: app.ts hands it what it needs (idempotency.ts, the replayers)', () => {
    const middleware = (path: string) =>
      under(path, 'server/http') && !under(path, 'server/http/routes') && path !== 'server/http/app.ts';
    const wrong = imports.filter((i) => middleware(i.from) && under(i.to, 'server/http/routes'));
    expect(wrong.map(edge)).toEqual([]);
  });
});
