// GET /v1/connections and GET /v1/custom-fields on every engine of the run: their order (and what a row
// created while paging does), page sizes, account isolation, cursor binding, and the rows' shape (dropdown
// options, a disconnected connection's reason). The server's response validation checks every answer
// against the spec.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeConnection, createConnection } from '../../server/domain/console/connections.js';
import { createCustomField, removeCustomField } from '../../server/domain/console/custom-fields.js';
import type { SchemaNextCursor } from '../../generated/api.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';

/** A page of connections or custom fields, its rows read as plain records (the test pages through both). */
interface ListPage {
  data: Record<string, unknown>[];
  next_cursor: SchemaNextCursor;
}

async function page(caller: TestCaller, path: string): Promise<ListPage> {
  const res = await caller.call('GET', path);
  expect(res.status, await res.clone().text()).toBe(200);
  return (await res.json()) as ListPage;
}

/** Every row of a list, following next_cursor with `limit`; `between` runs after each page. */
async function all(
  caller: TestCaller,
  path: string,
  limit: number,
  between?: (pageNo: number) => Promise<void>,
): Promise<{ rows: Record<string, unknown>[]; sizes: number[] }> {
  const rows: Record<string, unknown>[] = [];
  const sizes: number[] = [];
  let cursor: string | null = null;
  do {
    const body: ListPage = await page(caller, `${path}?limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`);
    rows.push(...body.data);
    sizes.push(body.data.length);
    cursor = body.next_cursor;
    await between?.(sizes.length);
  } while (cursor !== null);
  return { rows, sizes };
}

async function expectInvalidCursor(res: Response): Promise<void> {
  expect(res.status).toBe(400);
  expect(await res.json()).toMatchObject({ type: 'error', context: { code: 'invalid_cursor' } });
}

describe.each(engines)('public lists of console resources on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  const connection = (accountId: string, phone: string, extra: Record<string, unknown> = {}) =>
    createConnection(t.database.db, t.clock, accountId, { channel: 'whatsapp', name: `N ${phone}`, phone, ...extra });
  const field = (accountId: string, label: string, type: 'text' | 'number' | 'dropdown' = 'text', options?: []) =>
    createCustomField(t.database.db, t.clock, accountId, { label, type, ...(options ? { options } : {}) });

  describe('GET /v1/connections', () => {
    it('lists oldest first then by id, pages by limit, and a connection added while paging comes last', async () => {
      const me = await t.account({ scopes: ['contacts:read'] });
      const other = await t.account();
      await connection(other.accountId, '+5511900000001');
      const created = [];
      for (let i = 0; i < 5; i++) {
        // Pairs share a timestamp: the id breaks the tie.
        if (i % 2 === 0) t.clock.advance(60_000);
        created.push(await connection(me.accountId, `+551193000000${i}`));
      }
      const ig = await createConnection(t.database.db, t.clock, me.accountId, {
        channel: 'instagram',
        name: 'Loja',
        username: '@Loja.Oficial',
      });
      created.push(ig);
      const expected = [...created]
        .sort((a, b) => (a.created_at === b.created_at ? (a.id < b.id ? -1 : 1) : a.created_at < b.created_at ? -1 : 1))
        .map((c) => c.id);

      const { rows, sizes } = await all(me, '/v1/connections', 2, async (n) => {
        if (n !== 1) return;
        t.clock.advance(60_000);
        expected.push((await connection(me.accountId, '+5511930009999')).id);
      });
      expect(rows.map((r) => r.id)).toEqual(expected);
      expect(sizes).toEqual([2, 2, 2, 1]);
      expect(rows.find((r) => r.id === ig.id)).toEqual({
        id: ig.id,
        channel: 'instagram',
        name: 'Loja',
        status: 'connected',
        disconnect_reason: null,
        instagram: { username: 'loja.oficial' },
        whatsapp: null,
        created_at: ig.created_at,
      });

      // The default limit is 50; an exact last page has next_cursor null.
      const whole = await page(me, '/v1/connections');
      expect(whole.data).toHaveLength(7);
      expect(whole.next_cursor).toBeNull();
      expect((await page(me, '/v1/connections?limit=7')).next_cursor).toBeNull();
      expect((await page(me, '/v1/connections?limit=6')).next_cursor).not.toBeNull();
    });

    it("shows a disconnected connection's reason and null once connected again", async () => {
      const me = await t.account();
      const wa = await connection(me.accountId, '+5511930001234');
      t.clock.advance(1000);
      await connection(me.accountId, '+5511930001235', {
        status: 'disconnected',
        disconnect_reason: 'setup_incomplete',
      });
      await changeConnection(t.database.db, t.clock, wa.id, {
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      });
      let body = await page(me, '/v1/connections');
      expect(body.data.map((c) => [c.status, c.disconnect_reason])).toEqual([
        ['disconnected', 'authorization_lost'],
        ['disconnected', 'setup_incomplete'],
      ]);
      expect(body.data[0]).toMatchObject({
        channel: 'whatsapp',
        whatsapp: { phone: '+5511930001234' },
        instagram: null,
      });
      await changeConnection(t.database.db, t.clock, wa.id, { status: 'connected' });
      body = await page(me, '/v1/connections');
      expect(body.data[0]).toMatchObject({ id: wa.id, status: 'connected', disconnect_reason: null });
    });

    it("never shows another account's connections", async () => {
      const a = await t.account();
      const b = await t.account();
      const mine = await connection(a.accountId, '+5511930005555');
      // The same number in another account is another connection.
      const theirs = await connection(b.accountId, '+5511930005555');
      expect((await page(a, '/v1/connections')).data.map((c) => c.id)).toEqual([mine.id]);
      expect((await page(b, '/v1/connections')).data.map((c) => c.id)).toEqual([theirs.id]);
      const empty = await t.account();
      expect(await page(empty, '/v1/connections')).toEqual({ data: [], next_cursor: null });
    });
  });

  describe('GET /v1/custom-fields', () => {
    it('lists by name in byte order, and a field created while paging lands where its name sorts', async () => {
      const me = await t.account({ scopes: ['contacts:read'] });
      const other = await t.account();
      await field(other.accountId, 'Bairro');
      for (const label of ['Zeta', 'Email', 'Alpha', 'E-mail', 'Cidade', 'Plano']) {
        // Creation order differs from name order: the list follows names.
        t.clock.advance(1000);
        await field(me.accountId, label);
      }
      const { rows, sizes } = await all(me, '/v1/custom-fields', 2, async (n) => {
        if (n !== 1) return;
        // After the first page (alpha, cidade): `beta` sorts behind the reader, `mid` ahead of it.
        await field(me.accountId, 'Beta');
        await field(me.accountId, 'Mid');
      });
      expect(rows.map((r) => r.name)).toEqual(['alpha', 'cidade', 'e-mail', 'email', 'mid', 'plano', 'zeta']);
      expect(sizes).toEqual([2, 2, 2, 1]);
      const fresh = await page(me, '/v1/custom-fields');
      expect(fresh.data.map((r) => r.name)).toEqual([
        'alpha',
        'beta',
        'cidade',
        'e-mail',
        'email',
        'mid',
        'plano',
        'zeta',
      ]);
      expect(fresh.next_cursor).toBeNull();

      // A deleted field leaves the list; its key, when given again, sorts as `cidade-2`.
      await removeCustomField(t.database.db, t.clock, fresh.data[2]!.id as string);
      await field(me.accountId, 'Cidade');
      expect((await page(me, '/v1/custom-fields?limit=3')).data.map((r) => r.name)).toEqual([
        'alpha',
        'beta',
        'cidade-2',
      ]);
    });

    it('shows a dropdown with its options in console order and null options on other types', async () => {
      const me = await t.account();
      const plano = await createCustomField(t.database.db, t.clock, me.accountId, {
        label: 'Plano',
        type: 'dropdown',
        options: [
          { value: 'pro', label: 'Profissional' },
          { value: 'basic', label: 'Básico' },
        ],
      });
      const idade = await field(me.accountId, 'Idade', 'number');
      const body = await page(me, '/v1/custom-fields');
      expect(body.data).toEqual([
        { id: idade.id, name: 'idade', label: 'Idade', type: 'number', options: null },
        {
          id: plano.id,
          name: 'plano',
          label: 'Plano',
          type: 'dropdown',
          options: [
            { value: 'pro', label: 'Profissional' },
            { value: 'basic', label: 'Básico' },
          ],
        },
      ]);
    });

    it("pages 50 by default, up to 100, and never shows another account's fields", async () => {
      const me = await t.account();
      const other = await t.account();
      const theirs = await field(other.accountId, 'Segredo');
      for (let i = 0; i < 51; i++) await field(me.accountId, `Campo ${String(i).padStart(2, '0')}`);
      const first = await page(me, '/v1/custom-fields');
      expect(first.data).toHaveLength(50);
      expect(first.data[0]!.name).toBe('campo-00');
      const last = await page(me, `/v1/custom-fields?cursor=${first.next_cursor}`);
      expect(last.data.map((r) => r.name)).toEqual(['campo-50']);
      expect(last.next_cursor).toBeNull();
      const hundred = await page(me, '/v1/custom-fields?limit=100');
      expect(hundred.data).toHaveLength(51);
      expect(hundred.data.some((r) => r.id === theirs.id)).toBe(false);
      expect((await page(other, '/v1/custom-fields')).data.map((r) => r.id)).toEqual([theirs.id]);
    });
  });

  it('refuses a cursor of the other list, of another account, or altered, with 400 invalid_cursor', async () => {
    const me = await t.account();
    const other = await t.account();
    for (let i = 0; i < 3; i++) {
      await connection(me.accountId, `+551193100000${i}`);
      await field(me.accountId, `F${i}`);
      await field(other.accountId, `F${i}`);
    }
    const connCursor = (await page(me, '/v1/connections?limit=1')).next_cursor!;
    const fieldCursor = (await page(me, '/v1/custom-fields?limit=1')).next_cursor!;
    expect(connCursor).toBeTruthy();
    expect(fieldCursor).toBeTruthy();
    await expectInvalidCursor(await me.call('GET', `/v1/custom-fields?cursor=${connCursor}`));
    await expectInvalidCursor(await me.call('GET', `/v1/connections?cursor=${fieldCursor}`));
    await expectInvalidCursor(await other.call('GET', `/v1/custom-fields?cursor=${fieldCursor}`));
    await expectInvalidCursor(await me.call('GET', `/v1/custom-fields?cursor=${fieldCursor.slice(0, -2)}AA`));
    await expectInvalidCursor(await me.call('GET', '/v1/connections?cursor=garbage'));
    // The cursor's own list still takes it.
    expect((await page(me, `/v1/custom-fields?limit=5&cursor=${fieldCursor}`)).data.map((r) => r.name)).toEqual([
      'f1',
      'f2',
    ]);
    for (const path of ['/v1/connections', '/v1/custom-fields'])
      for (const limit of ['0', '101', 'x']) expect((await me.call('GET', `${path}?limit=${limit}`)).status).toBe(400);
  });

  it('need the contacts:read scope', async () => {
    const me = await t.account({ scopes: ['conversations:read'] });
    for (const path of ['/v1/connections', '/v1/custom-fields']) {
      const res = await me.call('GET', path);
      expect(res.status).toBe(403);
      expect(await res.json()).toMatchObject({ context: { code: 'insufficient_scope' } });
    }
  });
});
