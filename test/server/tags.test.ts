// The /v1/tags routes (Part A, Tags) on every engine of the run: names unique among active tags ignoring
// letter case, blank names, oldest-first pagination, account isolation, delete frees the name, idempotent create.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { sql } from 'kysely';
import { workflowsNamingTag } from '../../server/domain/tags/tags.js';
import type * as TagsStore from '../../server/store/tags.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { ErrorBody } from './http-helpers.js';
import type { SchemaTag, SchemaTagList } from '../../generated/api.js';

/** Set to make the next name lookup of the tags store miss, as if a concurrent creation had not committed yet. */
const race = vi.hoisted(() => ({ missNextLookup: false }));
vi.mock('../../server/store/tags.js', async (original) => {
  const store = await original<typeof TagsStore>();
  return {
    ...store,
    findActiveTagByNameKey: (...args: Parameters<typeof store.findActiveTagByNameKey>) => {
      if (!race.missNextLookup) return store.findActiveTagByNameKey(...args);
      race.missNextLookup = false;
      return Promise.resolve(undefined);
    },
  };
});

const create = (c: TestCaller, name: string, headers: Record<string, string> = {}) =>
  c.call('POST', '/v1/tags', { body: { name }, headers });
const rename = (c: TestCaller, id: string, name: string) => c.call('PATCH', `/v1/tags/${id}`, { body: { name } });

describe.each(engines)('tags on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  /** Creates a tag (201) and moves the clock on, so creation order is the created_at order. */
  async function made(c: TestCaller, name: string): Promise<SchemaTag> {
    const res = await create(c, name);
    expect(res.status, name).toBe(201);
    t.clock.advance(1000);
    return (await res.json()) as SchemaTag;
  }

  it('creates a tag (201 with id, name, created_at) and reads it back', async () => {
    const me = await t.account();
    const res = await create(me, 'Recompra dezembro');
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const tag = (await res.json()) as SchemaTag;
    expect(Object.keys(tag).sort()).toEqual(['created_at', 'id', 'name']);
    expect(tag.name).toBe('Recompra dezembro');
    expect(tag.created_at).toBe(t.clock.now().toISOString().replace('Z', '000Z'));
    const got = await me.call('GET', `/v1/tags/${tag.id}`);
    expect(got.status).toBe(200);
    expect(await got.json()).toEqual(tag);
  });

  it('refuses a name an active tag has in any letter case: 409 tag_already_exists with its id', async () => {
    const me = await t.account();
    const lead = await made(me, 'Lead');
    for (const name of ['Lead', 'lead', 'LEAD']) {
      const res = await create(me, name);
      expect(res.status, name).toBe(409);
      const body = (await res.json()) as ErrorBody;
      expect(body.context).toEqual({ code: 'tag_already_exists', tag_id: lead.id });
    }
    // Letter case beyond ASCII: Brazilian names carry accents.
    const acao = await made(me, 'Ação');
    const res = await create(me, 'AÇÃO');
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).context.tag_id).toBe(acao.id);
    // Full case mappings, as Unicode's caseless matching: ß is SS in upper case; σ and a final ς are one letter.
    const strasse = await made(me, 'Straße');
    const odos = await made(me, 'ΟΔΟΣ');
    for (const [name, holder] of [
      ['STRASSE', strasse],
      ['strasse', strasse],
      ['οδος', odos],
      ['οδοσ', odos],
    ] as const) {
      const again = await create(me, name);
      expect(again.status, name).toBe(409);
      expect(((await again.json()) as ErrorBody).context.tag_id, name).toBe(holder.id);
    }
  });

  it('keeps names unique per account only', async () => {
    const a = await t.account();
    const b = await t.account();
    await made(a, 'VIP');
    expect((await create(b, 'vip')).status).toBe(201);
  });

  it('refuses a blank name (empty or only spaces) with 422 invalid_name, on create and rename', async () => {
    const me = await t.account();
    const tag = await made(me, 'Kept');
    for (const name of ['', ' ', '   ', '\t ']) {
      const created = await create(me, name);
      expect(created.status, JSON.stringify(name)).toBe(422);
      expect(((await created.json()) as ErrorBody).context).toEqual({ code: 'invalid_name' });
      const renamed = await rename(me, tag.id, name);
      expect(renamed.status, JSON.stringify(name)).toBe(422);
      expect(((await renamed.json()) as ErrorBody).context).toEqual({ code: 'invalid_name' });
    }
    expect(((await (await me.call('GET', `/v1/tags/${tag.id}`)).json()) as SchemaTag).name).toBe('Kept');
  });

  it('keeps a name exactly as sent, spaces included (automations compare names exactly)', async () => {
    const me = await t.account();
    const tag = await made(me, '  Black Friday ');
    expect(tag.name).toBe('  Black Friday ');
    expect(((await (await me.call('GET', `/v1/tags/${tag.id}`)).json()) as SchemaTag).name).toBe('  Black Friday ');
  });

  it('refuses a name over 100 characters with 400 (format), 100 is fine', async () => {
    const me = await t.account();
    expect((await create(me, 'x'.repeat(101))).status).toBe(400);
    expect((await create(me, 'x'.repeat(100))).status).toBe(201);
  });

  it('answers 404 not_found for no such tag, and for a tag of another account (get, rename, delete)', async () => {
    const owner = await t.account();
    const stranger = await t.account();
    const tag = await made(owner, 'Private');
    for (const id of [tag.id, randomUUID()]) {
      for (const res of [
        await stranger.call('GET', `/v1/tags/${id}`),
        await rename(stranger, id, 'Taken over'),
        await stranger.call('DELETE', `/v1/tags/${id}`),
      ]) {
        expect(res.status).toBe(404);
        expect(((await res.json()) as ErrorBody).context.code).toBe('not_found');
      }
    }
    // The stranger's calls changed nothing, and its list does not show the tag.
    expect(await (await owner.call('GET', `/v1/tags/${tag.id}`)).json()).toEqual(tag);
    expect(await (await stranger.call('GET', '/v1/tags')).json()).toEqual({ data: [], next_cursor: null });
  });

  it('renames a tag, also to its own name in another letter case, keeping id and created_at', async () => {
    const me = await t.account();
    const tag = await made(me, 'vip');
    const res = await rename(me, tag.id, 'VIP');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ ...tag, name: 'VIP' });
    const again = await rename(me, tag.id, 'Clientes VIP');
    expect(await again.json()).toEqual({ ...tag, name: 'Clientes VIP' });
    expect(await (await me.call('GET', `/v1/tags/${tag.id}`)).json()).toEqual({ ...tag, name: 'Clientes VIP' });
    // The old name is free again.
    expect((await create(me, 'vip')).status).toBe(201);
  });

  it('answers the tag unchanged when the current name is sent exactly', async () => {
    const me = await t.account();
    const tag = await made(me, 'Same');
    const before = await t.database.db
      .selectFrom('tags')
      .selectAll()
      .where('id', '=', tag.id)
      .executeTakeFirstOrThrow();
    const res = await rename(me, tag.id, 'Same');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual(tag);
    const after = await t.database.db.selectFrom('tags').selectAll().where('id', '=', tag.id).executeTakeFirstOrThrow();
    expect(after.updated_at).toBe(before.updated_at);
  });

  it("refuses a rename to another tag's name in any letter case: 409 tag_already_exists with that tag", async () => {
    const me = await t.account();
    const lead = await made(me, 'Lead');
    const other = await made(me, 'Other');
    for (const name of ['Lead', 'LEAD']) {
      const res = await rename(me, other.id, name);
      expect(res.status).toBe(409);
      expect(((await res.json()) as ErrorBody).context).toEqual({ code: 'tag_already_exists', tag_id: lead.id });
    }
    expect(((await (await me.call('GET', `/v1/tags/${other.id}`)).json()) as SchemaTag).name).toBe('Other');
  });

  it('deletes a tag: 204 with no body, then 404, out of the list, and its name is free again', async () => {
    const me = await t.account();
    const tag = await made(me, 'Old');
    const res = await me.call('DELETE', `/v1/tags/${tag.id}`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    expect((await me.call('GET', `/v1/tags/${tag.id}`)).status).toBe(404);
    expect((await rename(me, tag.id, 'Back')).status).toBe(404);
    expect((await me.call('DELETE', `/v1/tags/${tag.id}`)).status).toBe(404);
    expect(((await (await me.call('GET', '/v1/tags')).json()) as SchemaTagList).data).toEqual([]);
    const reborn = await made(me, 'OLD');
    expect(reborn.id).not.toBe(tag.id);
    // A deleted tag's name blocks neither a rename to it.
    const other = await made(me, 'Other');
    await me.call('DELETE', `/v1/tags/${reborn.id}`);
    expect((await rename(me, other.id, 'old')).status).toBe(200);
  });

  it('lists oldest first with cursor pagination; a tag created while paging lands at the end', async () => {
    const me = await t.account();
    const names = ['t1', 't2', 't3', 't4', 't5'];
    const tags: SchemaTag[] = [];
    for (const name of names) tags.push(await made(me, name));
    const first = await me.call('GET', '/v1/tags?limit=2');
    expect(first.status).toBe(200);
    const page1 = (await first.json()) as SchemaTagList;
    expect(page1.data).toEqual(tags.slice(0, 2));
    expect(page1.next_cursor).toEqual(expect.any(String));
    // Created while paging (the newest), and one of the unread ones deleted: the reader sees both effects.
    const late = await made(me, 'late');
    await me.call('DELETE', `/v1/tags/${tags[3]!.id}`);
    const seen = [...page1.data];
    let cursor = page1.next_cursor;
    while (cursor) {
      const res = await me.call('GET', `/v1/tags?limit=2&cursor=${cursor}`);
      expect(res.status).toBe(200);
      const page = (await res.json()) as SchemaTagList;
      seen.push(...page.data);
      cursor = page.next_cursor;
    }
    expect(seen.map((tag) => tag.name)).toEqual(['t1', 't2', 't3', 't5', 'late']);
    expect(seen.at(-1)).toEqual(late);
    // Default limit 50; limit outside 1–100 is a format fault.
    const all = (await (await me.call('GET', '/v1/tags')).json()) as SchemaTagList;
    expect(all.data.length).toBe(5);
    expect(all.next_cursor).toBeNull();
    expect((await me.call('GET', '/v1/tags?limit=0')).status).toBe(400);
    expect((await me.call('GET', '/v1/tags?limit=101')).status).toBe(400);
  });

  it('pages more than 50 tags by the default limit', async () => {
    const me = await t.account();
    for (let i = 0; i < 51; i++) await made(me, `bulk ${i}`);
    const page = (await (await me.call('GET', '/v1/tags')).json()) as SchemaTagList;
    expect(page.data.length).toBe(50);
    expect(page.data[0]!.name).toBe('bulk 0');
    const rest = (await (await me.call('GET', `/v1/tags?cursor=${page.next_cursor}`)).json()) as SchemaTagList;
    expect(rest.data.map((tag) => tag.name)).toEqual(['bulk 50']);
  });

  it("refuses another account's cursor with 400 invalid_cursor", async () => {
    const a = await t.account();
    const b = await t.account();
    await made(a, 'a1');
    await made(a, 'a2');
    const page = (await (await a.call('GET', '/v1/tags?limit=1')).json()) as SchemaTagList;
    const res = await b.call('GET', `/v1/tags?limit=1&cursor=${page.next_cursor}`);
    expect(res.status).toBe(400);
    expect(((await res.json()) as ErrorBody).context.code).toBe('invalid_cursor');
  });

  it('lets exactly one of concurrent creations of a name win; the others get 409 with its id', async () => {
    const me = await t.account();
    const names = ['Promo', 'PROMO', 'promo', 'Promo', 'pRoMo', 'Promo'];
    const answers = await Promise.all(names.map((name) => create(me, name)));
    expect(answers.map((res) => res.status).sort()).toEqual([201, 409, 409, 409, 409, 409]);
    const bodies = await Promise.all(answers.map((res) => res.json() as Promise<SchemaTag & ErrorBody>));
    const winner = bodies[answers.findIndex((res) => res.status === 201)]!;
    for (const body of bodies.filter((b) => b.type === 'error'))
      expect(body.context).toEqual({ code: 'tag_already_exists', tag_id: winner.id });
    const rows = await t.database.db.selectFrom('tags').select('id').where('account_id', '=', me.accountId).execute();
    expect(rows).toEqual([{ id: winner.id }]);
  });

  it('maps the unique index itself to 409 when a row appears after the check before the insert', async () => {
    // The race the concurrent test may not hit (PGlite runs one statement at a time): the lookup misses, as if
    // the other creation had not committed yet, and the index refuses the insert.
    const me = await t.account();
    const first = await made(me, 'Raced');
    race.missNextLookup = true;
    const res = await create(me, 'RACED');
    expect(race.missNextLookup).toBe(false);
    expect(res.status).toBe(409);
    expect(((await res.json()) as ErrorBody).context).toEqual({ code: 'tag_already_exists', tag_id: first.id });
    // Also for a rename that takes the name.
    const other = await made(me, 'Other');
    race.missNextLookup = true;
    const renamed = await rename(me, other.id, 'raced');
    expect(race.missNextLookup).toBe(false);
    expect(renamed.status).toBe(409);
    expect(((await renamed.json()) as ErrorBody).context).toEqual({ code: 'tag_already_exists', tag_id: first.id });
  });

  it('replays a create sent again with the same Idempotency-Key: one tag, the same answer', async () => {
    const me = await t.account();
    const first = await create(me, 'Once', { 'Idempotency-Key': 'create-once' });
    const again = await create(me, 'Once', { 'Idempotency-Key': 'create-once' });
    expect([first.status, again.status]).toEqual([201, 201]);
    expect(await again.json()).toEqual(await first.json());
    const list = (await (await me.call('GET', '/v1/tags')).json()) as SchemaTagList;
    expect(list.data.map((tag) => tag.name)).toEqual(['Once']);
    // Without the key, the repeat is a new request and meets the existing tag.
    expect((await create(me, 'Once')).status).toBe(409);
    // The key with another body is refused.
    const reused = await create(me, 'Twice', { 'Idempotency-Key': 'create-once' });
    expect(reused.status).toBe(422);
    expect(((await reused.json()) as ErrorBody).context.code).toBe('idempotency_key_reused');
  });

  it('asks workflowsNamingTag, which finds no automation naming a tag in an account without automations', async () => {
    const me = await t.account();
    expect(await workflowsNamingTag(t.database.db, me.accountId, 'VIP')).toEqual({ workflowIds: [], workflowCount: 0 });
  });

  it('refuses tag writes to a key without contacts:write and reads to one without contacts:read', async () => {
    const reader = await t.account({ scopes: ['contacts:read'] });
    const writer = await t.account({ scopes: ['contacts:write'] });
    const res = await create(reader, 'No');
    expect(res.status).toBe(403);
    expect(((await res.json()) as ErrorBody).context.code).toBe('insufficient_scope');
    expect((await writer.call('GET', '/v1/tags')).status).toBe(403);
    expect((await reader.call('GET', '/v1/tags')).status).toBe(200);
  });
});

// The database's lower() folds by the database's locale, ASCII only under `C`: the rule must not depend on it.
describe.runIf(process.env.DATABASE_URL)('tag names on a PostgreSQL database whose locale is C', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { database: { locale: 'C' } });
  });
  afterAll(async () => t?.close());

  it('are one name in any letter case beyond ASCII, in the lookup and in the unique index', async () => {
    const { rows } = await sql<{ folded: string }>`select lower('AÇÃO') as folded`.execute(t.database.db);
    expect(rows[0]!.folded).toBe('aÇÃo'); // the premise: this database folds ASCII only
    const me = await t.account();
    const res = await create(me, 'Ação');
    expect(res.status).toBe(201);
    const acao = (await res.json()) as SchemaTag;
    const taken = { code: 'tag_already_exists', tag_id: acao.id };
    for (const name of ['AÇÃO', 'ação']) {
      const again = await create(me, name);
      expect(again.status, name).toBe(409);
      expect(((await again.json()) as ErrorBody).context).toEqual(taken);
    }
    // The lookup misses (a concurrent creation not yet committed): the index alone refuses, create and rename.
    race.missNextLookup = true;
    const raced = await create(me, 'AÇÃO');
    expect(race.missNextLookup).toBe(false);
    expect(raced.status).toBe(409);
    expect(((await raced.json()) as ErrorBody).context).toEqual(taken);
    const other = (await (await create(me, 'Outra')).json()) as SchemaTag;
    race.missNextLookup = true;
    const renamed = await rename(me, other.id, 'AÇÃO');
    expect(renamed.status).toBe(409);
    expect(((await renamed.json()) as ErrorBody).context).toEqual(taken);
  });
});
