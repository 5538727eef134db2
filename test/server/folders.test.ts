// The /v1/folders routes (Part B, Folders) on every engine of the run: a tree of any depth, trimmed names that
// need not be unique, every level listed oldest first, moves that cannot make a cycle, and deletion of a subtree
// whose automations leave folders with their revision increased.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { requireWorkflowFolder } from '../../server/domain/workflows/folders.js';
import { ApiError } from '../../server/errors.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json, type ErrorBody } from './http-helpers.js';
import type { SchemaDeletedFolder, SchemaFolder, SchemaFolderList } from '../../generated/api.js';

const create = (c: TestCaller, body: unknown, headers: Record<string, string> = {}) =>
  c.call('POST', '/v1/folders', { body, headers });
const update = (c: TestCaller, id: string, body: unknown) => c.call('PATCH', `/v1/folders/${id}`, { body });
const remove = (c: TestCaller, id: string) => c.call('DELETE', `/v1/folders/${id}`);

/** The database's spelling of an instant (microseconds), as the API returns timestamps. */
const stored = (at: Date) => at.toISOString().replace('Z', '000Z');

describe.each(engines)('folders on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  /** Creates a folder (201) and moves the clock on, so creation order is the created_at order. */
  async function made(c: TestCaller, name: string, parentId?: string | null): Promise<SchemaFolder> {
    const folder = await json<SchemaFolder>(
      await create(c, parentId === undefined ? { name } : { name, parent_id: parentId }),
      201,
    );
    t.clock.advance(1000);
    return folder;
  }

  async function list(c: TestCaller, query = ''): Promise<SchemaFolderList> {
    return json<SchemaFolderList>(await c.call('GET', `/v1/folders${query}`));
  }

  /** An automation row of the account, written directly (the workflows routes are another issue's). */
  async function workflowIn(c: TestCaller, folderId: string | null, revision = 3): Promise<string> {
    const id = randomUUID();
    const at = t.clock.now().toISOString();
    await t.database.db
      .insertInto('workflows')
      .values({
        id,
        account_id: c.accountId,
        title: `Automation ${id.slice(0, 8)}`,
        description: null,
        channel_type: 'instagram',
        connection_id: null,
        trigger: JSON.stringify({ type: 'comment', keywords: [] }),
        graph: JSON.stringify({ nodes: {} }),
        folder_id: folderId,
        revision,
        definition_digest: 'digest',
        status: 'draft',
        published_version_id: null,
        published_at: null,
        created_at: at,
        updated_at: at,
        deleted_at: null,
      })
      .execute();
    return id;
  }

  const workflowRow = (id: string) =>
    t.database.db
      .selectFrom('workflows')
      .select(['folder_id', 'revision', 'updated_at'])
      .where('id', '=', id)
      .executeTakeFirstOrThrow();

  it('creates a top-level folder: 201 with every field, the name trimmed, type workflow, parent_id null', async () => {
    const me = await t.account();
    const res = await create(me, { name: '  Black Friday \t' });
    expect(res.headers.get('cache-control')).toBe('no-store');
    const folder = await json<SchemaFolder>(res, 201);
    expect(folder).toEqual({
      id: expect.any(String),
      type: 'workflow',
      name: 'Black Friday',
      parent_id: null,
      created_at: stored(t.clock.now()),
      updated_at: stored(t.clock.now()),
    });
    expect((await list(me)).data).toEqual([folder]);
  });

  it('nests folders to any depth, and lists every level oldest first', async () => {
    const me = await t.account();
    const top = await made(me, 'Top');
    const child = await made(me, 'Child', top.id);
    const grandchild = await made(me, 'Grandchild', child.id);
    const deep = await made(me, 'Deep', grandchild.id);
    const other = await made(me, 'Other top', null);
    expect([child.parent_id, grandchild.parent_id, deep.parent_id, other.parent_id]).toEqual([
      top.id,
      child.id,
      grandchild.id,
      null,
    ]);
    expect(await list(me)).toEqual({ data: [top, child, grandchild, deep, other], next_cursor: null });
  });

  it('allows several folders with the same name, at the same level too', async () => {
    const me = await t.account();
    const a = await made(me, 'Promo');
    const b = await made(me, 'Promo');
    const c = await made(me, 'promo ', a.id);
    expect(new Set([a.id, b.id, c.id]).size).toBe(3);
    expect((await list(me)).data.map((f) => f.name)).toEqual(['Promo', 'Promo', 'promo']);
  });

  it('refuses a blank name (empty or only whitespace) with 422 invalid_name, on create and update', async () => {
    const me = await t.account();
    const folder = await made(me, 'Kept');
    for (const name of ['', ' ', '   ', '\t \n']) {
      await expectError(await create(me, { name }), 422, { code: 'invalid_name' });
      await expectError(await update(me, folder.id, { name }), 422, { code: 'invalid_name' });
    }
    expect((await list(me)).data).toEqual([folder]);
  });

  it('takes names of up to 128 characters (400 above), counted before trimming by the format check', async () => {
    const me = await t.account();
    expect((await made(me, 'x'.repeat(128))).name).toBe('x'.repeat(128));
    await expectError(await create(me, { name: 'x'.repeat(129) }), 400, expect.objectContaining({}));
    const folder = await made(me, 'short');
    expect((await update(me, folder.id, { name: 'y'.repeat(129) })).status).toBe(400);
  });

  it('answers 422 folder_not_found (field parent_id) for a parent that is no folder of the account', async () => {
    const me = await t.account();
    const stranger = await t.account();
    const theirs = await made(stranger, 'Theirs');
    const mine = await made(me, 'Mine');
    for (const parentId of [randomUUID(), theirs.id]) {
      await expectError(await create(me, { name: 'Child', parent_id: parentId }), 422, {
        code: 'folder_not_found',
        field: 'parent_id',
      });
      await expectError(await update(me, mine.id, { parent_id: parentId }), 422, {
        code: 'folder_not_found',
        field: 'parent_id',
      });
    }
    expect((await list(me)).data).toEqual([mine]);
    expect((await list(stranger)).data).toEqual([theirs]);
  });

  it('treats a folder of another kind as no workflow folder: not listed, 404 itself, folder_not_found as parent', async () => {
    const me = await t.account();
    const mine = await made(me, 'Mine');
    const other = randomUUID();
    const at = t.clock.now().toISOString();
    await t.database.db
      .insertInto('workflow_folders')
      .values({
        id: other,
        account_id: me.accountId,
        type: 'contact',
        name: 'Contacts',
        parent_id: null,
        created_at: at,
        updated_at: at,
      })
      .execute();
    expect((await list(me)).data).toEqual([mine]);
    await expectError(await update(me, other, { name: 'x' }), 404, { code: 'not_found' });
    await expectError(await remove(me, other), 404, { code: 'not_found' });
    await expectError(await create(me, { name: 'In it', parent_id: other }), 422, {
      code: 'folder_not_found',
      field: 'parent_id',
    });
    await expectError(await update(me, mine.id, { parent_id: other }), 422, {
      code: 'folder_not_found',
      field: 'parent_id',
    });
  });

  it("answers 404 not_found for no such folder and for another account's (update, delete); lists its own only", async () => {
    const owner = await t.account();
    const stranger = await t.account();
    const folder = await made(owner, 'Private');
    for (const id of [folder.id, randomUUID()]) {
      await expectError(await update(stranger, id, { name: 'Taken over' }), 404, { code: 'not_found' });
      await expectError(await update(stranger, id, { parent_id: null }), 404, { code: 'not_found' });
      await expectError(await remove(stranger, id), 404, { code: 'not_found' });
    }
    expect((await list(owner)).data).toEqual([folder]);
    expect(await list(stranger)).toEqual({ data: [], next_cursor: null });
  });

  it('renames a folder (trimmed), keeping id, parent and created_at; updated_at moves', async () => {
    const me = await t.account();
    const top = await made(me, 'Top');
    const folder = await made(me, 'Old', top.id);
    const renamed = await json<SchemaFolder>(await update(me, folder.id, { name: ' New name ' }));
    expect(renamed).toEqual({ ...folder, name: 'New name', updated_at: stored(t.clock.now()) });
    expect(renamed.updated_at).not.toBe(folder.updated_at);
    expect((await list(me)).data).toEqual([top, renamed]);
  });

  it('moves a folder with its subfolders into another folder, and to the top level with parent_id null', async () => {
    const me = await t.account();
    const a = await made(me, 'A');
    const b = await made(me, 'B');
    const sub = await made(me, 'Sub', a.id);
    const moved = await json<SchemaFolder>(await update(me, a.id, { parent_id: b.id }));
    expect(moved.parent_id).toBe(b.id);
    // The subfolder moved along: still inside A.
    const page = await list(me);
    expect(page.data.find((f) => f.id === sub.id)).toEqual(sub);
    const both = await json<SchemaFolder>(await update(me, a.id, { name: 'A2', parent_id: null }));
    expect(both).toEqual({ ...a, name: 'A2', parent_id: null, updated_at: stored(t.clock.now()) });
  });

  it('refuses a move into the folder itself or any of its subfolders: 422 invalid_parent, nothing changes', async () => {
    const me = await t.account();
    const top = await made(me, 'Top');
    const child = await made(me, 'Child', top.id);
    const grandchild = await made(me, 'Grandchild', child.id);
    const before = await list(me);
    for (const target of [top.id, child.id, grandchild.id])
      await expectError(await update(me, top.id, { parent_id: target }), 422, { code: 'invalid_parent' });
    await expectError(await update(me, child.id, { parent_id: grandchild.id }), 422, { code: 'invalid_parent' });
    await expectError(await update(me, child.id, { name: 'Renamed', parent_id: child.id }), 422, {
      code: 'invalid_parent',
    });
    expect(await list(me)).toEqual(before);
    // A move up, or sideways into a sibling's subtree, is fine.
    expect((await json<SchemaFolder>(await update(me, grandchild.id, { parent_id: top.id }))).parent_id).toBe(top.id);
    expect((await json<SchemaFolder>(await update(me, child.id, { parent_id: grandchild.id }))).parent_id).toBe(
      grandchild.id,
    );
  });

  it('lets only one of two crossing concurrent moves through (A into B, B into A): no cycle forms', async () => {
    const me = await t.account();
    for (let round = 0; round < 5; round++) {
      const a = await made(me, `A${round}`);
      const b = await made(me, `B${round}`);
      const answers = await Promise.all([update(me, a.id, { parent_id: b.id }), update(me, b.id, { parent_id: a.id })]);
      expect(answers.map((res) => res.status).sort()).toEqual([200, 422]);
      const folders = (await list(me)).data.filter((f) => f.id === a.id || f.id === b.id);
      expect(folders.filter((f) => f.parent_id === null).length).toBe(1);
    }
  });

  it('answers the folder unchanged when what it has is sent again', async () => {
    const me = await t.account();
    const top = await made(me, 'Top');
    const folder = await made(me, 'Same', top.id);
    expect(await json<SchemaFolder>(await update(me, folder.id, { name: 'Same', parent_id: top.id }))).toEqual(folder);
  });

  it('refuses an update body without fields, with unknown fields or of the wrong types with 400', async () => {
    const me = await t.account();
    const folder = await made(me, 'F');
    for (const body of [{}, { color: 'red' }, { name: 3 }, { parent_id: 'not-a-uuid' }, { parent_id: 7 }])
      expect((await update(me, folder.id, body)).status, JSON.stringify(body)).toBe(400);
    for (const body of [{}, { name: null }, { name: 'x', type: 'workflow' }, { name: 'x', parent_id: 'nope' }])
      expect((await create(me, body)).status, JSON.stringify(body)).toBe(400);
    expect((await update(me, 'not-a-uuid', { name: 'x' })).status).toBe(400);
    expect((await remove(me, 'not-a-uuid')).status).toBe(400);
  });

  it('moving a folder leaves its automations alone: same folder_id, revision and updated_at', async () => {
    const me = await t.account();
    const a = await made(me, 'A');
    const b = await made(me, 'B');
    const sub = await made(me, 'Sub', a.id);
    const inA = await workflowIn(me, a.id);
    const inSub = await workflowIn(me, sub.id);
    const before = [await workflowRow(inA), await workflowRow(inSub)];
    t.clock.advance(60_000);
    await json<SchemaFolder>(await update(me, a.id, { parent_id: b.id, name: 'A moved' }));
    expect([await workflowRow(inA), await workflowRow(inSub)]).toEqual(before);
  });

  it('deletes a folder and its whole subtree: 200 with the ids deleted, the folder first; then 404', async () => {
    const me = await t.account();
    const keep = await made(me, 'Keep');
    const top = await made(me, 'Top');
    const c1 = await made(me, 'C1', top.id);
    const c2 = await made(me, 'C2', top.id);
    const g1 = await made(me, 'G1', c2.id);
    const g2 = await made(me, 'G2', c1.id);
    const deeper = await made(me, 'Deeper', g1.id);
    const inKeep = await made(me, 'Inside keep', keep.id);
    const res = await remove(me, top.id);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await json(res)).toEqual({
      id: top.id,
      deleted: true,
      deleted_folder_ids: [top.id, c1.id, c2.id, g1.id, g2.id, deeper.id],
    });
    expect((await list(me)).data).toEqual([keep, inKeep]);
    await expectError(await remove(me, top.id), 404, { code: 'not_found' });
    await expectError(await remove(me, g1.id), 404, { code: 'not_found' });
    await expectError(await update(me, c1.id, { name: 'Back' }), 404, { code: 'not_found' });
    await expectError(await create(me, { name: 'Orphan', parent_id: c2.id }), 422, {
      code: 'folder_not_found',
      field: 'parent_id',
    });
    // A leaf deletes alone. The id comes back as stored, also when the path spells it in upper case.
    expect(await json(await remove(me, inKeep.id.toUpperCase()))).toEqual({
      id: inKeep.id,
      deleted: true,
      deleted_folder_ids: [inKeep.id],
    });
  });

  it('takes the automations of a deleted subtree out of folders: folder_id null, revision + 1, updated_at now', async () => {
    const me = await t.account();
    const keep = await made(me, 'Keep');
    const top = await made(me, 'Top');
    const child = await made(me, 'Child', top.id);
    const grandchild = await made(me, 'Grandchild', child.id);
    const inTop = await workflowIn(me, top.id, 1);
    const inGrandchild = await workflowIn(me, grandchild.id, 7);
    const inKeep = await workflowIn(me, keep.id, 2);
    const outside = await workflowIn(me, null, 4);
    const untouched = [await workflowRow(inKeep), await workflowRow(outside)];
    t.clock.advance(60_000);
    const now = stored(t.clock.now());
    await json(await remove(me, top.id));
    expect(await workflowRow(inTop)).toEqual({ folder_id: null, revision: 2, updated_at: now });
    expect(await workflowRow(inGrandchild)).toEqual({ folder_id: null, revision: 8, updated_at: now });
    expect([await workflowRow(inKeep), await workflowRow(outside)]).toEqual(untouched);
    // The automations still exist.
    const count = await t.database.db
      .selectFrom('workflows')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('account_id', '=', me.accountId)
      .executeTakeFirstOrThrow();
    expect(Number(count.n)).toBe(4);
  });

  // Two transactions at once need two connections: PostgreSQL only (PGlite runs one at a time).
  it.runIf(engine === 'postgres')(
    'counts the move of an automation put into a subfolder while the folder is being deleted',
    async () => {
      const me = await t.account();
      const top = await made(me, 'Top');
      const sub = await made(me, 'Sub', top.id);
      const automation = await workflowIn(me, null, 5);
      let release!: () => void;
      const held = new Promise<void>((ok) => (release = ok));
      let written!: () => void;
      const moved = new Promise<void>((ok) => (written = ok));
      // An automation save that puts it into the subfolder and has not committed yet.
      const save = t.database.db.transaction().execute(async (tx) => {
        await tx.updateTable('workflows').set({ folder_id: sub.id }).where('id', '=', automation).execute();
        written();
        await held;
      });
      await moved;
      const deletion = remove(me, top.id);
      await new Promise((ok) => setTimeout(ok, 300));
      release();
      await save;
      expect((await json<SchemaDeletedFolder>(await deletion)).deleted_folder_ids).toEqual([top.id, sub.id]);
      expect(await workflowRow(automation)).toMatchObject({ folder_id: null, revision: 6 });
    },
  );

  it('lists oldest first with cursor pagination; a folder created while paging lands at the end', async () => {
    const me = await t.account();
    const folders: SchemaFolder[] = [];
    for (const name of ['f1', 'f2', 'f3', 'f4']) folders.push(await made(me, name, folders[0]?.id));
    const page1 = await list(me, '?limit=2');
    expect(page1.data).toEqual(folders.slice(0, 2));
    expect(page1.next_cursor).toEqual(expect.any(String));
    const late = await made(me, 'late');
    const seen = [...page1.data];
    let cursor = page1.next_cursor;
    while (cursor) {
      const page = await list(me, `?limit=2&type=workflow&cursor=${cursor}`);
      seen.push(...page.data);
      cursor = page.next_cursor;
    }
    expect(seen).toEqual([...folders, late]);
    // type workflow is the default; another value is a format fault (the enum has one value so far).
    expect(await list(me, '?type=workflow')).toEqual(await list(me));
    await expectError(await me.call('GET', '/v1/folders?type=contact'), 400, expect.objectContaining({}));
    expect((await me.call('GET', '/v1/folders?limit=0')).status).toBe(400);
    expect((await me.call('GET', '/v1/folders?limit=101')).status).toBe(400);
    // Another account's cursor is refused.
    const stranger = await t.account();
    const res = await stranger.call('GET', `/v1/folders?limit=2&cursor=${page1.next_cursor}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).context.code).toBe('invalid_cursor');
  });

  it('requireWorkflowFolder answers a folder of the account, or throws 422 folder_not_found with the field', async () => {
    const me = await t.account();
    const stranger = await t.account();
    const mine = await made(me, 'Mine');
    const theirs = await made(stranger, 'Theirs');
    expect((await requireWorkflowFolder(t.database.db, me.accountId, mine.id, 'folder_id')).id).toBe(mine.id);
    for (const [id, field] of [
      [theirs.id, 'folder_id'],
      [randomUUID(), 'parent_id'],
    ] as const) {
      const error = await requireWorkflowFolder(t.database.db, me.accountId, id, field).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect((error as ApiError).status).toBe(422);
      expect((error as ApiError).body().context).toEqual({ code: 'folder_not_found', field });
    }
  });

  it('replays a create sent again with the same Idempotency-Key: one folder, the same answer', async () => {
    const me = await t.account();
    const first = await create(me, { name: 'Once' }, { 'Idempotency-Key': 'folder-once' });
    const again = await create(me, { name: 'Once' }, { 'Idempotency-Key': 'folder-once' });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(await json(again, 201)).toEqual(await json(first, 201));
    expect((await list(me)).data.length).toBe(1);
    await expectError(
      await create(me, { name: 'Twice' }, { 'Idempotency-Key': 'folder-once' }),
      422,
      expect.objectContaining({ code: 'idempotency_key_reused' }),
    );
  });

  it('needs workflows:write to create, update and delete, and workflows:read to list', async () => {
    const owner = await t.account();
    const folder = await made(owner, 'F');
    const reader = await t.account({ scopes: ['workflows:read'] });
    const writer = await t.account({ scopes: ['workflows:write'] });
    await expectError(
      await create(reader, { name: 'No' }),
      403,
      expect.objectContaining({ code: 'insufficient_scope' }),
    );
    expect((await update(reader, folder.id, { name: 'No' })).status).toBe(403);
    expect((await remove(reader, folder.id)).status).toBe(403);
    expect((await reader.call('GET', '/v1/folders')).status).toBe(200);
    expect((await writer.call('GET', '/v1/folders')).status).toBe(403);
  });
});
