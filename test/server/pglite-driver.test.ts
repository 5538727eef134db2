// The embedded driver runs a query in one call into PGlite and prepares statements (store/pglite-dialect.ts):
// it must answer exactly as PGlite's query() does, through transactions, failures and a table that changes.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Database } from '../../server/store/database.js';
import { openTestDatabase } from './harness.js';

describe('the embedded driver', () => {
  let database: Database;
  let drop: () => Promise<void>;
  beforeAll(async () => {
    ({ database, drop } = await openTestDatabase('pglite'));
    await sql`create table driver_probe (id int8 primary key, at timestamptz(6), doc jsonb, tags text[], ok boolean, note text)`.execute(
      database.db,
    );
  });
  afterAll(async () => drop?.());

  const select = () =>
    sql<Record<string, unknown>>`select * from driver_probe where id >= ${0} order by id`.execute(database.db);

  it('writes and reads every kind of value as PGlite does: int8, microsecond timestamps, jsonb, arrays, null', async () => {
    await sql`insert into driver_probe values (${1}, ${'2026-11-25T10:00:00.123456Z'}, ${JSON.stringify({ a: [1, 'é'] })}, ${['x', 'y,z']}, ${true}, ${null})`.execute(
      database.db,
    );
    for (let i = 0; i < 3; i++) {
      // the first run prepares the statement, the later ones reuse it
      const { rows } = await select();
      expect(rows).toEqual([
        { id: 1, at: '2026-11-25T10:00:00.123456Z', doc: { a: [1, 'é'] }, tags: ['x', 'y,z'], ok: true, note: null },
      ]);
    }
  });

  it('reports a failed statement as PGlite does, and the session goes on', async () => {
    await expect(sql`insert into driver_probe (id) values (${1})`.execute(database.db)).rejects.toMatchObject({
      code: '23505',
    });
    await expect(sql`select nothing from driver_probe`.execute(database.db)).rejects.toMatchObject({ code: '42703' });
    expect((await select()).rows).toHaveLength(1);
  });

  it('runs a statement first met inside a transaction that fails, and again after it', async () => {
    const inside = () => sql`select count(*)::int as n from driver_probe where ok = ${true}`;
    await expect(
      database.db.transaction().execute(async (trx) => {
        await sql`insert into driver_probe (id) values (${2})`.execute(trx);
        expect((await inside().execute(trx)).rows).toEqual([{ n: 1 }]);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect((await inside().execute(database.db)).rows).toEqual([{ n: 1 }]);
    expect((await select()).rows.map((r) => r.id)).toEqual([1]);
  });

  it('prepares a statement first met inside a transaction once the transaction ends, committed or rolled back', async () => {
    const preparedCount = async (text: string) =>
      (
        await sql<{
          n: number;
        }>`select count(*)::int as n from pg_prepared_statements where statement = ${text}`.execute(database.db)
      ).rows[0]!.n;
    const committed = sql<{ n: number }>`select ${1}::int + 40 as n`;
    const rolledBack = sql<{ n: number }>`select ${1}::int + 50 as n`;
    await database.db.transaction().execute(async (trx) => {
      expect((await committed.execute(trx)).rows).toEqual([{ n: 41 }]);
    });
    await expect(
      database.db.transaction().execute(async (trx) => {
        await rolledBack.execute(trx);
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    expect(await preparedCount(committed.compile(database.db).sql)).toBe(1);
    expect(await preparedCount(rolledBack.compile(database.db).sql)).toBe(1);
    // The prepared statements answer inside and outside transactions.
    await database.db.transaction().execute(async (trx) => {
      expect((await committed.execute(trx)).rows).toEqual([{ n: 41 }]);
    });
    expect((await rolledBack.execute(database.db)).rows).toEqual([{ n: 51 }]);
  });

  it('keeps answering a prepared select * after its table gains a column', async () => {
    expect(Object.keys((await select()).rows[0]!)).not.toContain('extra');
    await sql`alter table driver_probe add column extra text default 'new'`.execute(database.db);
    const { rows } = await select();
    expect(rows[0]).toMatchObject({ id: 1, extra: 'new' });
  });
});
