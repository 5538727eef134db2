// docs/security.md names, for each input a tenant controls, the test that shows its guard. This keeps the page
// true: every test file it names exists, and every test it quotes is in one of the files named in the same row
// (a quote may end with "…" for a longer name; "a › b" names a describe and a test).
import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

const page = readFileSync('docs/security.md', 'utf8');
const rows = page.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| ---'));
/** The last cell of a row: the test that shows the guard. */
const shownBy = rows.map((row) => row.split(' | ').at(-1) ?? '').filter((cell) => /test\//.test(cell));

const filesIn = (cell: string) => [...cell.matchAll(/test\/[\w/.-]+\.test\.ts/g)].map((m) => m[0]);
const quotesIn = (cell: string) =>
  [...cell.matchAll(/"([^"]+)"/g)].map((m) => (m[1] ?? '').split('…')[0]?.trim() ?? '').filter((q) => q.length > 0);
/** Quotes and test names written with either apostrophe. */
const plain = (text: string) => text.replaceAll('’', "'");

describe('docs/security.md', () => {
  it('has rows that name their tests', () => expect(shownBy.length).toBeGreaterThan(30));

  it.each(shownBy.map((cell, i) => [i + 1, cell] as const))(
    'row %i: its test files and test names exist',
    (_, cell) => {
      const files = filesIn(cell);
      for (const file of files) expect(existsSync(file), file).toBe(true);
      const sources = files.filter((f) => existsSync(f)).map((f) => plain(readFileSync(f, 'utf8')));
      for (const quote of quotesIn(cell))
        for (const part of quote.split(' › '))
          expect(
            sources.some((source) => source.includes(plain(part))),
            `"${part}" in ${files.join(', ')}`,
          ).toBe(true);
    },
  );
});
