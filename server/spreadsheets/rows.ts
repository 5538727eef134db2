// How a sheets write changes a tab's rows (Part B, "sheets"), pure so every rule has its own test: row 1 holds
// the column titles; match, append, update (the whole row rewritten), upsert (empty values keep their cells, or an
// append) and delete. A real provider that reads the tab before writing applies the same rules.
import type { SheetMatch, SheetValues, SheetWrite, SheetWriteResult } from './provider.js';

/** The most rows (header included) a sandbox tab keeps: an append beyond fails its step. */
export const MAX_TAB_ROWS = 10_000;

/**
 * The index of each column title in the header, the first column of a repeated title only; a column without a
 * title takes no value.
 */
function columnsOf(header: readonly string[]): Map<string, number> {
  const columns = new Map<string, number>();
  header.forEach((title, index) => {
    if (title !== '' && !columns.has(title)) columns.set(title, index);
  });
  return columns;
}

/**
 * The index of the first data row (never the header) whose cells equal every match value; a missing cell reads
 * as ''. A match column the tab lacks matches no row (a delete never removes a row it could not check). Without
 * a match, the first data row.
 */
export function matchingRow(rows: readonly (readonly string[])[], match: readonly SheetMatch[]): number | null {
  const columns = columnsOf(rows[0] ?? []);
  const wanted = match.map((m) => ({ index: columns.get(m.column), value: m.value.text }));
  if (wanted.some((w) => w.index === undefined)) return null;
  for (let i = 1; i < rows.length; i += 1) {
    const row = rows[i] ?? [];
    if (wanted.every((w) => w.index !== undefined && (row[w.index] ?? '') === w.value)) return i;
  }
  return null;
}

/** A row as wide as the header: each titled column's value, '' where `values` has none. */
function freshRow(header: readonly string[], values: SheetValues): string[] {
  const columns = columnsOf(header);
  return header.map((title, index) => (columns.get(title) === index ? (values.get(title)?.text ?? '') : ''));
}

/** `row` with the non-empty values written over its cells (padded to the header's width). */
function mergedRow(header: readonly string[], row: readonly string[], values: SheetValues): string[] {
  const merged = [...row];
  while (merged.length < header.length) merged.push('');
  for (const [title, index] of columnsOf(header)) {
    const text = values.get(title)?.text ?? '';
    if (text !== '') merged[index] = text;
  }
  return merged;
}

/** The tab's rows after the write, and what was done (`rows` unchanged when nothing was written). */
export function applyWrite(
  rows: readonly string[][],
  write: SheetWrite,
  maxRows = MAX_TAB_ROWS,
): { rows: string[][]; result: SheetWriteResult } {
  const header = rows[0] ?? [];
  const next = rows.map((row) => [...row]);
  const append = (values: SheetValues): { rows: string[][]; result: SheetWriteResult } => {
    if (next.length >= maxRows) return { rows: next, result: { outcome: 'tab_full', maxRows } };
    next.push(freshRow(header, values));
    return { rows: next, result: { outcome: 'appended', row: next.length } };
  };
  if (write.operation === 'append') return append(write.values);
  const at = matchingRow(rows, write.match);
  if (at === null)
    return write.operation === 'upsert' ? append(write.values) : { rows: next, result: { outcome: 'no_match' } };
  if (write.operation === 'delete') {
    next.splice(at, 1);
    return { rows: next, result: { outcome: 'deleted', row: at + 1 } };
  }
  next[at] =
    write.operation === 'update' ? freshRow(header, write.values) : mergedRow(header, next[at] ?? [], write.values);
  return { rows: next, result: { outcome: 'updated', row: at + 1 } };
}
