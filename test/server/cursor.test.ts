// Keyset cursors (server/store/cursor.ts, server/store/pagination.ts) on every engine of the run: opaque and
// URL-safe, tamper-evident, bound to their list, order, filters, parent and account, exact to the microsecond,
// and never a 500 whatever the client sends.
import { randomUUID } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ManualClock } from '../../server/clock.js';
import { ApiError } from '../../server/errors.js';
import type { Handlers } from '../../server/http/context.js';
import { CursorCodec, cursorCodec, type CursorBinding } from '../../server/store/cursor.js';
import { pageRequest } from '../../server/http/page.js';
import { openDatabase } from '../../server/store/database.js';
import {
  bindingOf,
  paginate,
  type ListDefinition,
  type Page,
  type PageRequest,
} from '../../server/store/pagination.js';
import type { DB } from '../../server/store/schema.js';
import { serviceSecret } from '../../server/store/secrets.js';
import { engines, openTestDatabase, startTestApp, type TestApp, type TestDatabase } from './harness.js';
import type { SchemaTagList } from '../../generated/api.js';

interface ItemsTable {
  account_id: string;
  id: string;
  name: string;
  created_at: string;
}
type TestDB = DB & { cursor_items: ItemsTable };
type Item = ItemsTable;

async function createItemsTable(db: Kysely<DB>): Promise<void> {
  await sql`create table cursor_items (account_id uuid not null, id uuid primary key, name text not null, created_at timestamptz(6) not null)`.execute(
    db,
  );
  await sql`create index cursor_items_page on cursor_items (account_id, created_at, id)`.execute(db);
}

const clock = new ManualClock('2026-11-20T14:00:00.000Z');

/** `n` ids in ascending order (the tie-breaker of the sort). */
function ids(n: number): string[] {
  return Array.from({ length: n }, () => randomUUID()).sort();
}

function expectInvalidCursor(fn: () => unknown): void {
  let thrown: unknown;
  try {
    fn();
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(ApiError);
  expect((thrown as ApiError).status).toBe(400);
  expect((thrown as ApiError).code).toBe('invalid_cursor');
}

async function expectInvalidCursorAsync(promise: Promise<unknown>): Promise<void> {
  await expect(promise).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
}

describe.each(engines)('cursors on %s', (engine) => {
  let t: TestDatabase;
  let db: Kysely<TestDB>;
  let codec: CursorCodec;

  beforeAll(async () => {
    t = await openTestDatabase(engine);
    await createItemsTable(t.database.db);
    db = t.database.db as unknown as Kysely<TestDB>;
    codec = await cursorCodec(t.database.db, clock);
  });
  afterAll(async () => t?.drop());

  async function insert(accountId: string, rows: { id?: string; created_at: string; name?: string }[]) {
    const values = rows.map((r, i) => ({
      account_id: accountId,
      id: r.id ?? randomUUID(),
      name: r.name ?? `item ${i}`,
      created_at: r.created_at,
    }));
    if (values.length) await db.insertInto('cursor_items').values(values).execute();
    return values;
  }

  function list(
    accountId: string,
    options: Partial<Omit<ListDefinition<Item>, 'codec' | 'accountId' | 'keys'>> = {},
  ): ListDefinition<Item> {
    return {
      codec,
      list: 'items',
      accountId,
      order: 'asc',
      keys: [
        { column: 'cursor_items.created_at', field: 'created_at', type: 'timestamptz' },
        { column: 'cursor_items.id', field: 'id', type: 'uuid' },
      ],
      ...options,
    };
  }

  const page = (accountId: string, definition: ListDefinition<Item>, request: PageRequest): Promise<Page<Item>> =>
    paginate(db.selectFrom('cursor_items').selectAll().where('account_id', '=', accountId), definition, request);

  async function readAll(accountId: string, definition: ListDefinition<Item>, limit: number): Promise<Item[][]> {
    const pages: Item[][] = [];
    let cursor: string | undefined;
    for (;;) {
      const p = await page(accountId, definition, { cursor, limit });
      pages.push(p.data);
      if (p.next_cursor === null) return pages;
      if (pages.length > 500) throw new Error('paging does not end');
      cursor = p.next_cursor;
    }
  }

  it('round-trips: pages cover the list once in order, next_cursor is null on the last page', async () => {
    const account = randomUUID();
    const rows = await insert(
      account,
      Array.from({ length: 7 }, (_, i) => ({ created_at: `2026-11-20T14:00:0${i}.000000Z` })),
    );
    const pages = await readAll(account, list(account), 3);
    expect(pages.map((p) => p.length)).toEqual([3, 3, 1]);
    expect(pages.flat().map((r) => r.id)).toEqual(rows.map((r) => r.id));

    // Exactly `limit` rows left: the page is full and still the last one (limit + 1 fetched to know).
    const exact = await readAll(account, list(account), 7);
    expect(exact.map((p) => p.length)).toEqual([7]);

    const desc = await readAll(account, list(account, { order: 'desc' }), 2);
    expect(desc.flat().map((r) => r.id)).toEqual(rows.map((r) => r.id).reverse());

    const binding = bindingOf(list(account));
    const position = ['2026-11-20T14:00:00.123456Z', rows[0]!.id];
    expect(codec.decode(binding, codec.encode(binding, position))).toEqual(position);
  });

  it('pages 50 rows by default, accepts 1 to 100', async () => {
    const account = randomUUID();
    await insert(
      account,
      Array.from({ length: 101 }, (_, i) => ({ created_at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString() })),
    );
    const first = await page(account, list(account), {});
    expect(first.data).toHaveLength(50);
    expect(first.next_cursor).not.toBeNull();
    expect((await page(account, list(account), { limit: 100 })).data).toHaveLength(100);
    expect((await page(account, list(account), { limit: 1 })).data).toHaveLength(1);
    await expect(page(account, list(account), { limit: 0 })).rejects.toThrow(RangeError);
    await expect(page(account, list(account), { limit: 101 })).rejects.toThrow(RangeError);
  });

  it('issues opaque, URL-safe cursors', async () => {
    const account = randomUUID();
    const [row] = await insert(account, [
      { created_at: '2026-11-20T14:00:00.000001Z' },
      { created_at: '2026-11-20T14:00:00.000002Z' },
    ]);
    const { next_cursor } = await page(account, list(account), { limit: 1 });
    expect(next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(encodeURIComponent(next_cursor!)).toBe(next_cursor);
    expect(next_cursor!.length).toBeLessThanOrEqual(1024);
    expect(next_cursor).not.toContain(row!.id);
  });

  it('refuses a cursor with any character changed, removed or added', async () => {
    const account = randomUUID();
    await insert(account, [
      { created_at: '2026-11-20T14:00:00.000001Z' },
      { created_at: '2026-11-20T14:00:00.000002Z' },
    ]);
    const definition = list(account);
    const binding = bindingOf(definition);
    const cursor = (await page(account, definition, { limit: 1 })).next_cursor!;
    expect(() => codec.decode(binding, cursor)).not.toThrow();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_';
    for (let i = 0; i < cursor.length; i++) {
      // Every other character of the alphabet at this position: includes the ones that differ only in the
      // padding bits of the last character.
      for (const c of alphabet) {
        if (c === cursor[i]) continue;
        expectInvalidCursor(() => codec.decode(binding, cursor.slice(0, i) + c + cursor.slice(i + 1)));
      }
      expectInvalidCursor(() => codec.decode(binding, cursor.slice(0, i) + cursor.slice(i + 1)));
    }
    expectInvalidCursor(() => codec.decode(binding, cursor + 'A'));
    expectInvalidCursor(() => codec.decode(binding, cursor + '='));
    // And through the list: a 400, never a row of another position.
    await expectInvalidCursorAsync(
      page(account, definition, { cursor: cursor.slice(0, -1) + (cursor.endsWith('A') ? 'B' : 'A') }),
    );
  });

  it('binds a cursor to its list, order, filters, parent resource, account and sort', async () => {
    const account = randomUUID();
    await insert(account, [
      { created_at: '2026-11-20T14:00:00.000001Z' },
      { created_at: '2026-11-20T14:00:00.000002Z' },
    ]);
    const issuedUnder = list(account, { filters: { channel: 'whatsapp', unread: true }, parent: 'conv-1' });
    const cursor = (await page(account, issuedUnder, { limit: 1 })).next_cursor!;
    const accepted = (definition: ListDefinition<Item>) => page(account, definition, { cursor, limit: 1 });

    // The same list, filters in another order and absent filters spelled `undefined`: the same binding.
    await expect(accepted(issuedUnder)).resolves.toMatchObject({ data: [expect.anything()] });
    await expect(
      accepted(list(account, { filters: { unread: true, channel: 'whatsapp', phone: undefined }, parent: 'conv-1' })),
    ).resolves.toBeDefined();

    const others: ListDefinition<Item>[] = [
      { ...issuedUnder, list: 'other_items' },
      { ...issuedUnder, order: 'desc' },
      { ...issuedUnder, filters: { channel: 'instagram', unread: true } },
      { ...issuedUnder, filters: { channel: 'whatsapp', unread: false } },
      { ...issuedUnder, filters: { channel: 'whatsapp' } },
      { ...issuedUnder, filters: { channel: 'whatsapp', unread: true, last_message_after: '2026-11-20T00:00:00Z' } },
      { ...issuedUnder, filters: { channel: 'whatsapp', unread: 'true' } },
      { ...issuedUnder, parent: 'conv-2' },
      { ...issuedUnder, parent: null },
      { ...issuedUnder, accountId: randomUUID() },
      { ...issuedUnder, keys: [issuedUnder.keys[1]!] },
      { ...issuedUnder, keys: [{ ...issuedUnder.keys[0]!, column: 'cursor_items.name' }, issuedUnder.keys[1]!] },
    ];
    for (const other of others) await expectInvalidCursorAsync(accepted(other));
  });

  it('refuses garbage of any kind with invalid_cursor, never a 500', async () => {
    const account = randomUUID();
    const definition = list(account);
    const binding = bindingOf(definition);
    const valid = codec.encode(binding, ['2026-11-20T14:00:00.000000Z', randomUUID()]);
    const foreign = new CursorCodec(Buffer.alloc(32, 7)).encode(binding, ['2026-11-20T14:00:00.000000Z', randomUUID()]);
    const unsigned = Buffer.concat([
      Buffer.from([1]),
      Buffer.alloc(16),
      Buffer.from(JSON.stringify(['2026-11-20T14:00:00.000000Z', randomUUID()])),
    ]).toString('base64url');
    const garbage: unknown[] = [
      '',
      'a',
      'abc',
      '!!!',
      '%00',
      'null',
      ' ',
      `${valid} `,
      `${valid}==`,
      `${valid}=`,
      valid.replace(/[A-Za-z]/, '+'),
      'é'.repeat(20),
      '\u0000'.repeat(30),
      'A'.repeat(2000),
      'A'.repeat(1024),
      '0'.repeat(60),
      Buffer.from('{"offset": 100}').toString('base64url'),
      Buffer.from([2, ...Buffer.from(valid, 'base64url').subarray(1)]).toString('base64url'),
      foreign,
      unsigned,
      42,
      null,
      ['a'],
      {},
    ];
    for (const g of garbage) expectInvalidCursor(() => codec.decode(binding, g));
    for (const g of garbage.filter((x): x is string => typeof x === 'string' && x !== ''))
      await expectInvalidCursorAsync(page(account, definition, { cursor: g }));
  });

  it('never skips or repeats rows sharing one timestamp to the microsecond', async () => {
    const account = randomUUID();
    const same = '2026-11-20T14:00:00.123456Z';
    const tieIds = ids(23);
    await insert(account, [
      { created_at: '2026-11-20T14:00:00.123455Z' },
      ...tieIds.map((id) => ({ id, created_at: same })),
      { created_at: '2026-11-20T14:00:00.123457Z' },
    ]);
    for (const limit of [1, 2, 4, 5, 100]) {
      for (const order of ['asc', 'desc'] as const) {
        const seen = (await readAll(account, list(account, { order }), limit)).flat();
        expect(seen).toHaveLength(25);
        expect(new Set(seen.map((r) => r.id)).size).toBe(25);
        const ties = seen.filter((r) => r.created_at === same).map((r) => r.id);
        expect(ties).toEqual(order === 'asc' ? tieIds : [...tieIds].reverse());
      }
    }
  });

  it('orders rows 1 microsecond apart exactly, across millisecond and second boundaries', async () => {
    const account = randomUUID();
    const times = [
      '2026-11-20T14:00:00.000999Z',
      '2026-11-20T14:00:00.000000Z',
      '2026-11-20T14:00:00.001000Z',
      '2026-11-20T14:00:00.000001Z',
      '2026-11-20T13:59:59.999999Z',
      '2026-11-20T14:00:00.001001Z',
      '2026-11-20T14:00:00.000002Z',
    ];
    await insert(
      account,
      times.map((created_at) => ({ created_at })),
    );
    const sorted = [...times].sort();
    // Page size 1: every page starts from a cursor at one of these microseconds. A millisecond round trip
    // would repeat or skip rows here.
    const asc = (await readAll(account, list(account), 1)).flat();
    expect(asc.map((r) => r.created_at)).toEqual(sorted);
    const desc = (await readAll(account, list(account, { order: 'desc' }), 1)).flat();
    expect(desc.map((r) => r.created_at)).toEqual([...sorted].reverse());
  });

  it('does not show a row inserted behind the reader, and shows one inserted ahead', async () => {
    const account = randomUUID();
    await insert(
      account,
      Array.from({ length: 6 }, (_, i) => ({ created_at: `2026-11-20T14:00:0${i}.000000Z` })),
    );
    const first = await page(account, list(account), { limit: 3 });
    expect(first.data.map((r) => r.created_at).at(-1)).toBe('2026-11-20T14:00:02.000000Z');
    const [behind, atPosition, ahead] = await insert(account, [
      { created_at: '2026-11-20T14:00:01.500000Z', name: 'behind' },
      // The cursor's own timestamp with an id before the cursor's row: behind, too.
      { id: '00000000-0000-4000-8000-000000000000', created_at: '2026-11-20T14:00:02.000000Z', name: 'tie behind' },
      { created_at: '2026-11-20T14:00:04.500000Z', name: 'ahead' },
    ]);
    let rest: Item[] = [];
    let cursor = first.next_cursor;
    while (cursor) {
      const p = await page(account, list(account), { cursor, limit: 3 });
      rest = rest.concat(p.data);
      cursor = p.next_cursor;
    }
    const restIds = rest.map((r) => r.id);
    expect(restIds).not.toContain(behind!.id);
    expect(restIds).not.toContain(atPosition!.id);
    expect(restIds).toContain(ahead!.id);
    expect(rest.map((r) => r.name)).toEqual(['item 3', 'item 4', 'ahead', 'item 5']);
  });

  it('keeps the signing key in service_secrets, created once and shared, never a constant', async () => {
    const rows = await t.database.db
      .selectFrom('service_secrets')
      .selectAll()
      .where('name', '=', 'cursor_signing_key')
      .execute();
    expect(rows).toHaveLength(1);
    expect(Buffer.from(rows[0]!.value, 'base64url')).toHaveLength(32);
    // Concurrent first uses of a new secret converge on one value.
    const values = await Promise.all(
      Array.from({ length: 8 }, () => serviceSecret(t.database.db, 'test_secret', clock)),
    );
    expect(new Set(values).size).toBe(1);

    // Another database has another key: its cursors are refused here.
    const other = await openTestDatabase(engine);
    try {
      const otherCodec = await cursorCodec(other.database.db, clock);
      const binding: CursorBinding = bindingOf(list(randomUUID()));
      const cursor = otherCodec.encode(binding, ['2026-11-20T14:00:00.000000Z', randomUUID()]);
      expectInvalidCursor(() => codec.decode(binding, cursor));
    } finally {
      await other.drop();
    }
  });

  it.runIf(engine === 'postgres')('shares the key between processes on one PostgreSQL database', async () => {
    const second = await openDatabase({ engine: 'postgres', url: t.url!, poolSize: 2 });
    try {
      const secondCodec = await cursorCodec(second.db, clock);
      const binding = bindingOf(list(randomUUID()));
      const position = ['2026-11-20T14:00:00.000000Z', randomUUID()];
      expect(codec.decode(binding, secondCodec.encode(binding, position))).toEqual(position);
    } finally {
      await second.close();
    }
  });
});

// Through HTTP: a list route built on paginate answers invalid_cursor in the envelope, the request validator
// owns `limit`, and the response passes response validation.
describe.each(engines)('a paginated route on %s', (engine) => {
  let t: TestApp;
  const handlers: Handlers = {
    listTags: async ({ caller, query, app }) => {
      const db = app.database.db as unknown as Kysely<TestDB>;
      const result = await paginate(
        db.selectFrom('cursor_items').select(['id', 'name', 'created_at']).where('account_id', '=', caller.account.id),
        {
          codec: await cursorCodec(app.database.db, app.clock),
          list: 'tags',
          accountId: caller.account.id,
          order: 'asc',
          keys: [
            { column: 'created_at', field: 'created_at', type: 'timestamptz' },
            { column: 'id', field: 'id', type: 'uuid' },
          ],
        },
        pageRequest(query),
      );
      return { status: 200, body: result };
    },
  };

  beforeAll(async () => {
    t = await startTestApp(engine, { handlers });
    await createItemsTable(t.database.db);
  });
  afterAll(async () => t?.close());

  it('pages, refuses bad cursors with invalid_cursor and bad limits with details', async () => {
    const me = await t.account({ scopes: ['contacts:read'] });
    const rows = Array.from({ length: 55 }, (_, i) => ({
      account_id: me.accountId,
      id: randomUUID(),
      name: `tag ${i}`,
      created_at: `2026-11-20T14:00:00.0000${String(i).padStart(2, '0')}Z`,
    }));
    await (t.database.db as unknown as Kysely<TestDB>).insertInto('cursor_items').values(rows).execute();

    const first = await me.call('GET', '/v1/tags');
    expect(first.status).toBe(200);
    const body = (await first.json()) as SchemaTagList;
    expect(body.data).toHaveLength(50);
    const second = await me.call('GET', `/v1/tags?limit=10&cursor=${body.next_cursor}`);
    expect(second.status).toBe(200);
    const rest = (await second.json()) as SchemaTagList;
    expect(rest.next_cursor).toBeNull();
    expect([...body.data, ...rest.data].map((r) => r.id)).toEqual(rows.map((r) => r.id));

    for (const cursor of ['garbage', body.next_cursor!.slice(1), `${body.next_cursor!.slice(0, -2)}AA`, '%E2%82%AC']) {
      const res = await me.call('GET', `/v1/tags?cursor=${cursor}`);
      expect(res.status).toBe(400);
      expect(await res.json()).toMatchObject({ type: 'error', context: { code: 'invalid_cursor' } });
    }
    // Another account's cursor: bound to the account.
    const other = await t.account({ scopes: ['contacts:read'] });
    const res = await other.call('GET', `/v1/tags?cursor=${body.next_cursor}`);
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ context: { code: 'invalid_cursor' } });

    for (const query of ['limit=0', 'limit=101', 'limit=abc', `cursor=${'A'.repeat(1025)}`]) {
      const bad = await me.call('GET', `/v1/tags?${query}`);
      expect(bad.status).toBe(400);
      const envelope = (await bad.json()) as { context: { code?: string; details?: unknown[] } };
      expect(envelope.context.code).toBeUndefined();
      expect(envelope.context.details?.length).toBeGreaterThan(0);
    }
  });
});
