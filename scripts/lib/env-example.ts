// .env.example from server/config.ts: every setting in the order of its schema, with the comment above it
// (its meaning) and its default. Read from the source, so the comment in config.ts is the one place a setting
// is documented. `npm run generate` writes the file; `npm run check:generated` fails when it is not current.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

export const ENV_EXAMPLE = '.env.example';

export interface Setting {
  name: string;
  meaning: string;
  /** The literal of `.default(…)`, or undefined: unset (optional, or a default derived from other settings). */
  defaultValue: string | undefined;
}

/** The settings of the `z.object({...})` in server/config.ts. */
export function readSettings(root: string): Setting[] {
  const file = join(root, 'server/config.ts');
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true);
  const object = findSchemaObject(source);
  if (!object) throw new Error('server/config.ts: no z.object({...}) of settings found');
  return object.properties.filter(ts.isPropertyAssignment).map((property) => {
    const name = property.name.getText(source);
    const comments = ts.getLeadingCommentRanges(text, property.getFullStart()) ?? [];
    const meaning = comments
      .map((range) => text.slice(range.pos, range.end).replace(/^\/\/ ?/, ''))
      .join(' ')
      .trim();
    return { name, meaning, defaultValue: defaultOf(property.initializer, source) };
  });
}

function findSchemaObject(source: ts.SourceFile): ts.ObjectLiteralExpression | undefined {
  let found: ts.ObjectLiteralExpression | undefined;
  const visit = (node: ts.Node): void => {
    if (found) return;
    if (
      ts.isCallExpression(node) &&
      ts.isPropertyAccessExpression(node.expression) &&
      node.expression.name.text === 'object' &&
      node.expression.expression.getText(source) === 'z' &&
      node.arguments[0] &&
      ts.isObjectLiteralExpression(node.arguments[0])
    ) {
      found = node.arguments[0];
      return;
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/** The argument of the outermost `.default(…)` in the chain, as an environment value. */
function defaultOf(expression: ts.Expression, source: ts.SourceFile): string | undefined {
  let node: ts.Expression = expression;
  while (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression)) {
    const [argument] = node.arguments;
    if (node.expression.name.text === 'default' && argument) {
      if (ts.isStringLiteral(argument)) return argument.text;
      return argument.getText(source).replaceAll('_', '');
    }
    node = node.expression.expression;
  }
  return undefined;
}

/** The file's text: a commented line per setting, so copying it changes nothing until a line is uncommented. */
export function renderEnvExample(root: string): string {
  const settings = readSettings(root);
  const missing = settings.filter((setting) => !setting.meaning).map((setting) => setting.name);
  if (missing.length)
    throw new Error(`server/config.ts: settings without a comment saying what they are: ${missing.join(', ')}`);
  const blocks = settings.map(({ name, meaning, defaultValue }) =>
    [...wrap(meaning, 110).map((line) => `# ${line}`), `# ${name}=${defaultValue ?? ''}`].join('\n'),
  );
  return [
    '# Every setting of the server, with its default (built by `npm run generate` from server/config.ts; do not edit).',
    '# The server reads the environment only: copy what you change into your service manager or',
    '# `node --env-file=.env`, uncommented. An empty value after `=`: unset by default.',
    '',
    blocks.join('\n\n'),
    '',
  ].join('\n');
}

function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let line = '';
  for (const word of text.split(/\s+/)) {
    if (line && line.length + 1 + word.length > width) {
      lines.push(line);
      line = word;
    } else line = line ? `${line} ${word}` : word;
  }
  if (line) lines.push(line);
  return lines;
}
