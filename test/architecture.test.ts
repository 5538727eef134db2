// The layers of the server keep to their places: the routes speak HTTP and call the domain, never the store,
// and a store function's name (what SQL it runs) is never also a domain function's (what rule it applies), so
// an import says which of the two a caller gets.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { repoRoot } from './helpers.js';

/** The .ts files under `dir` (relative to the repository), recursively. */
function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)));
}

const parse = (file: string) =>
  ts.createSourceFile(file, readFileSync(join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);

/** Every module `file` imports or re-exports, types included, as a path relative to the repository. */
function importsOf(file: string): string[] {
  const found: string[] = [];
  const visit = (node: ts.Node) => {
    const specifier =
      (ts.isImportDeclaration(node) || ts.isExportDeclaration(node)) && node.moduleSpecifier
        ? node.moduleSpecifier
        : ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword
          ? node.arguments[0]
          : ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument)
            ? node.argument.literal
            : undefined;
    if (specifier && ts.isStringLiteral(specifier) && specifier.text.startsWith('.'))
      found.push(relative(repoRoot, resolve(repoRoot, dirname(file), specifier.text)));
    ts.forEachChild(node, visit);
  };
  visit(parse(file));
  return found;
}

/** The exported functions of `file`: function declarations and consts holding a function. */
function exportedFunctions(file: string): string[] {
  const names: string[] = [];
  const exported = (node: ts.Node) =>
    ts.canHaveModifiers(node) && (ts.getModifiers(node) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const statement of parse(file).statements) {
    if (!exported(statement)) continue;
    if (ts.isFunctionDeclaration(statement) && statement.name) names.push(statement.name.text);
    if (ts.isVariableStatement(statement))
      for (const declaration of statement.declarationList.declarations)
        if (
          ts.isIdentifier(declaration.name) &&
          declaration.initializer &&
          (ts.isArrowFunction(declaration.initializer) || ts.isFunctionExpression(declaration.initializer))
        )
          names.push(declaration.name.text);
  }
  return names;
}

describe('the layers of the server', () => {
  it('routes import nothing from the store', () => {
    const routes = sourceFiles('server/http/routes');
    expect(routes.length).toBeGreaterThan(0);
    const offending = routes.flatMap((file) =>
      importsOf(file)
        .filter((target) => target.startsWith('server/store/'))
        .map((target) => `${file} imports ${target}`),
    );
    expect(offending).toEqual([]);
  });

  it('no exported function name is both a store and a domain function', () => {
    const byName = (dir: string) => {
      const names = new Map<string, string>();
      for (const file of sourceFiles(dir)) for (const name of exportedFunctions(file)) names.set(name, file);
      return names;
    };
    const store = byName('server/store');
    const domain = byName('server/domain');
    expect(store.size).toBeGreaterThan(0);
    const shared = [...store]
      .filter(([name]) => domain.has(name))
      .map(([name, file]) => `${name}: ${file} and ${domain.get(name)}`);
    expect(shared).toEqual([]);
  });

  it('the checks see what they look for', () => {
    // A scan that finds nothing passes whatever the code: the helpers must find a known import and export.
    expect(importsOf('server/domain/tags/tags.ts')).toContain('server/store/tags.js');
    expect(exportedFunctions('server/store/tags.ts')).toContain('selectTagsPage');
    expect(exportedFunctions('server/domain/tags/tags.ts')).toEqual(expect.arrayContaining(['listTags', 'tagView']));
  });
});
