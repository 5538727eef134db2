// Reads the source as a newcomer would measure it (issue 21, "the engine's house"; widened to the console by issue
// 34): every import of every .ts and .tsx file under server/ and console/ (type-only ones, re-exports, `import()`
// types and dynamic imports included), the type casts and non-null assertions, the length of every function, the
// import cycles and the channels' arrows into the domain and the store. `npm run house` prints the figures;
// test/layers.test.ts states the rules of the house on the same reading.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';

export const repoRoot = resolve(dirname(new URL(import.meta.url).pathname), '../..');

export interface Import {
  /** The importing file, relative to the repository root (`server/…`). */
  from: string;
  /** The imported file relative to the repository root, or the package name of a bare specifier. */
  to: string;
  /** The names it imports or re-exports (`default`, `*` for a namespace or a dynamic import). */
  names: string[];
  /** Line of the import in `from`. */
  line: number;
}

export interface Finding {
  file: string;
  line: number;
  text: string;
  /** A `//` comment on the line or the line above says why. */
  explained: boolean;
}

export interface LongFunction {
  file: string;
  line: number;
  name: string;
  lines: number;
}

/** The .ts and .tsx files under `dir` (relative to the repository), recursively, sorted. */
export function sourceFiles(dir: string): string[] {
  return readdirSync(join(repoRoot, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => relative(repoRoot, join(entry.parentPath, entry.name)))
    .sort();
}

const parsed = new Map<string, ts.SourceFile>();
function parse(file: string): ts.SourceFile {
  let source = parsed.get(file);
  if (!source) {
    source = ts.createSourceFile(file, readFileSync(join(repoRoot, file), 'utf8'), ts.ScriptTarget.Latest, true);
    parsed.set(file, source);
  }
  return source;
}

/**
 * `./x.js` from server/a/b.ts → server/a/x.ts (the NodeNext spelling of a TypeScript file); from the console,
 * console/x.tsx when that is the file there (a component's module).
 */
function target(file: string, specifier: string): string {
  if (!specifier.startsWith('.')) return specifier;
  const path = relative(repoRoot, resolve(repoRoot, dirname(file), specifier));
  if (!path.endsWith('.js')) return path;
  const tsx = path.replace(/\.js$/, '.tsx');
  return existsSync(join(repoRoot, tsx)) ? tsx : path.replace(/\.js$/, '.ts');
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

const lineOf = (source: ts.SourceFile, node: ts.Node) =>
  source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1;

function specifierOf(node: ts.Node): { text: string; names: string[] } | undefined {
  if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier))
    return { text: node.moduleSpecifier.text, names: bindingNames(node.importClause) };
  if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
    const clause = node.exportClause;
    const names =
      clause && ts.isNamedExports(clause) ? clause.elements.map((e) => (e.propertyName ?? e.name).text) : ['*'];
    return { text: node.moduleSpecifier.text, names };
  }
  if (
    ts.isCallExpression(node) &&
    node.expression.kind === ts.SyntaxKind.ImportKeyword &&
    node.arguments[0] &&
    ts.isStringLiteralLike(node.arguments[0])
  )
    return { text: node.arguments[0].text, names: ['*'] };
  if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal))
    return { text: node.argument.literal.text, names: node.qualifier ? [node.qualifier.getText()] : ['*'] };
  return undefined;
}

/** Every import of `file`, types included. */
export function importsOf(file: string): Import[] {
  const source = parse(file);
  const found: Import[] = [];
  const visit = (node: ts.Node): void => {
    const specifier = specifierOf(node);
    if (specifier)
      found.push({ from: file, to: target(file, specifier.text), names: specifier.names, line: lineOf(source, node) });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

function explained(source: ts.SourceFile, node: ts.Node): boolean {
  const line = lineOf(source, node);
  const lines = source.text.split('\n');
  return [lines[line - 1], lines[line - 2]].some((text) => text !== undefined && text.includes('//'));
}

const isAsConst = (node: ts.AsExpression) =>
  ts.isTypeReferenceNode(node.type) && node.type.typeName.getText() === 'const';

function collect(file: string, match: (node: ts.Node) => boolean): Finding[] {
  const source = parse(file);
  const found: Finding[] = [];
  const visit = (node: ts.Node): void => {
    if (match(node))
      found.push({
        file,
        line: lineOf(source, node),
        text: node.getText(source).replace(/\s+/g, ' ').slice(0, 100),
        explained: explained(source, node),
      });
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Type casts (`x as T`, `<T>x`), `as const` aside. */
export const castsIn = (file: string) =>
  collect(file, (n) => (ts.isAsExpression(n) && !isAsConst(n)) || ts.isTypeAssertionExpression(n));

/** Non-null assertions (`x!`). */
export const nonNullsIn = (file: string) => collect(file, (n) => ts.isNonNullExpression(n));

function functionName(node: ts.Node, source: ts.SourceFile): string {
  const named = node as ts.Node & { name?: ts.Node }; // every function-like node may carry a name
  if (named.name) return named.name.getText(source);
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent))
    return parent.name.getText(source);
  return '(anonymous)';
}

/** Every function (declarations, methods, arrows, expressions) of `file` with its length, inner functions included. */
export function functionsIn(file: string): LongFunction[] {
  const source = parse(file);
  const found: LongFunction[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body) {
      const start = lineOf(source, node);
      const end = source.getLineAndCharacterOfPosition(node.getEnd()).line + 1;
      found.push({ file, line: start, name: functionName(node, source), lines: end - start + 1 });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** Functions longer than `max` lines. */
export const longFunctionsIn = (file: string, max: number): LongFunction[] =>
  functionsIn(file).filter((f) => f.lines > max);

/**
 * The import cycles among the files read (strongly connected components of more than one file, or a file importing
 * itself). Only imports of a file that was read can close a cycle: packages and other trees are left out.
 */
export function importCycles(imports: Import[]): string[][] {
  const read = new Set(imports.map((i) => i.from));
  const edges = new Map<string, Set<string>>();
  for (const i of imports) {
    if (!read.has(i.to)) continue;
    const set = edges.get(i.from) ?? new Set<string>();
    set.add(i.to);
    edges.set(i.from, set);
  }
  // Tarjan's algorithm, iterative enough for a few hundred files.
  let index = 0;
  const order = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (file: string): void => {
    order.set(file, index);
    low.set(file, index);
    index += 1;
    stack.push(file);
    onStack.add(file);
    for (const next of edges.get(file) ?? []) {
      if (!order.has(next)) {
        connect(next);
        low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, order.get(next) ?? 0));
    }
    if (low.get(file) !== order.get(file)) return;
    const component: string[] = [];
    for (;;) {
      const member = stack.pop();
      if (member === undefined) break;
      onStack.delete(member);
      component.push(member);
      if (member === file) break;
    }
    if (component.length > 1 || edges.get(file)?.has(file)) cycles.push(component.sort());
  };
  for (const file of edges.keys()) if (!order.has(file)) connect(file);
  return cycles;
}

/** The limits of issue 34 over all of server/ and console/ (issue 21 set them on server/engine and server/http). */
export const HOUSE_LIMITS = { casts: 15, nonNulls: 5, functionLines: 80 } as const;

/** The trees the house reads: the server and the operator's console (a browser page). */
export const HOUSE_TREES = ['server', 'console'] as const;

/** The rooms the channels may not reach: a provider gets a channel object of its own, never a row or a use case. */
const CHANNELS_MAY_NOT_REACH = ['server/domain/', 'server/store/'];

/** Every figure of the house, read from the files as they are now. */
export function readHouse() {
  const files = HOUSE_TREES.flatMap(sourceFiles);
  const imports = files.flatMap(importsOf);
  const functions = files.flatMap(functionsIn);
  const longest = functions.reduce<LongFunction | undefined>((a, b) => (a && a.lines >= b.lines ? a : b), undefined);
  return {
    files,
    imports,
    casts: files.flatMap(castsIn),
    nonNulls: files.flatMap(nonNullsIn),
    longest,
    longFunctions: functions.filter((f) => f.lines > HOUSE_LIMITS.functionLines),
    cycles: importCycles(imports),
    channelArrows: imports.filter(
      (i) => i.from.startsWith('server/channels/') && CHANNELS_MAY_NOT_REACH.some((room) => i.to.startsWith(room)),
    ),
  };
}

/** The exported functions of `file`: function declarations and consts holding a function. */
export function exportedFunctions(file: string): string[] {
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
