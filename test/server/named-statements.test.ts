// PostgreSQL's named statements (server/store/named-statements.ts): the app's statements are planned once per
// connection, and a connection whose plans a migration invalidated is replaced, not reused.
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase, type Database } from '../../server/store/database.js';
import { NAMES_PER_CONNECTION } from '../../server/store/named-statements.js';
import { openTestDatabase, type TestDatabase } from './harness.js';

const postgres = process.env.DATABASE_URL ? describe : describe.skip;

postgres('named statements on PostgreSQL', () => {
  let t: TestDatabase;
  let database: Database;
  beforeAll(async () => {
    t = await openTestDatabase('postgres');
    if (!t.url) throw new Error('PostgreSQL has a URL');
    // One connection: every checkout is the same session, so what it prepared is visible to the next.
    database = await openDatabase({ engine: 'postgres', url: t.url, poolSize: 1 });
  });
  afterAll(async () => {
    await database?.close();
    await t?.drop();
  });

  const prepared = async () =>
    database.db.transaction().execute(async (tx) => {
      const marker = await sql<{ n: number }>`select ${7}::int as n`.execute(tx);
      const rows = await sql<{ statement: string }>`select statement from pg_prepared_statements`.execute(tx);
      return { marker: marker.rows[0]?.n, statements: rows.rows.map((r) => r.statement) };
    });

  it('runs the app reads and writes as prepared statements, and begin/commit as they are', async () => {
    const { marker, statements } = await prepared();
    expect(marker).toBe(7);
    expect(statements).toContain('select $1::int as n');
    expect(statements.some((s) => /^\s*(begin|commit)/i.test(s))).toBe(false);
    // The second time, the same name: no second prepared copy of the text.
    const again = await prepared();
    expect(again.statements.filter((s) => s === 'select $1::int as n').length).toBe(1);
  });

  it('replaces a connection whose plan a column change invalidated, and runs the statement again after', async () => {
    await sql`create table named_probe (id int)`.execute(database.db);
    await sql`insert into named_probe values (1)`.execute(database.db);
    const pid = async () =>
      database.db.transaction().execute(async (tx) => {
        const read = await sql<{ id: number }>`select * from named_probe where id = ${1}`.execute(tx);
        const backend = await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(tx);
        return { rows: read.rows.length, pid: backend.rows[0]?.pid };
      });
    const before = await pid();
    expect(before.rows).toBe(1);
    // Another process migrates: `select *` now returns another row type than the plan the session holds.
    const other = new (await import('pg')).default.Client({ connectionString: t.url });
    await other.connect();
    await other.query('alter table named_probe add column note text');
    await other.end();
    // The session's plan fails once (PostgreSQL's 0A000), and its connection is closed when given back.
    await expect(pid()).rejects.toMatchObject({ code: '0A000' });
    const after = await pid();
    expect(after.rows).toBe(1);
    expect(after.pid).not.toBe(before.pid);
    // The new connection prepares the statement afresh, and keeps it.
    expect((await pid()).pid).toBe(after.pid);
  });

  it(`closes a connection that named ${NAMES_PER_CONNECTION} texts once it is given back, and opens a fresh one`, async () => {
    const backend = async () =>
      (await sql<{ pid: number }>`select pg_backend_pid() as pid`.execute(database.db)).rows[0]?.pid;
    const first = await backend();
    // Texts that vary with their input (here a column's name) are distinct statements.
    for (let i = 0; i <= NAMES_PER_CONNECTION; i++)
      await database.db.transaction().execute((tx) => sql`select ${i}::int as ${sql.ref(`c${i}`)}`.execute(tx));
    const next = await backend();
    expect(next).not.toBe(first);
    expect(await backend()).toBe(next);
  });
});
