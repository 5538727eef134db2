// One way to page every list: keyset pagination over a Kysely query, with the cursors of ./cursor.ts.
//
// The page after a cursor is `WHERE (k1, k2) > (cursor values) ORDER BY k1, k2 LIMIT n + 1` (`<` and DESC for a
// descending list): an index on the sort columns makes a page cost the same at row 1 and at row 1,000,000,
// rows inserted behind the reader are not seen and rows inserted ahead are. The cursor values go back to SQL as
// the strings the database returned (`cast($1 as timestamptz)`), so the comparison is exact to the microsecond.
// The last column of the sort must be unique (the id) so rows sharing a timestamp are neither skipped nor
// repeated. Sort columns must not be null.
import { sql, type SelectQueryBuilder, type SqlBool } from 'kysely';
import type { CursorBinding, CursorCodec, CursorValue, FilterValue, SortOrder } from './cursor.js';

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 100;

/** The SQL type of a sort column; the cursor value is cast to it. */
export type SortKeyType = 'timestamptz' | 'uuid' | 'text' | 'bigint' | 'integer';

export interface SortKey<O> {
  /** SQL reference of the column, e.g. `contacts.updated_at`. */
  column: string;
  /** The field of the selected row that holds the column's value. */
  field: keyof O & string;
  type: SortKeyType;
}

export interface ListDefinition<O> {
  codec: CursorCodec;
  /** The list's name, e.g. `contacts`: a cursor of another list is refused. */
  list: string;
  accountId: string;
  /** The parent resource of a nested list. */
  parent?: string | null;
  /** Every filter of the request (normalised): a cursor issued under other filters is refused. */
  filters?: Readonly<Record<string, FilterValue>>;
  order: SortOrder;
  /** Sort columns, most significant first; the last one unique (the id). */
  keys: readonly SortKey<O>[];
}

export interface PageRequest {
  cursor?: string | undefined;
  limit?: number | undefined;
}

export interface Page<T> {
  data: T[];
  next_cursor: string | null;
}

/** The page of `query` after `page.cursor`, in the list's order, with the cursor of the next page. */
export async function paginate<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  list: ListDefinition<O>,
  page: PageRequest,
): Promise<Page<O>> {
  const keyset = keysetQuery(query, list, page);
  return keyset.pageOf(await keyset.query.execute());
}

/**
 * What `paginate` runs, for a list that reads its page inside a larger statement: `query` limited to the page
 * after `page.cursor` (one row more, which says whether there is a next page), and `pageOf`, which makes the
 * page of the rows it gave, in the list's order.
 */
export function keysetQuery<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  list: ListDefinition<O>,
  page: PageRequest,
): { query: SelectQueryBuilder<DB, TB, O>; pageOf: <R extends O>(rows: readonly R[]) => Page<R> } {
  const limit = page.limit ?? DEFAULT_LIMIT;
  // The request validator enforces 1–100; this guards the SQL against a caller that skipped it.
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT) throw new RangeError(`page limit ${limit}`);
  if (list.keys.length === 0) throw new Error(`list ${list.list} has no sort key`);
  const binding = bindingOf(list);

  let q = query;
  if (page.cursor !== undefined) {
    // Decoded before any SQL runs: a bad cursor costs no query.
    const position = list.codec.decode(binding, page.cursor);
    const columns = sql.join(list.keys.map((k) => sql.ref(k.column)));
    const values = sql.join(list.keys.map((k, i) => sql`cast(${position[i]} as ${sql.raw(k.type)})`));
    const op = sql.raw(list.order === 'asc' ? '>' : '<');
    q = q.where(sql<SqlBool>`(${columns}) ${op} (${values})`);
  }
  for (const key of list.keys) q = q.orderBy(sql.ref(key.column), list.order);
  return {
    query: q.limit(limit + 1),
    pageOf: <R extends O>(rows: readonly R[]): Page<R> => {
      const data = rows.slice(0, limit);
      const last = data[data.length - 1];
      const next_cursor =
        rows.length > limit && last !== undefined ? list.codec.encode(binding, positionOf(list, last)) : null;
      return { data, next_cursor };
    },
  };
}

/** The binding a list's cursors are signed with. */
export function bindingOf<O>(list: ListDefinition<O>): CursorBinding {
  return {
    list: list.list,
    accountId: list.accountId,
    parent: list.parent ?? null,
    order: list.order,
    keys: list.keys.map((k) => `${k.column}:${k.type}`),
    ...(list.filters ? { filters: list.filters } : {}),
  };
}

/** The sort key of `row`, as the cursor carries it. */
export function positionOf<O>(list: ListDefinition<O>, row: O): CursorValue[] {
  return list.keys.map((key) => {
    const value: unknown = row[key.field];
    if (typeof value === 'string' || (typeof value === 'number' && Number.isFinite(value))) return value;
    throw new Error(
      `sort key ${key.field} of list ${list.list} must be selected and come back as a string or number` +
        (value instanceof Date ? ' (a Date loses microseconds: use timestamptz)' : ''),
    );
  });
}
