// server/README.md's "Where each rule lives" is the index a partner's engineer and the next session read first. It
// must tell the truth: every file or folder a row names exists (under server/, or the repository for `spec/`),
// and every symbol it names in backticks (`replyWindow`, `INVOKE_MAX_ATTEMPTS`) is in one of the row's files.
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const readme = readFileSync('server/README.md', 'utf8');
const section = readme.slice(readme.indexOf('## Where each rule lives'), readme.indexOf('## Adding a block type'));
const rows = section
  .split('\n')
  .filter((line) => line.startsWith('| ') && !line.startsWith('| rule') && !line.startsWith('| ---'))
  .map((line) => line.split(' | ').map((cell) => cell.replace(/^\| ?| ?\|$/g, '').trim()));

const ticked = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
const isPath = (token: string) => /^[\w./<>-]+(\.ts|\/)$/.test(token);
/** Where a path of the index is: server/ for the server's rooms, the repository for `spec/`. */
const located = (path: string) => (path.startsWith('spec/') ? path : join('server', path));

/** The text of a row's files (a folder: none; a `<type>` template: none). */
function sources(paths: string[]): string[] {
  return paths
    .filter((p) => !p.includes('<'))
    .map(located)
    .filter((p) => existsSync(p) && statSync(p).isFile())
    .map((p) => readFileSync(p, 'utf8'));
}

describe('server/README.md, "Where each rule lives"', () => {
  it('reads the index', () => expect(rows.length).toBeGreaterThan(25));

  it.each(rows.map(([rule, where]) => [rule ?? '', where ?? ''] as const))('%s', (_rule, where) => {
    const tokens = ticked(where);
    const paths = tokens.filter(isPath);
    expect(paths.length, where).toBeGreaterThan(0);
    // A bare file name belongs to the row's folder; under a `<type>` template folder it names the files a kind may
    // have (a definition always, which the block table's type requires), so it is not looked for.
    const template = paths.some((p) => p.includes('<'));
    for (const path of paths.filter((p) => !p.includes('<') && (p.includes('/') || !template)))
      expect(existsSync(located(path)), path).toBe(true);
    const texts = sources(paths);
    for (const symbol of tokens.filter((t) => !isPath(t) && /^[A-Za-z_][\w-]*$/.test(t)))
      expect(
        texts.some((text) => text.includes(symbol)),
        `${symbol} in ${paths.join(', ')}`,
      ).toBe(true);
  });

  it('catches a row that names what is gone', () => {
    expect(existsSync(located('domain/messaging/no-such-file.ts'))).toBe(false);
    expect(sources(['domain/workflows/mutation.ts']).some((t) => t.includes('requireRevision'))).toBe(true);
    expect(sources(['domain/workflows/mutation.ts']).some((t) => t.includes('noSuchSymbolAnywhere'))).toBe(false);
  });
});
