// The public contact routes (Part A: Contact, GET /v1/contacts, POST /v1/contacts, GET /v1/contacts/{id},
// Pagination, Idempotency, Errors) and the contact events of Part C, on every engine of the run: the sync order
// and its rules, the filters, cursors bound to their list, create-or-update by phone with everything checked
// before anything is written, the history and the events it leaves, scopes and rate kinds.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../server/domain/accounts/keys.js';
import { createConnection } from '../../server/domain/console/connections.js';
import { createCustomField } from '../../server/domain/console/custom-fields.js';
import {
  createInstagramContact,
  deleteContactInConsole,
  editContactInConsole,
  recordActivity,
} from '../../server/domain/contacts/contacts.js';
import { CONSOLE } from '../../server/domain/contacts/history.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { ErrorBody } from './http-helpers.js';
import type {
  SchemaContact,
  SchemaContactList,
  SchemaTag,
  SchemaTagList,
  SchemaValidationError,
} from '../../generated/api.js';

interface EventRow {
  type: string;
  resource_type: string;
  resource_id: string;
  data: Record<string, unknown>;
}

/** A moment as the database gives it back: ISO 8601 with microseconds. */
const stamp = (d: Date) => d.toISOString().replace('Z', '000Z');
/** The whole error envelope of a 4xx with a code. */
const errorBody = (context: Record<string, unknown>) => ({ type: 'error', message: expect.any(String), context });
const ids = (contacts: readonly { id: string }[]) => contacts.map((c) => c.id);
const byId = <T extends { id: string }>(items: readonly T[]) => [...items].sort((a, b) => (a.id < b.id ? -1 : 1));
const parsed = (v: unknown) => (typeof v === 'string' ? (JSON.parse(v) as unknown) : v);

const US_PHONE = '+14155552671';

describe.each(engines)('contacts on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  // ------------------------------------------------------------------------------------------------ helpers

  /** An account's whatsapp connection, two tags and three custom fields (text, number, dropdown). */
  async function world(me: TestCaller) {
    const db = t.database.db;
    const connection = await createConnection(db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    const tag = async (name: string) => {
      const res = await me.call('POST', '/v1/tags', { body: { name } });
      expect(res.status).toBe(201);
      const { id } = (await res.json()) as SchemaTag;
      return { id, name };
    };
    const vip = await tag('VIP');
    const lead = await tag('Lead');
    const cidade = await createCustomField(db, t.clock, me.accountId, { label: 'Cidade', type: 'text' });
    const pontos = await createCustomField(db, t.clock, me.accountId, { label: 'Pontos', type: 'number' });
    const plano = await createCustomField(db, t.clock, me.accountId, {
      label: 'Plano',
      type: 'dropdown',
      options: [
        { value: 'gold', label: 'Ouro' },
        { value: 'silver', label: 'Prata' },
      ],
    });
    return { connection, vip, lead, cidade, pontos, plano };
  }
  type World = Awaited<ReturnType<typeof world>>;

  const post = async (me: TestCaller, body: unknown, headers: Record<string, string> = {}) => {
    const res = await me.call('POST', '/v1/contacts', { body, headers });
    return { status: res.status, body: (await res.json()) as unknown };
  };

  /** A body for POST /v1/contacts on the world's connection. */
  const contactBody = (w: World, phone: string, name: string, extra: Record<string, unknown> = {}) => ({
    phone,
    name,
    connection_id: w.connection.id,
    consent: true,
    ...extra,
  });

  /** Creates a whatsapp contact (201). */
  async function created(me: TestCaller, w: World, phone: string, name: string, extra: Record<string, unknown> = {}) {
    const res = await post(me, contactBody(w, phone, name, extra));
    expect(res.status, JSON.stringify(res.body)).toBe(201);
    return res.body as SchemaContact;
  }

  /**
   * GET /v1/contacts with every reserved character percent-encoded (RFC 3986: a space as %20, parentheses as
   * %28 %29), as the format check demands.
   */
  const list = (me: TestCaller, query: Record<string, string> = {}) => {
    const encode = (v: string) =>
      encodeURIComponent(v).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
    const qs = Object.entries(query)
      .map(([k, v]) => `${encode(k)}=${encode(v)}`)
      .join('&');
    return me.call('GET', `/v1/contacts${qs ? `?${qs}` : ''}`);
  };

  async function listOk(me: TestCaller, query: Record<string, string> = {}): Promise<SchemaContactList> {
    const res = await list(me, query);
    expect(res.status, JSON.stringify(query)).toBe(200);
    return (await res.json()) as SchemaContactList;
  }

  async function getContact(me: TestCaller, id: string): Promise<SchemaContact> {
    const res = await me.call('GET', `/v1/contacts/${id}`);
    expect(res.status).toBe(200);
    return (await res.json()) as SchemaContact;
  }

  /** Pages to the end with `limit`, returning every contact in the order read. */
  async function readAll(me: TestCaller, query: Record<string, string>, limit: number) {
    const pages: SchemaContact[][] = [];
    let cursor: string | null = null;
    do {
      const page = await listOk(me, { ...query, limit: String(limit), ...(cursor ? { cursor } : {}) });
      pages.push(page.data);
      cursor = page.next_cursor;
    } while (cursor !== null);
    return pages;
  }

  /**
   * One sync pass (Part A, sync rule 2): pages of 2 until the first contact whose `updated_at` is later than
   * `start`, or the end. `afterPage(n)` runs between pages (someone touching contacts meanwhile).
   */
  async function syncPass(
    me: TestCaller,
    start: Date,
    since: string | undefined,
    afterPage?: (n: number) => Promise<void>,
  ): Promise<string[]> {
    const read: string[] = [];
    let cursor: string | null = null;
    for (let n = 1; ; n++) {
      const page = await listOk(me, {
        limit: '2',
        ...(since !== undefined ? { updated_since: since } : {}),
        ...(cursor ? { cursor } : {}),
      });
      for (const c of page.data) {
        if (Date.parse(c.updated_at) > start.getTime()) return read;
        read.push(c.id);
      }
      if (page.next_cursor === null) return read;
      cursor = page.next_cursor;
      await afterPage?.(n);
    }
  }

  const eventsOf = async (accountId: string): Promise<EventRow[]> =>
    (
      await t.database.db
        .selectFrom('events')
        .select(['type', 'resource_type', 'resource_id', 'data', 'sequence'])
        .where('account_id', '=', accountId)
        .orderBy('sequence')
        .execute()
    ).map((e) => ({
      type: e.type,
      resource_type: e.resource_type,
      resource_id: e.resource_id,
      data: parsed(e.data) as Record<string, unknown>,
    }));

  const historyOf = async (accountId: string) =>
    (
      await t.database.db
        .selectFrom('contact_history')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('created_at')
        .orderBy('id')
        .execute()
    ).map((h) => ({ ...h, details: parsed(h.details) }));

  /** Rows the account has in the tables a contact write touches. */
  async function footprint(accountId: string) {
    const db = t.database.db;
    const count = async (table: 'contacts' | 'contact_tags' | 'contact_field_values' | 'contact_history' | 'events') =>
      Number(
        (
          await db
            .selectFrom(table)
            .select((eb) => eb.fn.countAll().as('n'))
            .where('account_id', '=', accountId)
            .executeTakeFirstOrThrow()
        ).n,
      );
    return {
      contacts: await count('contacts'),
      contact_tags: await count('contact_tags'),
      contact_field_values: await count('contact_field_values'),
      contact_history: await count('contact_history'),
      events: await count('events'),
    };
  }

  /** Creates contacts one second apart (distinct `updated_at`), on phones +55 21 98765-10xx. */
  async function contactsOverTime(me: TestCaller, w: World, n: number): Promise<SchemaContact[]> {
    const out: SchemaContact[] = [];
    for (let i = 0; i < n; i++) {
      out.push(await created(me, w, `+55219876510${String(i).padStart(2, '0')}`, `Contact ${i}`));
      t.clock.advance(1000);
    }
    return out;
  }

  // ------------------------------------------------------------------------------- GET /v1/contacts: order

  describe('GET /v1/contacts order and sync', () => {
    it('lists least recently active first: by updated_at, then by id among equal updated_at', async () => {
      const me = await t.account();
      const w = await world(me);
      const [first, second] = await contactsOverTime(me, w, 2);
      // Three contacts created at one moment: ordered by id.
      const same = [
        await created(me, w, '+5521987652001', 'Same A'),
        await created(me, w, '+5521987652002', 'Same B'),
        await created(me, w, '+5521987652003', 'Same C'),
      ];
      expect(new Set(same.map((c) => c.updated_at)).size).toBe(1);
      t.clock.advance(1000);
      const last = await created(me, w, '+5521987652004', 'Last');
      // A message moves the oldest one to the end.
      t.clock.advance(1000);
      await recordActivity(t.database.db, t.clock, me.accountId, first!.id, 'message');

      const page = await listOk(me);
      expect(ids(page.data)).toEqual([second!.id, ...ids(byId(same)), last.id, first!.id]);
      expect(page.next_cursor).toBeNull();
    });

    it('pages with limit and cursor to the end, each contact once in list order, next_cursor null on the last page', async () => {
      const me = await t.account();
      const w = await world(me);
      const early = await contactsOverTime(me, w, 2);
      // Ties on updated_at across a page boundary are resumed by id.
      const same = byId([
        await created(me, w, '+5521987653001', 'Tie 1'),
        await created(me, w, '+5521987653002', 'Tie 2'),
        await created(me, w, '+5521987653003', 'Tie 3'),
      ]);
      const expected = [...ids(early), ...ids(same)];

      const byTwo = await readAll(me, {}, 2);
      expect(byTwo.map((p) => p.length)).toEqual([2, 2, 1]);
      expect(ids(byTwo.flat())).toEqual(expected);

      const byOne = await readAll(me, {}, 1);
      expect(ids(byOne.flat())).toEqual(expected);
      expect(ids((await listOk(me, { limit: '100' })).data)).toEqual(expected);
    });

    it('sync rule 3: a contact that gets a message after the pass read it is not read again in the pass, and the next pass reads it', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1, c2, c3, c4] = await contactsOverTime(me, w, 5);
      t.clock.advance(3_600_000);
      const start = t.clock.now();

      const read = await syncPass(me, start, undefined, async (n) => {
        if (n !== 1) return;
        // c0 was read on page 1; it writes now.
        t.clock.advance(1000);
        await recordActivity(t.database.db, t.clock, me.accountId, c0!.id, 'message');
      });
      expect(read).toEqual([c0!.id, c1!.id, c2!.id, c3!.id, c4!.id]);

      t.clock.advance(60_000);
      const next = await syncPass(me, t.clock.now(), new Date(start.getTime() - 5 * 60_000).toISOString());
      expect(next).toEqual([c0!.id]);
      const moved = await getContact(me, c0!.id);
      expect(moved.updated_at).toBe(stamp(new Date(start.getTime() + 1000)));
      expect(moved.last_interaction_at).toBe(moved.updated_at);
    });

    it('sync rule 3: a contact edited in the console before the pass reached it moves past the reader, is not read in this pass, and the next pass reads it', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1, c2, c3, c4] = await contactsOverTime(me, w, 5);
      t.clock.advance(3_600_000);
      const start = t.clock.now();

      const read = await syncPass(me, start, undefined, async (n) => {
        if (n !== 1) return;
        // c3 is not read yet; a console edit moves it past the reader.
        t.clock.advance(1000);
        await editContactInConsole(t.database.db, t.clock, me.accountId, c3!.id, { name: 'Dora' }, CONSOLE);
      });
      expect(read).toEqual([c0!.id, c1!.id, c2!.id, c4!.id]);

      t.clock.advance(60_000);
      const next = await syncPass(me, t.clock.now(), new Date(start.getTime() - 5 * 60_000).toISOString());
      expect(next).toEqual([c3!.id]);
      expect((await getContact(me, c3!.id)).name).toBe('Dora');
    });

    it('sync rule 3: touching a read and an unread contact mid-pass loses none and reads none twice; the next pass reads both', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1, c2, c3, c4] = await contactsOverTime(me, w, 5);
      t.clock.advance(3_600_000);
      const start = t.clock.now();

      const read = await syncPass(me, start, undefined, async (n) => {
        if (n !== 1) return;
        t.clock.advance(1000);
        await recordActivity(t.database.db, t.clock, me.accountId, c1!.id, 'message'); // already read
        t.clock.advance(1000);
        await editContactInConsole(t.database.db, t.clock, me.accountId, c2!.id, { name: 'Caio' }, CONSOLE); // not yet
      });
      expect(read).toEqual([c0!.id, c1!.id, c3!.id, c4!.id]);
      expect(new Set(read).size).toBe(read.length);

      t.clock.advance(60_000);
      const next = await syncPass(me, t.clock.now(), new Date(start.getTime() - 5 * 60_000).toISOString());
      expect(next).toEqual([c1!.id, c2!.id]);
      // Union of the two passes: every contact, none lost.
      expect(new Set([...read, ...next])).toEqual(new Set(ids([c0!, c1!, c2!, c3!, c4!])));
    });

    /** Two contacts a second apart, then an hour passes; `change` is applied to the first. */
    async function apiChangeKeepsOrder(change: (me: TestCaller, w: World, c: SchemaContact) => Promise<void>) {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1] = await contactsOverTime(me, w, 2);
      t.clock.advance(3_600_000);
      const before = new Date(t.clock.now().getTime() - 60_000).toISOString();
      await change(me, w, c0!);
      const after = await getContact(me, c0!.id);
      expect(after.updated_at).toBe(c0!.updated_at);
      expect(ids((await listOk(me)).data)).toEqual([c0!.id, c1!.id]);
      expect((await listOk(me, { updated_since: before })).data).toEqual([]);
      return after;
    }

    it('sync rule 4: PUT of a tag on a contact does not move its updated_at nor its place in the list', async () => {
      const after = await apiChangeKeepsOrder(async (me, w, c) => {
        const res = await me.call('PUT', `/v1/contacts/${c.id}/tags/${w.vip.id}`);
        expect(res.status).toBe(200);
      });
      expect(after.tags).toHaveLength(1);
    });

    it('sync rule 4: PATCH of custom-field values does not move updated_at nor the list order', async () => {
      const after = await apiChangeKeepsOrder(async (me, w, c) => {
        const res = await me.call('PATCH', `/v1/contacts/${c.id}/custom-fields`, {
          body: { custom_fields: [{ field_id: w.cidade.id, value: 'Recife' }] },
        });
        expect(res.status).toBe(200);
      });
      expect(after.custom_fields.map((v) => v.value)).toEqual(['Recife']);
    });

    it('sync rule 4: POST /v1/contacts on an existing phone with a new name does not move updated_at nor the list order', async () => {
      const after = await apiChangeKeepsOrder(async (me, w, c) => {
        const res = await post(me, contactBody(w, c.whatsapp!.phone, 'Novo Nome', { tag_ids: [w.lead.id] }));
        expect(res.status).toBe(200);
      });
      expect(after.name).toBe('Novo Nome');
    });

    it('updated_since keeps contacts updated at or after it: the exact updated_at is included, a microsecond later is not', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1] = await contactsOverTime(me, w, 2);
      expect(ids((await listOk(me, { updated_since: c0!.updated_at })).data)).toEqual([c0!.id, c1!.id]);
      expect(ids((await listOk(me, { updated_since: c1!.updated_at })).data)).toEqual([c1!.id]);
      const oneMicroLater = c1!.updated_at.replace(
        /(\d{6})Z$/,
        (_, us: string) => `${String(Number(us) + 1).padStart(6, '0')}Z`,
      );
      expect(oneMicroLater).not.toBe(c1!.updated_at);
      expect((await listOk(me, { updated_since: oneMicroLater })).data).toEqual([]);
      // Same moment in another zone spelling.
      const ms = new Date(Date.parse(c1!.updated_at));
      const inSaoPaulo = new Date(ms.getTime() - 3 * 3_600_000).toISOString().replace('Z', '-03:00');
      expect(ids((await listOk(me, { updated_since: inSaoPaulo })).data)).toEqual([c1!.id]);
    });

    it('an impossible updated_since (month 13, 30 February, offset +23:00) is a 400 with details, not a 500', async () => {
      const me = await t.account();
      for (const since of ['2026-13-01T00:00:00Z', '2026-02-30T00:00:00Z', '2026-11-20T13:00:00+23:00']) {
        const res = await me.call('GET', `/v1/contacts?updated_since=${encodeURIComponent(since)}`);
        expect(res.status, since).toBe(400);
        const body = (await res.json()) as SchemaValidationError;
        expect(body.context.details[0]!.path).toContain('updated_since');
      }
    });

    it('does not list a contact deleted in the console (plain, with updated_since, nor by phone)', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0, c1] = await contactsOverTime(me, w, 2);
      await deleteContactInConsole(t.database.db, t.clock, me.accountId, c0!.id);
      expect(ids((await listOk(me)).data)).toEqual([c1!.id]);
      expect(ids((await listOk(me, { updated_since: c0!.updated_at })).data)).toEqual([c1!.id]);
      expect((await listOk(me, { phone: c0!.whatsapp!.phone })).data).toEqual([]);
    });
  });

  // --------------------------------------------------------------------------------- GET /v1/contacts: filters

  describe('GET /v1/contacts filters', () => {
    let me: TestCaller;
    let ana: SchemaContact; // whatsapp, stored with the ninth digit
    let old: SchemaContact; // whatsapp, created with the 8-digit form
    let us: SchemaContact; // whatsapp, a US number
    let igAna: SchemaContact; // instagram ana.souza
    let igBia: SchemaContact; // instagram Bia.Lima (stored as given)

    beforeAll(async () => {
      me = await t.account();
      const w = await world(me);
      ana = await created(me, w, '+5511987654321', 'Ana');
      t.clock.advance(1000);
      old = await created(me, w, '+553188887777', 'Otávio');
      t.clock.advance(1000);
      us = await created(me, w, US_PHONE, 'Sam');
      t.clock.advance(1000);
      const ig = await createConnection(t.database.db, t.clock, me.accountId, {
        channel: 'instagram',
        name: 'Loja IG',
        username: 'loja.ig',
      });
      igAna = (await createInstagramContact(t.database.db, t.clock, me.accountId, {
        connectionId: ig.id,
        instagramId: '17841400000000001',
        username: 'ana.souza',
        name: 'Ana IG',
      })) as SchemaContact;
      t.clock.advance(1000);
      igBia = (await createInstagramContact(t.database.db, t.clock, me.accountId, {
        connectionId: ig.id,
        instagramId: '17841400000000002',
        username: 'Bia.Lima',
        name: 'Bia IG',
      })) as SchemaContact;
    });

    const found = async (query: Record<string, string>) => ids((await listOk(me, query)).data);

    it('phone in E.164 finds the whatsapp contact', async () => {
      expect(await found({ phone: '+5511987654321' })).toEqual([ana.id]);
      expect(ana.whatsapp).toEqual({ phone: '+5511987654321' });
    });

    it('a Brazilian mobile stored with the ninth digit is found by its 8-digit form', async () => {
      expect(await found({ phone: '+551187654321' })).toEqual([ana.id]);
    });

    it('a Brazilian mobile created in its 8-digit form keeps it and is found by both forms', async () => {
      expect(old.whatsapp).toEqual({ phone: '+553188887777' });
      expect(await found({ phone: '+553188887777' })).toEqual([old.id]);
      expect(await found({ phone: '+5531988887777' })).toEqual([old.id]);
    });

    it('a phone without + is read as Brazilian', async () => {
      expect(await found({ phone: '11987654321' })).toEqual([ana.id]);
      expect(await found({ phone: '(11) 98765-4321' })).toEqual([ana.id]);
      expect(await found({ phone: '3188887777' })).toEqual([old.id]);
    });

    it('a foreign number with its + is found', async () => {
      expect(await found({ phone: US_PHONE })).toEqual([us.id]);
    });

    it('a foreign number without its + is not that number: never the US contact', async () => {
      const res = await list(me, { phone: US_PHONE.slice(1) });
      const body = (await res.json()) as SchemaContactList | ErrorBody;
      // Read as Brazilian: those digits form no Brazilian phone, so 422 invalid_phone (a match would be a bug).
      expect(res.status, JSON.stringify(body)).toBe(422);
      expect(body).toEqual(errorBody({ code: 'invalid_phone' }));
    });

    it('an impossible phone is 422 invalid_phone with the error envelope', async () => {
      for (const phone of ['123', '+99912', 'abc', '11 9876-ABCD', '+5511', '+']) {
        const res = await list(me, { phone });
        expect(res.status, phone).toBe(422);
        expect(await res.json(), phone).toEqual(errorBody({ code: 'invalid_phone' }));
      }
    });

    it('instagram_username matches with or without @, in lowercase or exactly as given', async () => {
      for (const username of ['ana.souza', '@ana.souza', 'Ana.Souza', '@ANA.SOUZA'])
        expect(await found({ instagram_username: username }), username).toEqual([igAna.id]);
      for (const username of ['Bia.Lima', '@Bia.Lima'])
        expect(await found({ instagram_username: username }), username).toEqual([igBia.id]);
      expect(await found({ instagram_username: 'ana.souz' })).toEqual([]);
    });

    it('instagram_id matches instagram.id exactly', async () => {
      expect(igAna.instagram).toEqual({ id: '17841400000000001', username: 'ana.souza' });
      expect(await found({ instagram_id: '17841400000000001' })).toEqual([igAna.id]);
      expect(await found({ instagram_id: '17841400000000002' })).toEqual([igBia.id]);
      expect(await found({ instagram_id: '1784140000000000' })).toEqual([]);
    });

    it('filters combine with each other and with updated_since', async () => {
      expect(await found({ phone: '+551187654321', updated_since: ana.updated_at })).toEqual([ana.id]);
      expect(await found({ phone: '+551187654321', updated_since: old.updated_at })).toEqual([]);
      expect(await found({ instagram_username: 'ana.souza', instagram_id: '17841400000000001' })).toEqual([igAna.id]);
      expect(await found({ instagram_username: 'ana.souza', instagram_id: '17841400000000002' })).toEqual([]);
      expect(await found({ phone: '+5511987654321', instagram_id: '17841400000000001' })).toEqual([]);
      expect(await found({ instagram_username: 'bia.lima', updated_since: igBia.updated_at })).toEqual([]);
      expect(await found({ instagram_username: 'Bia.Lima', updated_since: igBia.updated_at })).toEqual([igBia.id]);
    });

    it('a filter matching nothing answers an empty page', async () => {
      const queries: Record<string, string>[] = [
        { phone: '+5521999990000' },
        { instagram_username: 'nobody' },
        { instagram_id: '0' },
      ];
      for (const query of queries) {
        const res = await list(me, query);
        expect(res.status).toBe(200);
        expect(await res.json()).toEqual({ data: [], next_cursor: null });
      }
    });

    it('an unknown query parameter is 400 with context.details and no code', async () => {
      const res = await list(me, { email: 'ana@example.com' });
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.type).toBe('error');
      expect(body.context.code).toBeUndefined();
      expect(body.context.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'query' })]));
    });

    it('a phone filter longer than 32 characters (or empty) is 400', async () => {
      expect((await list(me, { phone: `+${'1'.repeat(32)}` })).status).toBe(400); // 33 characters
      expect((await list(me, { phone: '' })).status).toBe(400);
      // 32 characters pass the format check and reach the phone rules.
      expect((await list(me, { phone: `+5511987654321${' '.repeat(18)}` })).status).toBe(200);
    });
  });

  // ------------------------------------------------------------------------------------------ cursor binding

  describe('cursor binding', () => {
    const invalidCursor = errorBody({ code: 'invalid_cursor' });

    it('a cursor issued for one filter set is 400 invalid_cursor with another', async () => {
      const me = await t.account();
      const w = await world(me);
      const [c0] = await contactsOverTime(me, w, 3);
      const plain = await listOk(me, { limit: '1' });
      const since = await listOk(me, { limit: '1', updated_since: c0!.updated_at });
      expect(plain.next_cursor).not.toBeNull();
      expect(since.next_cursor).not.toBeNull();

      const mismatched: Record<string, string>[] = [
        { limit: '1', cursor: plain.next_cursor!, updated_since: c0!.updated_at },
        { limit: '1', cursor: plain.next_cursor!, phone: '+5521987651001' },
        { limit: '1', cursor: since.next_cursor! },
        { limit: '1', cursor: since.next_cursor!, updated_since: '2000-01-01T00:00:00Z' },
      ];
      for (const query of mismatched) {
        const res = await list(me, query);
        expect(res.status, JSON.stringify(query)).toBe(400);
        expect(await res.json()).toEqual(invalidCursor);
      }
      // With its own filters the cursor is good.
      expect((await list(me, { limit: '1', cursor: since.next_cursor!, updated_since: c0!.updated_at })).status).toBe(
        200,
      );
    });

    it('a cursor of GET /v1/tags is 400 invalid_cursor on contacts', async () => {
      const me = await t.account();
      const w = await world(me);
      await contactsOverTime(me, w, 2);
      const tags = (await (await me.call('GET', '/v1/tags?limit=1')).json()) as SchemaTagList;
      expect(tags.next_cursor).not.toBeNull();
      const res = await list(me, { limit: '1', cursor: tags.next_cursor! });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(invalidCursor);
    });

    it("another account's cursor is 400 invalid_cursor", async () => {
      const owner = await t.account();
      const stranger = await t.account();
      await contactsOverTime(owner, await world(owner), 2);
      await contactsOverTime(stranger, await world(stranger), 2);
      const page = await listOk(owner, { limit: '1' });
      const res = await list(stranger, { limit: '1', cursor: page.next_cursor! });
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual(invalidCursor);
    });
  });

  // ------------------------------------------------------------------------------------- POST /v1/contacts

  describe('POST /v1/contacts', () => {
    it('creates a new contact: 201 with the whole contact shape (dropdown label stored as the option value)', async () => {
      const me = await t.account();
      const w = await world(me);
      t.clock.advance(5000);
      const res = await me.call('POST', '/v1/contacts', {
        body: contactBody(w, '+5511987654321', 'Ana Souza', {
          tag_ids: [w.vip.id, w.lead.id],
          custom_fields: [
            { field_id: w.pontos.id, value: 42 },
            { field_id: w.plano.id, value: 'Ouro' },
            { field_id: w.cidade.id, value: 'São Paulo' },
          ],
        }),
      });
      expect(res.status).toBe(201);
      expect(res.headers.get('cache-control')).toBe('no-store');
      const contact = (await res.json()) as SchemaContact;
      const now = stamp(t.clock.now());
      expect(Object.keys(contact).sort()).toEqual(
        [
          'channel',
          'created_at',
          'custom_fields',
          'id',
          'instagram',
          'last_interaction_at',
          'name',
          'person_id',
          'tags',
          'updated_at',
          'whatsapp',
        ].sort(),
      );
      expect(contact).toEqual({
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        channel: { type: 'whatsapp', connection_id: w.connection.id },
        instagram: null,
        whatsapp: { phone: '+5511987654321' },
        name: 'Ana Souza',
        person_id: expect.any(String),
        // Put on at one moment: in the order of their ids.
        tags: byId([w.vip, w.lead]),
        // Ordered by field name.
        custom_fields: [
          { field_id: w.cidade.id, name: 'cidade', type: 'text', value: 'São Paulo' },
          { field_id: w.plano.id, name: 'plano', type: 'dropdown', value: 'gold' },
          { field_id: w.pontos.id, name: 'pontos', type: 'number', value: 42 },
        ],
        last_interaction_at: now,
        created_at: now,
        updated_at: now,
      });
      expect(contact.person_id).not.toBe('');
      expect(await getContact(me, contact.id)).toEqual(contact);
    });

    it('answers 200 with the same contact for the same phone, also under the other form of a Brazilian mobile', async () => {
      const me = await t.account();
      const w = await world(me);
      const first = await created(me, w, '+5511987654321', 'Ana');
      for (const phone of ['+5511987654321', '+551187654321', '11987654321']) {
        const again = await post(me, contactBody(w, phone, 'Ana'));
        expect(again.status, phone).toBe(200);
        expect(again.body, phone).toEqual(first);
      }
      expect((await footprint(me.accountId)).contacts).toBe(1);
    });

    it('a contact created in the 8-digit form is updated by the 9-digit form (200, same id, phone kept)', async () => {
      const me = await t.account();
      const w = await world(me);
      const first = await created(me, w, '+551187654321', 'Ana');
      expect(first.whatsapp).toEqual({ phone: '+551187654321' });
      const again = await post(me, contactBody(w, '+5511987654321', 'Ana'));
      expect(again.status).toBe(200);
      expect((again.body as SchemaContact).id).toBe(first.id);
      expect((again.body as SchemaContact).whatsapp).toEqual({ phone: '+551187654321' });
    });

    it('one contact for both forms also where libphonenumber still lists the 8-digit form as a mobile', async () => {
      const me = await t.account();
      const w = await world(me);
      const salvador = await created(me, w, '+5571979680885', 'Caio');
      const again = await post(me, contactBody(w, '+557179680885', 'Caio'));
      expect(again.status).toBe(200);
      expect((again.body as SchemaContact).id).toBe(salvador.id);
      const curitiba = await created(me, w, '+5541978550025', 'Dora');
      expect(ids((await listOk(me, { phone: '+554178550025' })).data)).toEqual([curitiba.id]);
      // Created in the 8-digit form: kept as given, found by the 9-digit form.
      const eight = await created(me, w, '+551178550025', 'Edu');
      expect(eight.whatsapp).toEqual({ phone: '+551178550025' });
      expect(ids((await listOk(me, { phone: '+5511978550025' })).data)).toEqual([eight.id]);
      expect((await footprint(me.accountId)).contacts).toBe(3);
    });

    it('overwrites the name of an existing contact', async () => {
      const me = await t.account();
      const w = await world(me);
      const first = await created(me, w, '+5511987654321', 'Ana');
      const again = await post(me, contactBody(w, '+5511987654321', 'Ana Souza'));
      expect(again.status).toBe(200);
      expect((again.body as SchemaContact).name).toBe('Ana Souza');
      expect((await getContact(me, first.id)).name).toBe('Ana Souza');
    });

    it('adds the tags and values sent and leaves the others alone (a value sent replaces that field)', async () => {
      const me = await t.account();
      const w = await world(me);
      const first = await created(me, w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id],
        custom_fields: [
          { field_id: w.cidade.id, value: 'Recife' },
          { field_id: w.pontos.id, value: 1 },
        ],
      });
      t.clock.advance(1000);
      const again = await post(
        me,
        contactBody(w, '+5511987654321', 'Ana', {
          tag_ids: [w.lead.id],
          custom_fields: [
            { field_id: w.pontos.id, value: 2 },
            { field_id: w.plano.id, value: 'silver' },
          ],
        }),
      );
      expect(again.status).toBe(200);
      const contact = again.body as SchemaContact;
      expect(contact.tags).toEqual([w.vip, w.lead]);
      expect(contact.custom_fields).toEqual([
        { field_id: w.cidade.id, name: 'cidade', type: 'text', value: 'Recife' },
        { field_id: w.plano.id, name: 'plano', type: 'dropdown', value: 'silver' },
        { field_id: w.pontos.id, name: 'pontos', type: 'number', value: 2 },
      ]);
      expect(await getContact(me, first.id)).toEqual(contact);
    });

    it('keeps the connection of an existing contact when another whatsapp connection is sent', async () => {
      const me = await t.account();
      const w = await world(me);
      const first = await created(me, w, '+5511987654321', 'Ana');
      const other = await createConnection(t.database.db, t.clock, me.accountId, {
        channel: 'whatsapp',
        name: 'Filial',
        phone: '+5521930004321',
      });
      const again = await post(me, { ...contactBody(w, '+5511987654321', 'Ana'), connection_id: other.id });
      expect(again.status).toBe(200);
      expect((again.body as SchemaContact).channel).toEqual({ type: 'whatsapp', connection_id: w.connection.id });
      expect(first.channel.connection_id).toBe(w.connection.id);
    });

    it('consent false is 422 consent_required; consent missing or not a boolean is 400', async () => {
      const me = await t.account();
      const w = await world(me);
      const refused = await post(me, contactBody(w, '+5511987654321', 'Ana', { consent: false }));
      expect(refused.status).toBe(422);
      expect(refused.body).toEqual(errorBody({ code: 'consent_required' }));
      const { consent: _omit, ...missing } = contactBody(w, '+5511987654321', 'Ana');
      const noConsent = await post(me, missing);
      expect(noConsent.status).toBe(400);
      expect((noConsent.body as ErrorBody).context.code).toBeUndefined();
      expect((await post(me, contactBody(w, '+5511987654321', 'Ana', { consent: 'true' }))).status).toBe(400);
    });

    it('a blank name is 422 invalid_name', async () => {
      const me = await t.account();
      const w = await world(me);
      for (const name of ['   ', '', '\t']) {
        const res = await post(me, contactBody(w, '+5511987654321', name));
        expect(res.status, JSON.stringify(name)).toBe(422);
        expect(res.body).toEqual(errorBody({ code: 'invalid_name' }));
      }
    });

    it('a phone no contact can have is 422 invalid_phone (a foreign number without + included)', async () => {
      const me = await t.account();
      const w = await world(me);
      for (const phone of ['123', '+99912', 'abc', '', US_PHONE.slice(1), '+5511987654321 ext. 2']) {
        const res = await post(me, contactBody(w, phone, 'Ana'));
        expect(res.status, phone).toBe(422);
        expect(res.body, phone).toEqual(errorBody({ code: 'invalid_phone' }));
      }
      // A foreign number with its + is fine.
      const sam = await created(me, w, US_PHONE, 'Sam');
      expect(sam.whatsapp).toEqual({ phone: US_PHONE });
    });

    it('a phone longer than 32 characters is 400', async () => {
      const me = await t.account();
      const w = await world(me);
      const res = await post(me, contactBody(w, `+5511987654321${' '.repeat(19)}`, 'Ana'));
      expect(res.status).toBe(400);
    });

    it('connection_id not a connected whatsapp number of the account is 422 invalid_connection', async () => {
      const me = await t.account();
      const w = await world(me);
      const stranger = await t.account();
      const db = t.database.db;
      const instagram = await createConnection(db, t.clock, me.accountId, {
        channel: 'instagram',
        name: 'IG',
        username: 'loja.ig',
      });
      const disconnected = await createConnection(db, t.clock, me.accountId, {
        channel: 'whatsapp',
        name: 'Old number',
        phone: '+5511930009999',
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      });
      const foreign = await createConnection(db, t.clock, stranger.accountId, {
        channel: 'whatsapp',
        name: 'Theirs',
        phone: '+5511930005555',
      });
      for (const [what, id] of [
        ['instagram', instagram.id],
        ['disconnected', disconnected.id],
        ["another account's", foreign.id],
        ['random', randomUUID()],
      ] as const) {
        const res = await post(me, { ...contactBody(w, '+5511987654321', 'Ana'), connection_id: id });
        expect(res.status, what).toBe(422);
        expect(res.body, what).toEqual(errorBody({ code: 'invalid_connection' }));
      }
    });

    it('unknown tag ids are 422 tag_not_found listing exactly the unknown ones (a deleted tag, another account’s tag included)', async () => {
      const me = await t.account();
      const w = await world(me);
      const stranger = await t.account();
      const gone = (await (await me.call('POST', '/v1/tags', { body: { name: 'Gone' } })).json()) as SchemaTag;
      expect((await me.call('DELETE', `/v1/tags/${gone.id}`)).status).toBe(204);
      const theirs = (await (
        await stranger.call('POST', '/v1/tags', { body: { name: 'Theirs' } })
      ).json()) as SchemaTag;
      const unknown = randomUUID();
      const res = await post(
        me,
        contactBody(w, '+5511987654321', 'Ana', { tag_ids: [w.vip.id, unknown, gone.id, w.lead.id, theirs.id] }),
      );
      expect(res.status).toBe(422);
      expect(res.body).toEqual(errorBody({ code: 'tag_not_found', tag_ids: [unknown, gone.id, theirs.id] }));
    });

    it('up to 20 tag ids pass the format check; 21 is 400', async () => {
      const me = await t.account();
      const w = await world(me);
      const twenty = Array.from({ length: 20 }, () => randomUUID());
      const atLimit = await post(me, contactBody(w, '+5511987654321', 'Ana', { tag_ids: twenty }));
      expect(atLimit.status).toBe(422);
      expect(atLimit.body).toEqual(errorBody({ code: 'tag_not_found', tag_ids: twenty }));
      const over = await post(me, contactBody(w, '+5511987654321', 'Ana', { tag_ids: [...twenty, randomUUID()] }));
      expect(over.status).toBe(400);
      expect((over.body as ErrorBody).context.code).toBeUndefined();
    });

    it('up to 50 custom_fields pass the format check; 51 is 400', async () => {
      const me = await t.account();
      const w = await world(me);
      const fifty = Array.from({ length: 50 }, () => ({ field_id: randomUUID(), value: 'x' }));
      const atLimit = await post(me, contactBody(w, '+5511987654321', 'Ana', { custom_fields: fifty }));
      expect(atLimit.status).toBe(422);
      expect(atLimit.body).toEqual(
        errorBody({ code: 'custom_field_not_found', field_ids: fifty.map((f) => f.field_id) }),
      );
      const over = await post(me, contactBody(w, '+5511987654321', 'Ana', { custom_fields: [...fifty, fifty[0]] }));
      expect(over.status).toBe(400);
    });

    it('an unknown custom field is 422 custom_field_not_found with field_ids (another account’s field included)', async () => {
      const me = await t.account();
      const w = await world(me);
      const stranger = await t.account();
      const theirs = await createCustomField(t.database.db, t.clock, stranger.accountId, {
        label: 'Cidade',
        type: 'text',
      });
      const unknown = randomUUID();
      const res = await post(
        me,
        contactBody(w, '+5511987654321', 'Ana', {
          custom_fields: [
            { field_id: w.cidade.id, value: 'Recife' },
            { field_id: unknown, value: 'x' },
            { field_id: theirs.id, value: 'y' },
          ],
        }),
      );
      expect(res.status).toBe(422);
      expect(res.body).toEqual(errorBody({ code: 'custom_field_not_found', field_ids: [unknown, theirs.id] }));
    });

    it('a refused value is 422 invalid_custom_field_value listing each refused entry with its reason', async () => {
      const me = await t.account();
      const w = await world(me);
      const res = await post(
        me,
        contactBody(w, '+5511987654321', 'Ana', {
          custom_fields: [
            { field_id: w.pontos.id, value: '42' },
            { field_id: w.cidade.id, value: 7 },
            { field_id: w.plano.id, value: 'Bronze' },
          ],
        }),
      );
      expect(res.status).toBe(422);
      expect(res.body).toEqual(
        errorBody({
          code: 'invalid_custom_field_value',
          errors: [
            { field_id: w.pontos.id, reason: 'expected_number' },
            { field_id: w.cidade.id, reason: 'expected_string' },
            { field_id: w.plano.id, reason: 'invalid_option' },
          ],
        }),
      );
    });

    /** Bodies POST /v1/contacts refuses, each with otherwise valid tags and values. */
    const refusals = (w: World, phone: string, disconnectedId: string) => {
      const good = {
        tag_ids: [w.lead.id],
        custom_fields: [{ field_id: w.pontos.id, value: 99 }],
      };
      return [
        { status: 422, body: contactBody(w, phone, 'Changed', { ...good, consent: false }) },
        { status: 400, body: (({ consent: _c, ...b }) => b)(contactBody(w, phone, 'Changed', good)) },
        { status: 422, body: contactBody(w, phone, '   ', good) },
        { status: 422, body: contactBody(w, 'abc', 'Changed', good) },
        { status: 422, body: { ...contactBody(w, phone, 'Changed', good), connection_id: disconnectedId } },
        { status: 422, body: contactBody(w, phone, 'Changed', { ...good, tag_ids: [w.lead.id, randomUUID()] }) },
        {
          status: 422,
          body: contactBody(w, phone, 'Changed', {
            ...good,
            custom_fields: [...good.custom_fields, { field_id: randomUUID(), value: 'x' }],
          }),
        },
        {
          status: 422,
          body: contactBody(w, phone, 'Changed', {
            ...good,
            custom_fields: [
              { field_id: w.cidade.id, value: 'Recife' },
              { field_id: w.pontos.id, value: 'ninety' },
            ],
          }),
        },
        {
          status: 422,
          body: contactBody(w, phone, 'Changed', {
            ...good,
            custom_fields: [
              { field_id: w.pontos.id, value: 1 },
              { field_id: w.pontos.id, value: 2 },
            ],
          }),
        },
        {
          status: 400,
          body: contactBody(w, phone, 'Changed', { ...good, tag_ids: Array.from({ length: 21 }, () => w.lead.id) }),
        },
      ];
    };

    async function disconnectedConnection(me: TestCaller) {
      return createConnection(t.database.db, t.clock, me.accountId, {
        channel: 'whatsapp',
        name: 'Old number',
        phone: '+5511930009999',
        status: 'disconnected',
        disconnect_reason: 'authorization_lost',
      });
    }

    it('every refusal of a new phone writes nothing: no contact, tag, value, history or event', async () => {
      const me = await t.account();
      const w = await world(me);
      const disconnected = await disconnectedConnection(me);
      const empty = await footprint(me.accountId);
      expect(empty).toEqual({ contacts: 0, contact_tags: 0, contact_field_values: 0, contact_history: 0, events: 0 });
      for (const refusal of refusals(w, '+5511987654321', disconnected.id)) {
        const res = await post(me, refusal.body);
        expect(res.status, JSON.stringify(refusal.body)).toBe(refusal.status);
        expect(await footprint(me.accountId), JSON.stringify(refusal.body)).toEqual(empty);
      }
      expect((await listOk(me, { phone: '+5511987654321' })).data).toEqual([]);
    });

    it('every refusal on an existing contact writes nothing: name, tags, values, history and events unchanged', async () => {
      const me = await t.account();
      const w = await world(me);
      const disconnected = await disconnectedConnection(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id],
        custom_fields: [{ field_id: w.cidade.id, value: 'Natal' }],
      });
      t.clock.advance(1000);
      const before = await footprint(me.accountId);
      for (const refusal of refusals(w, '+551187654321', disconnected.id)) {
        const res = await post(me, refusal.body);
        expect(res.status, JSON.stringify(refusal.body)).toBe(refusal.status);
        expect(await footprint(me.accountId), JSON.stringify(refusal.body)).toEqual(before);
      }
      expect(await getContact(me, contact.id)).toEqual(contact);
      expect((await eventsOf(me.accountId)).map((e) => e.type)).toEqual(['contact.created']);
    });

    it('records contact.imported with consent and connection, named after the key, and no per-tag or per-value entry', async () => {
      const me = await t.account();
      const w = await world(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id],
        custom_fields: [{ field_id: w.cidade.id, value: 'Natal' }],
      });
      t.clock.advance(1000);
      const again = await post(
        me,
        contactBody(w, '+5511987654321', 'Ana', {
          tag_ids: [w.lead.id],
          custom_fields: [{ field_id: w.pontos.id, value: 3 }],
        }),
      );
      expect(again.status).toBe(200);
      const key = await t.database.db
        .selectFrom('api_keys')
        .select(['id', 'name'])
        .where('id', '=', me.keyId)
        .executeTakeFirstOrThrow();
      const entry = {
        contact_id: contact.id,
        kind: 'contact.imported',
        actor_type: 'api_key',
        actor_id: key.id,
        actor_name: key.name,
        details: { consent: true, connection_id: w.connection.id },
      };
      expect(await historyOf(me.accountId)).toEqual([expect.objectContaining(entry), expect.objectContaining(entry)]);
      expect(key.name).toMatch(/^test key/);
    });

    it('a new contact emits exactly one contact.created carrying its tags and values, no tagged or updated event', async () => {
      const me = await t.account();
      const w = await world(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id, w.lead.id],
        custom_fields: [
          { field_id: w.cidade.id, value: 'Natal' },
          { field_id: w.plano.id, value: 'Prata' },
        ],
      });
      expect(contact.tags).toHaveLength(2);
      expect(contact.custom_fields).toHaveLength(2);
      expect(await eventsOf(me.accountId)).toEqual([
        { type: 'contact.created', resource_type: 'contact', resource_id: contact.id, data: contact },
      ]);
    });

    it('an existing contact emits contact.tagged with only the new tags and contact.custom_fields_updated with only the changed fields', async () => {
      const me = await t.account();
      const w = await world(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id],
        custom_fields: [
          { field_id: w.cidade.id, value: 'Natal' },
          { field_id: w.pontos.id, value: 1 },
        ],
      });
      t.clock.advance(1000);
      const again = await post(
        me,
        contactBody(w, '+551187654321', 'Ana', {
          tag_ids: [w.vip.id, w.lead.id],
          custom_fields: [
            { field_id: w.cidade.id, value: 'Natal' },
            { field_id: w.pontos.id, value: 2 },
            { field_id: w.plano.id, value: 'Ouro' },
          ],
        }),
      );
      expect(again.status).toBe(200);
      const updated = again.body as SchemaContact;
      const events = await eventsOf(me.accountId);
      expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.tagged', 'contact.custom_fields_updated']);
      expect(events[1]).toEqual({
        type: 'contact.tagged',
        resource_type: 'contact',
        resource_id: contact.id,
        data: { contact: updated, tags: [w.lead] },
      });
      expect(events[2]).toEqual({
        type: 'contact.custom_fields_updated',
        resource_type: 'contact',
        resource_id: contact.id,
        data: {
          contact: updated,
          custom_fields: expect.arrayContaining([
            { field_id: w.pontos.id, name: 'pontos', type: 'number', value: 2 },
            { field_id: w.plano.id, name: 'plano', type: 'dropdown', value: 'gold' },
          ]),
        },
      });
      expect((events[2]!.data as { custom_fields: unknown[] }).custom_fields).toHaveLength(2);
    });

    it('repeating the same request emits nothing and changes nothing', async () => {
      const me = await t.account();
      const w = await world(me);
      const body = contactBody(w, '+5511987654321', 'Ana', {
        tag_ids: [w.vip.id],
        custom_fields: [{ field_id: w.plano.id, value: 'Ouro' }],
      });
      const first = await post(me, body);
      expect(first.status).toBe(201);
      const events = await eventsOf(me.accountId);
      t.clock.advance(60_000);
      const again = await post(me, body);
      expect(again.status).toBe(200);
      expect(again.body).toEqual(first.body);
      expect(await getContact(me, (first.body as SchemaContact).id)).toEqual(first.body);
      expect(await eventsOf(me.accountId)).toEqual(events);
    });

    it('a contact deleted in the console comes back with its id: 201, no contact.created, only tagged and updated events', async () => {
      const me = await t.account();
      const w = await world(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', { tag_ids: [w.vip.id] });
      await deleteContactInConsole(t.database.db, t.clock, me.accountId, contact.id);
      expect((await me.call('GET', `/v1/contacts/${contact.id}`)).status).toBe(404);
      t.clock.advance(1000);

      const back = await post(
        me,
        contactBody(w, '+551187654321', 'Ana de volta', {
          tag_ids: [w.lead.id],
          custom_fields: [{ field_id: w.cidade.id, value: 'Natal' }],
        }),
      );
      expect(back.status).toBe(201);
      const returned = back.body as SchemaContact;
      expect(returned.id).toBe(contact.id);
      expect(returned.name).toBe('Ana de volta');
      // The deletion dropped the tags and values it had.
      expect(returned.tags).toEqual([w.lead]);
      expect(returned.custom_fields).toEqual([{ field_id: w.cidade.id, name: 'cidade', type: 'text', value: 'Natal' }]);
      expect(ids((await listOk(me)).data)).toEqual([contact.id]);
      const events = await eventsOf(me.accountId);
      expect(events.map((e) => e.type)).toEqual(['contact.created', 'contact.tagged', 'contact.custom_fields_updated']);
      expect(events[1]!.data).toEqual({ contact: returned, tags: [w.lead] });
    });

    it('the same Idempotency-Key with the same body returns the first answer (201), with another body 422 idempotency_key_reused', async () => {
      const me = await t.account();
      const w = await world(me);
      const key = { 'Idempotency-Key': `create-${randomUUID()}` };
      const body = contactBody(w, '+5511987654321', 'Ana', { tag_ids: [w.vip.id] });
      const first = await post(me, body, key);
      expect(first.status).toBe(201);
      // The contact now exists: without the key the answer is 200...
      t.clock.advance(1000);
      expect((await post(me, body)).status).toBe(200);
      // ...with the key, the first answer.
      const replay = await post(me, body, key);
      expect(replay.status).toBe(201);
      expect(replay.body).toEqual(first.body);

      const reused = await post(me, { ...body, name: 'Someone else' }, key);
      expect(reused.status).toBe(422);
      expect(reused.body).toEqual(errorBody({ code: 'idempotency_key_reused' }));
      expect((await getContact(me, (first.body as SchemaContact).id)).name).toBe('Ana');
      expect((await eventsOf(me.accountId)).map((e) => e.type)).toEqual(['contact.created']);
      expect((await footprint(me.accountId)).contacts).toBe(1);
    });

    it('two simultaneous POSTs of one new phone give one contact: one 201, one 200, same id', async () => {
      const me = await t.account();
      const w = await world(me);
      const [a, b] = await Promise.all([
        post(me, contactBody(w, '+5511987654321', 'Ana')),
        post(me, contactBody(w, '+551187654321', 'Ana')),
      ]);
      expect([a.status, b.status].sort()).toEqual([200, 201]);
      expect((a.body as SchemaContact).id).toBe((b.body as SchemaContact).id);
      expect((await footprint(me.accountId)).contacts).toBe(1);
      expect((await eventsOf(me.accountId)).map((e) => e.type)).toEqual(['contact.created']);
    });
  });

  // ---------------------------------------------------------------------------------- GET /v1/contacts/{id}

  describe('GET /v1/contacts/{contactId}', () => {
    it('answers the contact', async () => {
      const me = await t.account();
      const w = await world(me);
      const contact = await created(me, w, '+5511987654321', 'Ana', { tag_ids: [w.vip.id] });
      const res = await me.call('GET', `/v1/contacts/${contact.id}`);
      expect(res.status).toBe(200);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await res.json()).toEqual(contact);
    });

    it("another account's contact is 404 not_found, like an unknown id", async () => {
      const owner = await t.account();
      const stranger = await t.account();
      const contact = await created(owner, await world(owner), '+5511987654321', 'Ana');
      for (const id of [contact.id, randomUUID()]) {
        const res = await stranger.call('GET', `/v1/contacts/${id}`);
        expect(res.status).toBe(404);
        expect(await res.json()).toEqual(errorBody({ code: 'not_found' }));
      }
    });

    it('a contact id that is not a uuid is 400', async () => {
      const me = await t.account();
      const res = await me.call('GET', '/v1/contacts/not-a-uuid');
      expect(res.status).toBe(400);
      const body = (await res.json()) as ErrorBody;
      expect(body.type).toBe('error');
      expect(body.context.code).toBeUndefined();
      expect(body.context.details).toEqual(expect.arrayContaining([expect.objectContaining({ location: 'path' })]));
    });
  });

  // ------------------------------------------------------------------------------------ scopes and rate kind

  describe('scopes and rate kind', () => {
    const insufficient = (scope: Scope) => errorBody({ code: 'insufficient_scope', required_scope: scope });

    it('reading contacts needs contacts:read (403 insufficient_scope)', async () => {
      const writer = await t.account({ scopes: ['contacts:write'] });
      for (const path of ['/v1/contacts', `/v1/contacts/${randomUUID()}`]) {
        const res = await writer.call('GET', path);
        expect(res.status, path).toBe(403);
        expect(await res.json()).toEqual(insufficient('contacts:read'));
      }
    });

    it('POST /v1/contacts needs contacts:write (403 insufficient_scope) and writes nothing', async () => {
      const reader = await t.account({ scopes: ['contacts:read'] });
      const connection = await createConnection(t.database.db, t.clock, reader.accountId, {
        channel: 'whatsapp',
        name: 'Loja',
        phone: '+5511930001234',
      });
      const res = await reader.call('POST', '/v1/contacts', {
        body: { phone: '+5511987654321', name: 'Ana', connection_id: connection.id, consent: true },
      });
      expect(res.status).toBe(403);
      expect(await res.json()).toEqual(insufficient('contacts:write'));
      expect((await footprint(reader.accountId)).contacts).toBe(0);
    });

    it('GET /v1/contacts counts as a read call (RateLimit-Limit 120), POST as a write call (60)', async () => {
      const me = await t.account();
      const w = await world(me);
      const read = await list(me);
      expect(read.status).toBe(200);
      expect(read.headers.get('ratelimit-limit')).toBe('120');
      const one = await me.call('GET', `/v1/contacts/${(await created(me, w, '+5511987654321', 'Ana')).id}`);
      expect(one.headers.get('ratelimit-limit')).toBe('120');
      const write = await me.call('POST', '/v1/contacts', { body: contactBody(w, '+5511987654322', 'Bia') });
      expect(write.status).toBe(201);
      expect(write.headers.get('ratelimit-limit')).toBe('60');
    });
  });
});
