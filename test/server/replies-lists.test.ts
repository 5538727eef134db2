// The /v1/replies-lists routes (Part B, Reply lists) on every engine of the run: trimmed names unique in the
// account ignoring letter case (folded as tag names, the unique index deciding races), replies kept as written and
// none blank, summaries with reply_count in the list, and deletion refused while automations use the list.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { workflowsUsingRepliesList } from '../../server/domain/workflows/replies-lists.js';
import type * as RepliesListsStore from '../../server/store/replies-lists.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type { SchemaRepliesList, SchemaRepliesListPage, SchemaRepliesListSummary } from '../../generated/api.js';

/** Set to make the next name lookup of the store miss, as if a concurrent creation had not committed yet. */
const race = vi.hoisted(() => ({ missNextLookup: false }));
vi.mock('../../server/store/replies-lists.js', async (original) => {
  const store = await original<typeof RepliesListsStore>();
  return {
    ...store,
    findRepliesListByNameKey: (...args: Parameters<typeof store.findRepliesListByNameKey>) => {
      if (!race.missNextLookup) return store.findRepliesListByNameKey(...args);
      race.missNextLookup = false;
      return Promise.resolve(undefined);
    },
  };
});

const create = (c: TestCaller, body: unknown, headers: Record<string, string> = {}) =>
  c.call('POST', '/v1/replies-lists', { body, headers });
const update = (c: TestCaller, id: string, body: unknown) => c.call('PATCH', `/v1/replies-lists/${id}`, { body });
const get = (c: TestCaller, id: string) => c.call('GET', `/v1/replies-lists/${id}`);
const remove = (c: TestCaller, id: string) => c.call('DELETE', `/v1/replies-lists/${id}`);

const stored = (at: Date) => at.toISOString().replace('Z', '000Z');
const summaryOf = ({ replies, ...rest }: SchemaRepliesList): SchemaRepliesListSummary => ({
  ...rest,
  reply_count: replies.length,
});

describe.each(engines)('reply lists on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  /** Creates a list (201) and moves the clock on, so creation order is the created_at order. */
  async function made(
    c: TestCaller,
    name: string,
    replies: string[] = ['Thanks! Check your DMs'],
  ): Promise<SchemaRepliesList> {
    const list = await json<SchemaRepliesList>(await create(c, { name, replies }), 201);
    t.clock.advance(1000);
    return list;
  }

  const listPage = async (c: TestCaller, query = '') =>
    json<SchemaRepliesListPage>(await c.call('GET', `/v1/replies-lists${query}`));

  /** An automation of the account, written directly, whose draft and/or live version uses `listId`. */
  async function workflowUsing(
    c: TestCaller,
    listId: string,
    options: { holders?: ('draft' | 'live')[]; deleted?: boolean } = {},
  ): Promise<string> {
    const id = randomUUID();
    const at = t.clock.now().toISOString();
    t.clock.advance(10);
    await t.database.db
      .insertInto('workflows')
      .values({
        id,
        account_id: c.accountId,
        title: 'Comment replies',
        description: null,
        channel_type: 'instagram',
        connection_id: null,
        trigger: JSON.stringify({ type: 'comment', replies_list_id: listId }),
        graph: JSON.stringify({ nodes: {} }),
        folder_id: null,
        definition_digest: 'digest',
        status: 'draft',
        published_version_id: null,
        published_at: null,
        created_at: at,
        updated_at: at,
        deleted_at: options.deleted ? at : null,
      })
      .execute();
    for (const holder of options.holders ?? ['draft'])
      await t.database.db
        .insertInto('workflow_references')
        .values({ account_id: c.accountId, workflow_id: id, holder, kind: 'replies_list', name: listId })
        .execute();
    return id;
  }

  it('creates a list: 201 with every field, the name trimmed, the replies exactly as written', async () => {
    const me = await t.account();
    const replies = ['  Thanks, {contact.first_name}! ', 'Check your DMs 📩', 'multi\nline'];
    const res = await create(me, { name: '  Black Friday  ', replies });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const list = await json<SchemaRepliesList>(res, 201);
    expect(list).toEqual({
      id: expect.any(String),
      name: 'Black Friday',
      replies,
      created_at: stored(t.clock.now()),
      updated_at: stored(t.clock.now()),
    });
    expect(await json(await get(me, list.id))).toEqual(list);
  });

  it('refuses a name a list has in any letter case (trimmed): 409 replies_list_already_exists with its id', async () => {
    const me = await t.account();
    const promo = await made(me, 'Promo');
    for (const name of ['Promo', 'PROMO', ' promo ']) {
      await expectError(await create(me, { name, replies: ['x'] }), 409, {
        code: 'replies_list_already_exists',
        replies_list_id: promo.id,
      });
    }
    // Case beyond ASCII, folded as tag names are.
    const acao = await made(me, 'Ação');
    await expectError(await create(me, { name: 'AÇÃO', replies: ['x'] }), 409, {
      code: 'replies_list_already_exists',
      replies_list_id: acao.id,
    });
    // Per account only.
    const other = await t.account();
    expect((await create(other, { name: 'promo', replies: ['x'] })).status).toBe(201);
  });

  it('refuses a blank name with 422 invalid_name, on create and update', async () => {
    const me = await t.account();
    const list = await made(me, 'Kept');
    for (const name of ['', ' ', '\t \n']) {
      await expectError(await create(me, { name, replies: ['x'] }), 422, { code: 'invalid_name' });
      await expectError(await update(me, list.id, { name }), 422, { code: 'invalid_name' });
    }
    expect(await json(await get(me, list.id))).toEqual(list);
  });

  it('refuses a blank reply with 422 invalid_reply and the index of the first, on create and update', async () => {
    const me = await t.account();
    const list = await made(me, 'Kept');
    for (const [replies, index] of [
      [[''], 0],
      [['ok', ' '], 1],
      [['ok', 'fine', '\t\n', ''], 2],
    ] as const) {
      await expectError(await create(me, { name: 'New', replies }), 422, { code: 'invalid_reply', index });
      await expectError(await update(me, list.id, { replies }), 422, { code: 'invalid_reply', index });
    }
    expect(await json(await get(me, list.id))).toEqual(list);
    expect((await listPage(me)).data.map((l) => l.name)).toEqual(['Kept']);
  });

  it('takes 1 to 250 replies of up to 512 characters and names of up to 128 (400 beyond)', async () => {
    const me = await t.account();
    const full = await made(
      me,
      'n'.repeat(128),
      Array.from({ length: 250 }, (_, i) => `${i} ${'r'.repeat(500)}`),
    );
    expect(full.replies.length).toBe(250);
    expect((await made(me, 'long', ['r'.repeat(512)])).replies).toEqual(['r'.repeat(512)]);
    for (const body of [
      { name: 'x'.repeat(129), replies: ['x'] },
      { name: 'empty', replies: [] },
      { name: 'many', replies: Array.from({ length: 251 }, () => 'x') },
      { name: 'long', replies: ['r'.repeat(513)] },
      { name: 'types', replies: [3] },
      { name: 'types', replies: 'x' },
      { name: 'missing' },
      { replies: ['x'] },
      { name: 'extra', replies: ['x'], kind: 'public' },
    ])
      expect((await create(me, body)).status, JSON.stringify(body).slice(0, 60)).toBe(400);
    for (const body of [{}, { replies: [] }, { name: 'x'.repeat(129) }, { colour: 'red' }])
      expect((await update(me, full.id, body)).status, JSON.stringify(body)).toBe(400);
    expect((await get(me, 'not-a-uuid')).status).toBe(400);
  });

  it('lists summaries (reply_count instead of replies) oldest first, with cursor pagination', async () => {
    const me = await t.account();
    const lists: SchemaRepliesList[] = [];
    for (const [i, name] of ['l1', 'l2', 'l3', 'l4', 'l5'].entries())
      lists.push(
        await made(
          me,
          name,
          Array.from({ length: i + 1 }, (_, n) => `reply ${n}`),
        ),
      );
    const page1 = await listPage(me, '?limit=2');
    expect(page1.data).toEqual(lists.slice(0, 2).map(summaryOf));
    expect(Object.keys(page1.data[0]!).sort()).toEqual(['created_at', 'id', 'name', 'reply_count', 'updated_at']);
    const late = await made(me, 'late');
    await json(await remove(me, lists[3]!.id));
    const seen = [...page1.data];
    let cursor = page1.next_cursor;
    while (cursor) {
      const page = await listPage(me, `?limit=2&cursor=${cursor}`);
      seen.push(...page.data);
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([lists[0]!, lists[1]!, lists[2]!, lists[4]!, late].map(summaryOf));
    expect((await listPage(me)).next_cursor).toBeNull();
    expect((await me.call('GET', '/v1/replies-lists?limit=101')).status).toBe(400);
    const stranger = await t.account();
    expect(await listPage(stranger)).toEqual({ data: [], next_cursor: null });
    const res = await stranger.call('GET', `/v1/replies-lists?limit=2&cursor=${page1.next_cursor}`);
    await expectError(res, 400, expect.objectContaining({ code: 'invalid_cursor' }));
  });

  it("answers 404 not_found for no such list and for another account's (get, update, delete)", async () => {
    const owner = await t.account();
    const stranger = await t.account();
    const list = await made(owner, 'Private');
    for (const id of [list.id, randomUUID()]) {
      await expectError(await get(stranger, id), 404, { code: 'not_found' });
      await expectError(await update(stranger, id, { name: 'Mine now' }), 404, { code: 'not_found' });
      await expectError(await remove(stranger, id), 404, { code: 'not_found' });
    }
    expect(await json(await get(owner, list.id))).toEqual(list);
  });

  it('updates the name, the replies (all replaced) or both; only what is sent changes', async () => {
    const me = await t.account();
    const list = await made(me, 'Original', ['a', 'b', 'c']);
    const renamed = await json<SchemaRepliesList>(await update(me, list.id, { name: ' Renamed ' }));
    expect(renamed).toEqual({ ...list, name: 'Renamed', updated_at: stored(t.clock.now()) });
    t.clock.advance(1000);
    const replaced = await json<SchemaRepliesList>(await update(me, list.id, { replies: [' only one '] }));
    expect(replaced).toEqual({ ...renamed, replies: [' only one '], updated_at: stored(t.clock.now()) });
    t.clock.advance(1000);
    const both = await json<SchemaRepliesList>(await update(me, list.id, { name: 'Both', replies: ['x', 'y'] }));
    expect(both).toEqual({ ...list, name: 'Both', replies: ['x', 'y'], updated_at: stored(t.clock.now()) });
    expect(await json(await get(me, list.id))).toEqual(both);
    expect((await listPage(me)).data).toEqual([summaryOf(both)]);
    // The old name is free again.
    expect((await create(me, { name: 'original', replies: ['x'] })).status).toBe(201);
    // Sending what it has changes nothing, updated_at included.
    t.clock.advance(1000);
    expect(await json(await update(me, list.id, { name: 'Both', replies: ['x', 'y'] }))).toEqual(both);
  });

  it("lets a list change its own name by letter case only, but not take another list's in any case", async () => {
    const me = await t.account();
    const lead = await made(me, 'black friday');
    const other = await made(me, 'Other');
    expect((await json<SchemaRepliesList>(await update(me, lead.id, { name: 'Black Friday' }))).name).toBe(
      'Black Friday',
    );
    for (const name of ['Black Friday', 'BLACK FRIDAY', ' black friday'])
      await expectError(await update(me, other.id, { name }), 409, {
        code: 'replies_list_already_exists',
        replies_list_id: lead.id,
      });
    expect((await json<SchemaRepliesList>(await get(me, other.id))).name).toBe('Other');
  });

  it('deletes a list: 200 with {id, deleted: true}, then 404, and its name is free again', async () => {
    const me = await t.account();
    const list = await made(me, 'Old');
    const res = await remove(me, list.id);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toEqual({ id: list.id, deleted: true });
    await expectError(await get(me, list.id), 404, { code: 'not_found' });
    await expectError(await update(me, list.id, { name: 'Back' }), 404, { code: 'not_found' });
    await expectError(await remove(me, list.id), 404, { code: 'not_found' });
    const reborn = await made(me, 'OLD');
    expect(reborn.id).not.toBe(list.id);
    // The id comes back as stored, also when the path spells it in upper case.
    expect(await json(await remove(me, reborn.id.toUpperCase()))).toEqual({ id: reborn.id, deleted: true });
  });

  it('refuses to delete a list an automation uses (draft or live): 409 replies_list_in_use', async () => {
    const me = await t.account();
    const list = await made(me, 'Used');
    const draft = await workflowUsing(me, list.id, { holders: ['draft'] });
    const both = await workflowUsing(me, list.id, { holders: ['draft', 'live'] });
    const live = await workflowUsing(me, list.id, { holders: ['live'] });
    await expectError(await remove(me, list.id), 409, {
      code: 'replies_list_in_use',
      workflow_ids: [draft, both, live],
      workflow_count: 3,
    });
    expect(await json(await get(me, list.id))).toEqual(list);
    // Updates stay allowed.
    expect((await update(me, list.id, { replies: ['new'] })).status).toBe(200);
  });

  it('does not count deleted automations, nor references to other lists; the list deletes when none is left', async () => {
    const me = await t.account();
    const list = await made(me, 'Free');
    const other = await made(me, 'Other');
    await workflowUsing(me, list.id, { deleted: true, holders: ['draft', 'live'] });
    await workflowUsing(me, other.id);
    expect(await workflowsUsingRepliesList(t.database.db, me.accountId, list.id)).toEqual({
      workflowIds: [],
      workflowCount: 0,
    });
    expect(await json(await remove(me, list.id))).toEqual({ id: list.id, deleted: true });
    expect((await remove(me, other.id)).status).toBe(409);
  });

  it('names at most 50 automations in replies_list_in_use, and counts them all', async () => {
    const me = await t.account();
    const list = await made(me, 'Popular');
    const ids: string[] = [];
    for (let i = 0; i < 53; i++) ids.push(await workflowUsing(me, list.id, { holders: ['draft', 'live'] }));
    expect(await workflowsUsingRepliesList(t.database.db, me.accountId, list.id)).toEqual({
      workflowIds: ids.slice(0, 50),
      workflowCount: 53,
    });
    await expectError(await remove(me, list.id), 409, {
      code: 'replies_list_in_use',
      workflow_ids: ids.slice(0, 50),
      workflow_count: 53,
    });
    // Another account's automations are not asked about this account's list.
    const stranger = await t.account();
    expect(await workflowsUsingRepliesList(t.database.db, stranger.accountId, list.id)).toEqual({
      workflowIds: [],
      workflowCount: 0,
    });
  });

  it('lets exactly one of concurrent creations of a name win; the others get 409 with its id', async () => {
    const me = await t.account();
    const names = ['Promo', 'PROMO', 'promo', ' Promo', 'pRoMo', 'Promo '];
    const answers = await Promise.all(names.map((name) => create(me, { name, replies: ['x'] })));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const bodies = await Promise.all(
      answers.map((res) => res.json() as Promise<SchemaRepliesList & { type?: string; context?: unknown }>),
    );
    const winner = bodies[answers.findIndex((res) => res.status === 201)]!;
    for (const body of bodies.filter((b) => b.type === 'error'))
      expect(body.context).toEqual({ code: 'replies_list_already_exists', replies_list_id: winner.id });
  });

  it('maps the unique index itself to 409 when a row appears after the check before the write', async () => {
    const me = await t.account();
    const first = await made(me, 'Raced');
    race.missNextLookup = true;
    const created = await create(me, { name: 'RACED', replies: ['x'] });
    expect(race.missNextLookup).toBe(false);
    await expectError(created, 409, { code: 'replies_list_already_exists', replies_list_id: first.id });
    const other = await made(me, 'Other');
    race.missNextLookup = true;
    const renamed = await update(me, other.id, { name: 'raced', replies: ['changed'] });
    expect(race.missNextLookup).toBe(false);
    await expectError(renamed, 409, { code: 'replies_list_already_exists', replies_list_id: first.id });
    expect(await json(await get(me, other.id))).toEqual(other);
  });

  it('replays a create sent again with the same Idempotency-Key: one list, the same answer', async () => {
    const me = await t.account();
    const body = { name: 'Once', replies: ['x'] };
    const first = await create(me, body, { 'Idempotency-Key': 'list-once' });
    const again = await create(me, body, { 'Idempotency-Key': 'list-once' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again, 201)).toEqual(await json(first, 201));
    expect((await listPage(me)).data.length).toBe(1);
    // Without the key the repeat is a new request and meets the existing list.
    expect((await create(me, body)).status).toBe(409);
  });

  it('needs workflows:write to create, update and delete, and workflows:read to read', async () => {
    const owner = await t.account();
    const list = await made(owner, 'L');
    const reader = await t.account({ scopes: ['workflows:read'] });
    const writer = await t.account({ scopes: ['workflows:write'] });
    await expectError(
      await create(reader, { name: 'No', replies: ['x'] }),
      403,
      expect.objectContaining({ code: 'insufficient_scope' }),
    );
    expect((await update(reader, list.id, { name: 'No' })).status).toBe(403);
    expect((await remove(reader, list.id)).status).toBe(403);
    expect((await reader.call('GET', '/v1/replies-lists')).status).toBe(200);
    expect((await writer.call('GET', '/v1/replies-lists')).status).toBe(403);
    expect((await get(writer, list.id)).status).toBe(403);
  });
});
