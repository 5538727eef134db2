// Tags and custom-field values on a contact (Part A: PUT and DELETE tags, PATCH and DELETE custom-fields, Tags,
// GET /v1/tags/{tagId}/contacts; Part C: contact events; docs/decisions.md, Contacts) on every engine of the run:
// answers, person-wide removal, history named after the key, events (checked against the spec's webhook
// schemas and against the contact as GET returns it), tag and field deletion, holder list order and paging,
// scopes, account isolation, idempotency and rate kind.
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiKey } from '../../server/domain/accounts/keys.js';
import { createConnection } from '../../server/domain/console/connections.js';
import { createCustomField, removeCustomField, type FieldType } from '../../server/domain/console/custom-fields.js';
import {
  createInstagramContact,
  deleteContactInConsole,
  linkSamePerson,
} from '../../server/domain/contacts/contacts.js';
import { bundledSpec } from '../helpers.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type {
  SchemaContact,
  SchemaContactCustomFields,
  SchemaContactTags,
  SchemaCustomFieldValue,
  SchemaMe,
  SchemaTag,
  SchemaTagSummary,
  SchemaTaggedContactList,
  SchemaValidationError,
} from '../../generated/api.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

interface EventRow {
  id: string;
  sequence: string;
  type: string;
  resource_type: string;
  resource_id: string;
  data: unknown;
  created_at: string;
}
interface HistoryRow {
  kind: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string | null;
  details: Record<string, unknown>;
  created_at: string;
}

// ----------------------------------------------------------------------------------- the spec's event schemas

const SPEC_ID = 'https://spec.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...bundledSpec(), $id: SPEC_ID }, SPEC_ID);
const eventValidators = new Map<string, ValidateFunction>();
/** The validator of the webhook body of `type` (its POST request body in the spec's `webhooks`). */
function eventValidator(type: string): ValidateFunction {
  let v = eventValidators.get(type);
  if (!v) {
    const escaped = type.replace(/~/g, '~0').replace(/\//g, '~1');
    v = ajv.compile({ $ref: `${SPEC_ID}#/webhooks/${escaped}/post/requestBody/content/application~1json/schema` });
    eventValidators.set(type, v);
  }
  return v;
}

/** An outbox row as the webhook body carries it. */
const envelope = (row: EventRow) => ({
  id: row.id,
  type: row.type,
  api_version: 'v1',
  created_at: row.created_at,
  data: row.data,
});

// ----------------------------------------------------------------------------------------------------- helpers

/** A 400 of the format check: no code, `context.details` only, each naming `path` (a JSON pointer) in the body. */
async function expectBadBody(res: Response, path: string): Promise<void> {
  const body = await json<SchemaValidationError>(res, 400);
  expect(body).toEqual({ type: 'error', message: expect.any(String), context: { details: expect.any(Array) } });
  expect(body.context.details.length).toBeGreaterThan(0);
  for (const detail of body.context.details)
    expect(detail).toEqual({ location: 'body', path, message: expect.any(String) });
}

const notFound = { code: 'not_found' };
const micro = (d: Date) => d.toISOString().replace('Z', '000Z');
let phoneCounter = 0;
const nextPhone = () => `+55119${String(70000000 + ++phoneCounter)}`;

describe.each(engines)('contact holdings on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  interface World {
    c: TestCaller;
    whatsapp: string;
    instagram: string;
    keyName: string;
  }

  /** A new account with every scope, a connected whatsapp number and an instagram account. */
  async function world(): Promise<World> {
    const c = await t.account();
    const wa = await createConnection(t.database.db, t.clock, c.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    const ig = await createConnection(t.database.db, t.clock, c.accountId, {
      channel: 'instagram',
      name: 'Loja IG',
      username: 'loja.oficial',
    });
    const me = await json<SchemaMe>(await c.call('GET', '/v1/me'), 200);
    expect(me.api_key.id).toBe(c.keyId);
    return { c, whatsapp: wa.id, instagram: ig.id, keyName: me.api_key.name };
  }

  async function waContact(w: World, name = 'Ana Souza'): Promise<SchemaContact> {
    const res = await w.c.call('POST', '/v1/contacts', {
      body: { phone: nextPhone(), name, connection_id: w.whatsapp, consent: true },
    });
    return json<SchemaContact>(res, 201);
  }

  async function igContact(w: World, name = 'Ana IG'): Promise<SchemaContact> {
    const n = randomUUID().slice(0, 8);
    return createInstagramContact(t.database.db, t.clock, w.c.accountId, {
      connectionId: w.instagram,
      instagramId: `1784${n}`,
      username: `ana.${n}`,
      name,
    });
  }

  /** A whatsapp contact and an instagram contact of one person. */
  async function person(w: World): Promise<[SchemaContact, SchemaContact]> {
    const a = await waContact(w);
    const b = await igContact(w);
    await linkSamePerson(t.database.db, w.c.accountId, b.id, a.id);
    return [await getContact(w.c, a.id), await getContact(w.c, b.id)];
  }

  async function makeTag(c: TestCaller, name: string): Promise<SchemaTagSummary> {
    const tag = await json<SchemaTag>(await c.call('POST', '/v1/tags', { body: { name } }), 201);
    return { id: tag.id, name: tag.name };
  }

  async function makeField(
    c: TestCaller,
    label: string,
    type: FieldType,
    options?: { value: string; label: string }[],
  ): Promise<{ id: string; name: string; type: FieldType }> {
    const row = await createCustomField(t.database.db, t.clock, c.accountId, {
      label,
      type,
      ...(options ? { options } : {}),
    });
    return { id: row.id, name: row.name, type: row.type as FieldType };
  }

  const getContact = async (c: TestCaller, id: string) =>
    json<SchemaContact>(await c.call('GET', `/v1/contacts/${id}`), 200);
  const putTag = (c: TestCaller, contactId: string, tagId: string, headers: Record<string, string> = {}) =>
    c.call('PUT', `/v1/contacts/${contactId}/tags/${tagId}`, { headers });
  const deleteTag = (c: TestCaller, contactId: string, tagId: string) =>
    c.call('DELETE', `/v1/contacts/${contactId}/tags/${tagId}`);
  const patchValues = (c: TestCaller, contactId: string, entries: unknown, headers: Record<string, string> = {}) =>
    c.call('PATCH', `/v1/contacts/${contactId}/custom-fields`, { body: { custom_fields: entries }, headers });
  const clearValue = (c: TestCaller, contactId: string, fieldId: string) =>
    c.call('DELETE', `/v1/contacts/${contactId}/custom-fields/${fieldId}`);
  const holders = async (c: TestCaller, tagId: string, query = '') =>
    json<SchemaTaggedContactList>(await c.call('GET', `/v1/tags/${tagId}/contacts${query}`), 200);

  async function events(accountId: string): Promise<EventRow[]> {
    const rows = await t.database.db
      .selectFrom('events')
      .select(['id', 'sequence', 'type', 'resource_type', 'resource_id', 'data', 'created_at'])
      .where('account_id', '=', accountId)
      .orderBy('sequence')
      .execute();
    return rows as EventRow[];
  }
  /** The events written by `action`. */
  async function eventsOf(accountId: string, action: () => Promise<unknown>): Promise<EventRow[]> {
    const before = (await events(accountId)).length;
    await action();
    return (await events(accountId)).slice(before);
  }

  async function history(accountId: string, contactId?: string): Promise<HistoryRow[]> {
    let q = t.database.db
      .selectFrom('contact_history')
      .select(['kind', 'actor_type', 'actor_id', 'actor_name', 'details', 'created_at'])
      .where('account_id', '=', accountId);
    if (contactId) q = q.where('contact_id', '=', contactId);
    return (await q.orderBy('created_at').orderBy('id').execute()) as HistoryRow[];
  }
  const historyKinds = async (accountId: string, contactId: string) =>
    (await history(accountId, contactId)).map((h) => h.kind);

  // ------------------------------------------------------------------------------------------ PUT tag

  describe('PUT /v1/contacts/{contactId}/tags/{tagId}', () => {
    it('answers 200 {contact_id, tags} with the tags in the order the contact got them, the new one last', async () => {
      const w = await world();
      const contact = await waContact(w);
      const t1 = await makeTag(w.c, 'Tag 1');
      const t2 = await makeTag(w.c, 'Tag 2');
      const t3 = await makeTag(w.c, 'Tag 3');
      // Put on in neither creation nor name order.
      const order = [t3, t1, t2];
      for (let i = 0; i < order.length; i++) {
        t.clock.advance(1000);
        const res = await putTag(w.c, contact.id, order[i]!.id);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await json<SchemaContactTags>(res, 200)).toEqual({
          contact_id: contact.id,
          tags: order.slice(0, i + 1),
        });
      }
      expect((await getContact(w.c, contact.id)).tags).toEqual(order);
    });

    it('changes nothing when the contact already has the tag: same answer, no event, no history, same tagged_at', async () => {
      const w = await world();
      const a = await waContact(w);
      const b = await waContact(w, 'Bruno');
      const tag = await makeTag(w.c, 'VIP');
      t.clock.advance(1000);
      const first = await json<SchemaContactTags>(await putTag(w.c, a.id, tag.id), 200);
      t.clock.advance(1000);
      await json<SchemaContactTags>(await putTag(w.c, b.id, tag.id), 200);
      const listed = await holders(w.c, tag.id);
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactTags>(await putTag(w.c, a.id, tag.id), 200)).toEqual(first);
      });
      expect(written).toEqual([]);
      expect(await historyKinds(w.c.accountId, a.id)).toEqual(['contact.imported', 'tag.added']);
      expect(await holders(w.c, tag.id)).toEqual(listed);
      expect(listed.data.map((h) => h.contact.id)).toEqual([a.id, b.id]);
    });

    it('answers 404 not_found for an unknown, a deleted or another account’s tag, and tags nothing', async () => {
      const w = await world();
      const other = await world();
      const contact = await waContact(w);
      const deleted = await makeTag(w.c, 'Gone');
      expect((await w.c.call('DELETE', `/v1/tags/${deleted.id}`)).status).toBe(204);
      const foreign = await makeTag(other.c, 'Foreign');
      for (const tagId of [randomUUID(), deleted.id, foreign.id])
        await expectError(await putTag(w.c, contact.id, tagId), 404, notFound);
      expect((await getContact(w.c, contact.id)).tags).toEqual([]);
      expect(await holders(other.c, foreign.id)).toEqual({ data: [], next_cursor: null });
    });

    it('answers 404 not_found for an unknown or deleted contact', async () => {
      const w = await world();
      const tag = await makeTag(w.c, 'VIP');
      const gone = await waContact(w);
      await deleteContactInConsole(t.database.db, t.clock, w.c.accountId, gone.id);
      for (const contactId of [randomUUID(), gone.id])
        await expectError(await putTag(w.c, contactId, tag.id), 404, notFound);
      expect(await holders(w.c, tag.id)).toEqual({ data: [], next_cursor: null });
    });

    it("tags only this contact, not the person's other contact", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      await json<SchemaContactTags>(await putTag(w.c, a.id, tag.id), 200);
      expect((await getContact(w.c, a.id)).tags).toEqual([tag]);
      expect((await getContact(w.c, b.id)).tags).toEqual([]);
      expect((await holders(w.c, tag.id)).data.map((h) => h.contact.id)).toEqual([a.id]);
    });

    it('records tag.added in the contact history, named after the key', async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      t.clock.advance(1000);
      await json<SchemaContactTags>(await putTag(w.c, contact.id, tag.id), 200);
      const entries = (await history(w.c.accountId, contact.id)).filter((h) => h.kind !== 'contact.imported');
      expect(entries).toEqual([
        {
          kind: 'tag.added',
          actor_type: 'api_key',
          actor_id: w.c.keyId,
          actor_name: w.keyName,
          details: expect.objectContaining({ tag_id: tag.id }),
          created_at: micro(t.clock.now()),
        },
      ]);
    });

    it('emits one contact.tagged with {contact, tags: [the tag]}, the contact holding it', async () => {
      const w = await world();
      const contact = await waContact(w);
      const held = await makeTag(w.c, 'Held');
      await json<SchemaContactTags>(await putTag(w.c, contact.id, held.id), 200);
      const tag = await makeTag(w.c, 'VIP');
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, () => putTag(w.c, contact.id, tag.id));
      const after = await getContact(w.c, contact.id);
      expect(after.tags).toEqual([held, tag]);
      expect(written).toEqual([
        {
          id: expect.any(String),
          sequence: expect.anything(),
          type: 'contact.tagged',
          resource_type: 'contact',
          resource_id: contact.id,
          data: { contact: after, tags: [tag] },
          created_at: micro(t.clock.now()),
        },
      ]);
    });

    it("does not move the contact's updated_at", async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      t.clock.advance(60_000);
      await json<SchemaContactTags>(await putTag(w.c, contact.id, tag.id), 200);
      const after = await getContact(w.c, contact.id);
      expect(after.updated_at).toBe(contact.updated_at);
      expect(after.last_interaction_at).toBe(contact.last_interaction_at);
    });
  });

  // --------------------------------------------------------------------------------------- DELETE tag

  describe('DELETE /v1/contacts/{contactId}/tags/{tagId}', () => {
    it("takes the tag off this contact and off the person's other contacts", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, a.id, tag.id), 200);
      await json(await putTag(w.c, b.id, tag.id), 200);
      await json<SchemaContactTags>(await deleteTag(w.c, a.id, tag.id), 200);
      expect((await getContact(w.c, a.id)).tags).toEqual([]);
      expect((await getContact(w.c, b.id)).tags).toEqual([]);
      expect(await holders(w.c, tag.id)).toEqual({ data: [], next_cursor: null });
    });

    it('emits one contact.untagged per contact that had the tag, each with its own contact, none for one that lacked it', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const third = await igContact(w, 'Terceiro');
      await linkSamePerson(t.database.db, w.c.accountId, third.id, a.id);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, a.id, tag.id), 200);
      await json(await putTag(w.c, b.id, tag.id), 200);
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, () => deleteTag(w.c, a.id, tag.id));
      const afterA = await getContact(w.c, a.id);
      const afterB = await getContact(w.c, b.id);
      expect(written.map((e) => e.type)).toEqual(['contact.untagged', 'contact.untagged']);
      const byContact = new Map(written.map((e) => [e.resource_id, e]));
      expect([...byContact.keys()].sort()).toEqual([a.id, b.id].sort());
      expect(byContact.get(a.id)!.data).toEqual({ contact: afterA, tags: [tag] });
      expect(byContact.get(b.id)!.data).toEqual({ contact: afterB, tags: [tag] });
      for (const e of written) {
        expect(e.resource_type).toBe('contact');
        expect(e.created_at).toBe(micro(t.clock.now()));
      }
    });

    it('also runs when this contact lacks the tag: 200 and the other contact of the person loses it (a retry finishes)', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, b.id, tag.id), 200);
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactTags>(await deleteTag(w.c, a.id, tag.id), 200)).toEqual({
          contact_id: a.id,
          tags: [],
        });
      });
      const afterB = await getContact(w.c, b.id);
      expect(afterB.tags).toEqual([]);
      expect(written.map((e) => [e.type, e.resource_id])).toEqual([['contact.untagged', b.id]]);
      expect(written[0]!.data).toEqual({ contact: afterB, tags: [tag] });
      expect(await historyKinds(w.c.accountId, a.id)).not.toContain('tag.removed');
    });

    it('leaves the tag on a contact of another person', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const stranger = await waContact(w, 'Carla');
      const tag = await makeTag(w.c, 'VIP');
      for (const id of [a.id, b.id, stranger.id]) await json(await putTag(w.c, id, tag.id), 200);
      const written = await eventsOf(w.c.accountId, () => deleteTag(w.c, a.id, tag.id));
      expect((await getContact(w.c, stranger.id)).tags).toEqual([tag]);
      expect((await holders(w.c, tag.id)).data.map((h) => h.contact.id)).toEqual([stranger.id]);
      expect(written.map((e) => e.resource_id)).not.toContain(stranger.id);
    });

    it('records tag.removed, named after the key, on each contact that had the tag and only there', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const third = await igContact(w, 'Terceiro');
      await linkSamePerson(t.database.db, w.c.accountId, third.id, a.id);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, a.id, tag.id), 200);
      await json(await putTag(w.c, b.id, tag.id), 200);
      t.clock.advance(1000);
      await json(await deleteTag(w.c, a.id, tag.id), 200);
      const removed = {
        kind: 'tag.removed',
        actor_type: 'api_key',
        actor_id: w.c.keyId,
        actor_name: w.keyName,
        details: expect.objectContaining({ tag_id: tag.id }),
        created_at: micro(t.clock.now()),
      };
      for (const id of [a.id, b.id])
        expect((await history(w.c.accountId, id)).filter((h) => h.kind === 'tag.removed')).toEqual([removed]);
      expect(await history(w.c.accountId, third.id)).toEqual([]);
    });

    it("answers {contact_id, tags} with this contact's own remaining tags only", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      const mine = await makeTag(w.c, 'Mine');
      const theirs = await makeTag(w.c, 'Theirs');
      t.clock.advance(1000);
      await json(await putTag(w.c, a.id, mine.id), 200);
      t.clock.advance(1000);
      await json(await putTag(w.c, a.id, tag.id), 200);
      await json(await putTag(w.c, b.id, theirs.id), 200);
      await json(await putTag(w.c, b.id, tag.id), 200);
      const res = await deleteTag(w.c, a.id, tag.id);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await json<SchemaContactTags>(res, 200)).toEqual({ contact_id: a.id, tags: [mine] });
      expect((await getContact(w.c, b.id)).tags).toEqual([theirs]);
    });

    it('answers 404 not_found for an unknown or deleted tag and for an unknown contact', async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      const gone = await makeTag(w.c, 'Gone');
      await json(await putTag(w.c, contact.id, tag.id), 200);
      expect((await w.c.call('DELETE', `/v1/tags/${gone.id}`)).status).toBe(204);
      for (const tagId of [randomUUID(), gone.id])
        await expectError(await deleteTag(w.c, contact.id, tagId), 404, notFound);
      await expectError(await deleteTag(w.c, randomUUID(), tag.id), 404, notFound);
      expect((await getContact(w.c, contact.id)).tags).toEqual([tag]);
    });

    it("does not move the updated_at of the person's contacts", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, a.id, tag.id), 200);
      await json(await putTag(w.c, b.id, tag.id), 200);
      t.clock.advance(60_000);
      await json(await deleteTag(w.c, a.id, tag.id), 200);
      expect((await getContact(w.c, a.id)).updated_at).toBe(a.updated_at);
      expect((await getContact(w.c, b.id)).updated_at).toBe(b.updated_at);
    });
  });

  // ------------------------------------------------------------------------------------ PATCH values

  describe('PATCH /v1/contacts/{contactId}/custom-fields', () => {
    it('takes a JSON number on a number field (12 and 49.9)', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Pontos', 'number');
      for (const value of [12, 49.9]) {
        const res = await patchValues(w.c, contact.id, [{ field_id: f.id, value }]);
        expect(res.headers.get('cache-control')).toBe('no-store');
        expect(await json<SchemaContactCustomFields>(res, 200)).toEqual({
          contact_id: contact.id,
          custom_fields: [{ field_id: f.id, name: 'pontos', type: 'number', value }],
        });
        expect((await getContact(w.c, contact.id)).custom_fields).toEqual([
          { field_id: f.id, name: 'pontos', type: 'number', value },
        ]);
      }
    });

    it('refuses a numeric string on a number field: 422 expected_number', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Pontos', 'number');
      await expectError(await patchValues(w.c, contact.id, [{ field_id: f.id, value: '49.9' }]), 422, {
        code: 'invalid_custom_field_value',
        errors: [{ field_id: f.id, reason: 'expected_number' }],
      });
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('refuses a number on a text field: 422 expected_string', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Cidade', 'text');
      await expectError(await patchValues(w.c, contact.id, [{ field_id: f.id, value: 12 }]), 422, {
        code: 'invalid_custom_field_value',
        errors: [{ field_id: f.id, reason: 'expected_string' }],
      });
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('takes the value or the label of a dropdown option and stores and answers the option value', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Plano', 'dropdown', [
        { value: 'pro', label: 'Plano Pro' },
        { value: 'basic', label: 'Básico' },
      ]);
      for (const [sent, stored] of [
        ['Plano Pro', 'pro'],
        ['basic', 'basic'],
        ['Básico', 'basic'],
        ['pro', 'pro'],
      ] as const) {
        const expected = [{ field_id: f.id, name: 'plano', type: 'dropdown', value: stored }];
        const written = await eventsOf(w.c.accountId, async () => {
          expect(
            await json<SchemaContactCustomFields>(
              await patchValues(w.c, contact.id, [{ field_id: f.id, value: sent }]),
              200,
            ),
          ).toEqual({ contact_id: contact.id, custom_fields: expected });
        });
        expect((await getContact(w.c, contact.id)).custom_fields).toEqual(expected);
        const row = await t.database.db
          .selectFrom('contact_field_values')
          .select('value')
          .where('contact_id', '=', contact.id)
          .where('field_id', '=', f.id)
          .executeTakeFirstOrThrow();
        expect(row.value).toBe(stored);
        // The label of the option already held is no change.
        if (sent === 'Básico') expect(written).toEqual([]);
        else expect((written[0]!.data as { custom_fields: SchemaCustomFieldValue[] }).custom_fields).toEqual(expected);
      }
    });

    it('refuses a string that is neither the value nor the label of an option: 422 invalid_option', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Plano', 'dropdown', [{ value: 'pro', label: 'Plano Pro' }]);
      for (const value of ['gold', 'PRO', 'plano pro'])
        await expectError(await patchValues(w.c, contact.id, [{ field_id: f.id, value }]), 422, {
          code: 'invalid_custom_field_value',
          errors: [{ field_id: f.id, reason: 'invalid_option' }],
        });
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('refuses the same field twice in one request: 422 duplicate_field, nothing written', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Pontos', 'number');
      await expectError(
        await patchValues(w.c, contact.id, [
          { field_id: f.id, value: 1 },
          { field_id: f.id, value: 2 },
        ]),
        422,
        { code: 'invalid_custom_field_value', errors: [{ field_id: f.id, reason: 'duplicate_field' }] },
      );
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('lists every refusal of the request together, in request order, in context.errors', async () => {
      const w = await world();
      const contact = await waContact(w);
      const text = await makeField(w.c, 'Cidade', 'text');
      const number = await makeField(w.c, 'Pontos', 'number');
      const drop = await makeField(w.c, 'Plano', 'dropdown', [{ value: 'pro', label: 'Plano Pro' }]);
      const fine = await makeField(w.c, 'Apelido', 'text');
      await expectError(
        await patchValues(w.c, contact.id, [
          { field_id: drop.id, value: 'gold' },
          { field_id: fine.id, value: 'Aninha' },
          { field_id: number.id, value: '7' },
          { field_id: text.id, value: 3 },
          { field_id: drop.id, value: 'pro' },
        ]),
        422,
        {
          code: 'invalid_custom_field_value',
          errors: [
            { field_id: drop.id, reason: 'invalid_option' },
            { field_id: number.id, reason: 'expected_number' },
            { field_id: text.id, reason: 'expected_string' },
            { field_id: drop.id, reason: 'duplicate_field' },
          ],
        },
      );
    });

    it('writes none of the request when one value is refused: no value, no event, no history', async () => {
      const w = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const points = await makeField(w.c, 'Pontos', 'number');
      await json(await patchValues(w.c, contact.id, [{ field_id: points.id, value: 5 }]), 200);
      const historyBefore = await history(w.c.accountId, contact.id);
      const written = await eventsOf(w.c.accountId, async () => {
        await expectError(
          await patchValues(w.c, contact.id, [
            { field_id: city.id, value: 'Recife' },
            { field_id: points.id, value: 6 },
            { field_id: city.id, value: 'Olinda' },
          ]),
          422,
          { code: 'invalid_custom_field_value', errors: [{ field_id: city.id, reason: 'duplicate_field' }] },
        );
        await expectError(
          await patchValues(w.c, contact.id, [
            { field_id: points.id, value: 7 },
            { field_id: city.id, value: 8 },
          ]),
          422,
          { code: 'invalid_custom_field_value', errors: [{ field_id: city.id, reason: 'expected_string' }] },
        );
      });
      expect(written).toEqual([]);
      expect(await history(w.c.accountId, contact.id)).toEqual(historyBefore);
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([
        { field_id: points.id, name: 'pontos', type: 'number', value: 5 },
      ]);
    });

    it('answers 422 custom_field_not_found with field_ids for fields not in the account, writing nothing', async () => {
      const w = await world();
      const other = await world();
      const contact = await waContact(w);
      const mine = await makeField(w.c, 'Cidade', 'text');
      const theirs = await makeField(other.c, 'Cidade', 'text');
      const unknown = randomUUID();
      const written = await eventsOf(w.c.accountId, async () => {
        await expectError(
          await patchValues(w.c, contact.id, [
            { field_id: unknown, value: 'x' },
            { field_id: mine.id, value: 'Recife' },
            { field_id: theirs.id, value: 'y' },
          ]),
          422,
          { code: 'custom_field_not_found', field_ids: [unknown, theirs.id] },
        );
      });
      expect(written).toEqual([]);
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('refuses a null value with 400 (clearing is DELETE)', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Cidade', 'text');
      await json(await patchValues(w.c, contact.id, [{ field_id: f.id, value: 'Recife' }]), 200);
      await expectBadBody(
        await patchValues(w.c, contact.id, [{ field_id: f.id, value: null }]),
        '/custom_fields/0/value',
      );
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([
        { field_id: f.id, name: 'cidade', type: 'text', value: 'Recife' },
      ]);
    });

    it('refuses a text of 1001 characters with 400 and takes one of 1000', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Notas', 'text');
      await expectBadBody(
        await patchValues(w.c, contact.id, [{ field_id: f.id, value: 'x'.repeat(1001) }]),
        '/custom_fields/0/value',
      );
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
      const ok = await json<SchemaContactCustomFields>(
        await patchValues(w.c, contact.id, [{ field_id: f.id, value: 'x'.repeat(1000) }]),
        200,
      );
      expect(ok.custom_fields).toEqual([{ field_id: f.id, name: 'notas', type: 'text', value: 'x'.repeat(1000) }]);
    });

    it('counts characters, not UTF-16 units: 1000 emoji are taken', async () => {
      const w = await world();
      const contact = await waContact(w);
      const f = await makeField(w.c, 'Notas', 'text');
      const value = '😀'.repeat(1000);
      const ok = await json<SchemaContactCustomFields>(
        await patchValues(w.c, contact.id, [{ field_id: f.id, value }]),
        200,
      );
      expect(ok.custom_fields).toEqual([{ field_id: f.id, name: 'notas', type: 'text', value }]);
    });

    it('refuses an empty string with 400', async () => {
      const w = await world();
      const contact = await waContact(w);
      const text = await makeField(w.c, 'Cidade', 'text');
      const drop = await makeField(w.c, 'Plano', 'dropdown', [{ value: 'pro', label: 'Plano Pro' }]);
      for (const f of [text, drop])
        await expectBadBody(
          await patchValues(w.c, contact.id, [{ field_id: f.id, value: '' }]),
          '/custom_fields/0/value',
        );
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([]);
    });

    it('refuses an empty custom_fields array with 400', async () => {
      const w = await world();
      const contact = await waContact(w);
      await expectBadBody(await patchValues(w.c, contact.id, []), '/custom_fields');
    });

    it('answers {contact_id, custom_fields} with every value the contact holds, ordered by field name', async () => {
      const w = await world();
      const contact = await waContact(w);
      const zeta = await makeField(w.c, 'Zeta', 'text');
      const alpha = await makeField(w.c, 'Alpha', 'number');
      const middle = await makeField(w.c, 'Middle', 'text');
      const a = { field_id: alpha.id, name: 'alpha', type: 'number', value: 1 };
      const m = { field_id: middle.id, name: 'middle', type: 'text', value: 'm' };
      const z = { field_id: zeta.id, name: 'zeta', type: 'text', value: 'z' };
      expect(
        await json<SchemaContactCustomFields>(
          await patchValues(w.c, contact.id, [
            { field_id: zeta.id, value: 'z' },
            { field_id: alpha.id, value: 1 },
          ]),
          200,
        ),
      ).toEqual({ contact_id: contact.id, custom_fields: [a, z] });
      expect(
        await json<SchemaContactCustomFields>(
          await patchValues(w.c, contact.id, [{ field_id: middle.id, value: 'm' }]),
          200,
        ),
      ).toEqual({ contact_id: contact.id, custom_fields: [a, m, z] });
      expect((await getContact(w.c, contact.id)).custom_fields).toEqual([a, m, z]);
    });

    it('changes nothing when the same values are written again: same answer, no event, no history', async () => {
      const w = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const points = await makeField(w.c, 'Pontos', 'number');
      const body = [
        { field_id: city.id, value: 'Recife' },
        { field_id: points.id, value: 49.9 },
      ];
      const first = await json<SchemaContactCustomFields>(await patchValues(w.c, contact.id, body), 200);
      const historyBefore = await history(w.c.accountId, contact.id);
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactCustomFields>(await patchValues(w.c, contact.id, body), 200)).toEqual(first);
      });
      expect(written).toEqual([]);
      expect(await history(w.c.accountId, contact.id)).toEqual(historyBefore);
    });

    it('emits one contact.custom_fields_updated with one entry per changed field only', async () => {
      const w = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const points = await makeField(w.c, 'Pontos', 'number');
      const plan = await makeField(w.c, 'Plano', 'dropdown', [{ value: 'pro', label: 'Plano Pro' }]);
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, () =>
        patchValues(w.c, contact.id, [
          { field_id: points.id, value: 3 },
          { field_id: city.id, value: 'Recife' },
          { field_id: plan.id, value: 'Plano Pro' },
        ]),
      );
      const after = await getContact(w.c, contact.id);
      expect(written).toEqual([
        {
          id: expect.any(String),
          sequence: expect.anything(),
          type: 'contact.custom_fields_updated',
          resource_type: 'contact',
          resource_id: contact.id,
          data: {
            contact: after,
            custom_fields: [
              { field_id: points.id, name: 'pontos', type: 'number', value: 3 },
              { field_id: plan.id, name: 'plano', type: 'dropdown', value: 'pro' },
            ],
          },
          created_at: micro(t.clock.now()),
        },
      ]);
    });

    it('records custom_field.set, named after the key, for each changed field only', async () => {
      const w = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const points = await makeField(w.c, 'Pontos', 'number');
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      t.clock.advance(1000);
      await json(
        await patchValues(w.c, contact.id, [
          { field_id: city.id, value: 'Recife' },
          { field_id: points.id, value: 3 },
        ]),
        200,
      );
      const set = (await history(w.c.accountId, contact.id)).filter((h) => h.kind === 'custom_field.set');
      const entry = (fieldId: string, at: Date) => ({
        kind: 'custom_field.set',
        actor_type: 'api_key',
        actor_id: w.c.keyId,
        actor_name: w.keyName,
        details: expect.objectContaining({ field_id: fieldId }),
        created_at: micro(at),
      });
      expect(set).toEqual([entry(city.id, new Date(t.clock.now().getTime() - 1000)), entry(points.id, t.clock.now())]);
    });

    it("does not move the contact's updated_at", async () => {
      const w = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      t.clock.advance(60_000);
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      expect((await getContact(w.c, contact.id)).updated_at).toBe(contact.updated_at);
    });

    it('answers 404 not_found for an unknown contact', async () => {
      const w = await world();
      const city = await makeField(w.c, 'Cidade', 'text');
      await expectError(await patchValues(w.c, randomUUID(), [{ field_id: city.id, value: 'Recife' }]), 404, notFound);
    });
  });

  // ------------------------------------------------------------------------------------ DELETE value

  describe('DELETE /v1/contacts/{contactId}/custom-fields/{fieldId}', () => {
    it("clears the value on this contact and on the person's other contacts, not on another person", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const stranger = await waContact(w, 'Carla');
      const city = await makeField(w.c, 'Cidade', 'text');
      for (const id of [a.id, b.id, stranger.id])
        await json(await patchValues(w.c, id, [{ field_id: city.id, value: 'Recife' }]), 200);
      await json(await clearValue(w.c, a.id, city.id), 200);
      expect((await getContact(w.c, a.id)).custom_fields).toEqual([]);
      expect((await getContact(w.c, b.id)).custom_fields).toEqual([]);
      expect((await getContact(w.c, stranger.id)).custom_fields).toEqual([
        { field_id: city.id, name: 'cidade', type: 'text', value: 'Recife' },
      ]);
    });

    it('emits contact.custom_fields_updated with value null per contact that had a value, each with its own contact', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const third = await igContact(w, 'Terceiro');
      await linkSamePerson(t.database.db, w.c.accountId, third.id, a.id);
      const city = await makeField(w.c, 'Cidade', 'text');
      for (const id of [a.id, b.id])
        await json(await patchValues(w.c, id, [{ field_id: city.id, value: 'Recife' }]), 200);
      t.clock.advance(1000);
      const written = await eventsOf(w.c.accountId, () => clearValue(w.c, a.id, city.id));
      const cleared = [{ field_id: city.id, name: 'cidade', type: 'text', value: null }];
      expect(written.map((e) => e.type)).toEqual(['contact.custom_fields_updated', 'contact.custom_fields_updated']);
      const byContact = new Map(written.map((e) => [e.resource_id, e]));
      expect([...byContact.keys()].sort()).toEqual([a.id, b.id].sort());
      for (const id of [a.id, b.id]) {
        const e = byContact.get(id)!;
        expect(e.data).toEqual({ contact: await getContact(w.c, id), custom_fields: cleared });
        expect(e.created_at).toBe(micro(t.clock.now()));
      }
    });

    it('records the clear in the history, named after the key, on each contact that had a value', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      await json(await patchValues(w.c, b.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      t.clock.advance(1000);
      await json(await clearValue(w.c, a.id, city.id), 200);
      const last = (await history(w.c.accountId, b.id)).at(-1);
      expect(last).toEqual({
        kind: 'custom_field.cleared',
        actor_type: 'api_key',
        actor_id: w.c.keyId,
        actor_name: w.keyName,
        details: expect.objectContaining({ field_id: city.id }),
        created_at: micro(t.clock.now()),
      });
      expect(await historyKinds(w.c.accountId, a.id)).toEqual(['contact.imported']);
    });

    it('also runs when this contact has no value: 200, the other contact of the person is cleared', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      await json(await patchValues(w.c, b.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactCustomFields>(await clearValue(w.c, a.id, city.id), 200)).toEqual({
          contact_id: a.id,
          custom_fields: [],
        });
      });
      expect((await getContact(w.c, b.id)).custom_fields).toEqual([]);
      expect(written.map((e) => [e.type, e.resource_id])).toEqual([['contact.custom_fields_updated', b.id]]);
    });

    it('answers 200 with no event when no contact of the person has a value', async () => {
      const w = await world();
      const [a] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactCustomFields>(await clearValue(w.c, a.id, city.id), 200)).toEqual({
          contact_id: a.id,
          custom_fields: [],
        });
      });
      expect(written).toEqual([]);
    });

    it("answers {contact_id, custom_fields} with this contact's own remaining values, ordered by name", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const zeta = await makeField(w.c, 'Zeta', 'number');
      const alpha = await makeField(w.c, 'Alpha', 'text');
      const other = await makeField(w.c, 'Outro', 'text');
      await json(
        await patchValues(w.c, a.id, [
          { field_id: zeta.id, value: 2 },
          { field_id: city.id, value: 'Recife' },
          { field_id: alpha.id, value: 'a' },
        ]),
        200,
      );
      await json(await patchValues(w.c, b.id, [{ field_id: other.id, value: 'b' }]), 200);
      const res = await clearValue(w.c, a.id, city.id);
      expect(res.headers.get('cache-control')).toBe('no-store');
      expect(await json<SchemaContactCustomFields>(res, 200)).toEqual({
        contact_id: a.id,
        custom_fields: [
          { field_id: alpha.id, name: 'alpha', type: 'text', value: 'a' },
          { field_id: zeta.id, name: 'zeta', type: 'number', value: 2 },
        ],
      });
    });

    it('answers 404 not_found for an unknown field, another account’s field and an unknown contact', async () => {
      const w = await world();
      const other = await world();
      const contact = await waContact(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const theirs = await makeField(other.c, 'Cidade', 'text');
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      for (const fieldId of [randomUUID(), theirs.id])
        await expectError(await clearValue(w.c, contact.id, fieldId), 404, notFound);
      await expectError(await clearValue(w.c, randomUUID(), city.id), 404, notFound);
      expect((await getContact(w.c, contact.id)).custom_fields).toHaveLength(1);
    });

    it("does not move the updated_at of the person's contacts", async () => {
      const w = await world();
      const [a, b] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      for (const id of [a.id, b.id])
        await json(await patchValues(w.c, id, [{ field_id: city.id, value: 'Recife' }]), 200);
      t.clock.advance(60_000);
      await json(await clearValue(w.c, a.id, city.id), 200);
      expect((await getContact(w.c, a.id)).updated_at).toBe(a.updated_at);
      expect((await getContact(w.c, b.id)).updated_at).toBe(b.updated_at);
    });
  });

  // ------------------------------------------------------------------- deleting and renaming tags and fields

  describe('deleting and renaming tags and custom fields', () => {
    it('a tag delete (204) takes the tag off every holder', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const c = await waContact(w, 'Carla');
      const tag = await makeTag(w.c, 'VIP');
      const kept = await makeTag(w.c, 'Kept');
      t.clock.advance(1000);
      for (const id of [a.id, b.id, c.id]) await json(await putTag(w.c, id, tag.id), 200);
      t.clock.advance(1000);
      await json(await putTag(w.c, a.id, kept.id), 200);
      const res = await w.c.call('DELETE', `/v1/tags/${tag.id}`);
      expect(res.status).toBe(204);
      expect((await getContact(w.c, a.id)).tags).toEqual([kept]);
      expect((await getContact(w.c, b.id)).tags).toEqual([]);
      expect((await getContact(w.c, c.id)).tags).toEqual([]);
      const rows = await t.database.db
        .selectFrom('contact_tags')
        .select('contact_id')
        .where('tag_id', '=', tag.id)
        .execute();
      expect(rows).toEqual([]);
    });

    it('a tag delete writes no contact event and no history entry', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      for (const id of [a.id, b.id]) await json(await putTag(w.c, id, tag.id), 200);
      const historyBefore = await history(w.c.accountId);
      const written = await eventsOf(w.c.accountId, async () => {
        expect((await w.c.call('DELETE', `/v1/tags/${tag.id}`)).status).toBe(204);
      });
      expect(written).toEqual([]);
      expect(await history(w.c.accountId)).toEqual(historyBefore);
    });

    it('a tag created later with the same name is not on the former holders', async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      await json(await putTag(w.c, contact.id, tag.id), 200);
      expect((await w.c.call('DELETE', `/v1/tags/${tag.id}`)).status).toBe(204);
      const reborn = await makeTag(w.c, 'VIP');
      expect(reborn.id).not.toBe(tag.id);
      expect((await getContact(w.c, contact.id)).tags).toEqual([]);
      expect(await holders(w.c, reborn.id)).toEqual({ data: [], next_cursor: null });
      await expectError(await w.c.call('GET', `/v1/tags/${tag.id}/contacts`), 404, notFound);
    });

    it('a tag rename keeps the holders, shows the new name on them, emits nothing and moves no updated_at', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      t.clock.advance(1000);
      for (const id of [a.id, b.id]) await json(await putTag(w.c, id, tag.id), 200);
      const listed = await holders(w.c, tag.id);
      const historyBefore = await history(w.c.accountId);
      t.clock.advance(60_000);
      const written = await eventsOf(w.c.accountId, async () => {
        await json(await w.c.call('PATCH', `/v1/tags/${tag.id}`, { body: { name: 'Clientes VIP' } }), 200);
      });
      expect(written).toEqual([]);
      expect(await history(w.c.accountId)).toEqual(historyBefore);
      const renamed = { id: tag.id, name: 'Clientes VIP' };
      for (const contact of [a, b]) {
        const after = await getContact(w.c, contact.id);
        expect(after.tags).toEqual([renamed]);
        expect(after.updated_at).toBe(contact.updated_at);
      }
      const relisted = await holders(w.c, tag.id);
      expect(relisted.data.map((h) => [h.contact.id, h.tagged_at])).toEqual(
        listed.data.map((h) => [h.contact.id, h.tagged_at]),
      );
      expect(relisted.data.map((h) => h.contact.tags)).toEqual([[renamed], [renamed]]);
    });

    it('a console deletion of a custom field removes its values from contacts, without events', async () => {
      const w = await world();
      const [a, b] = await person(w);
      const city = await makeField(w.c, 'Cidade', 'text');
      const points = await makeField(w.c, 'Pontos', 'number');
      await json(
        await patchValues(w.c, a.id, [
          { field_id: city.id, value: 'Recife' },
          { field_id: points.id, value: 3 },
        ]),
        200,
      );
      await json(await patchValues(w.c, b.id, [{ field_id: city.id, value: 'Olinda' }]), 200);
      const written = await eventsOf(w.c.accountId, () => removeCustomField(t.database.db, t.clock, city.id));
      expect(written).toEqual([]);
      expect((await getContact(w.c, a.id)).custom_fields).toEqual([
        { field_id: points.id, name: 'pontos', type: 'number', value: 3 },
      ]);
      expect((await getContact(w.c, b.id)).custom_fields).toEqual([]);
      // The field is gone for the API too.
      await expectError(await clearValue(w.c, a.id, city.id), 404, notFound);
    });
  });

  // --------------------------------------------------------------------------------- GET tag holders

  describe('GET /v1/tags/{tagId}/contacts', () => {
    /** Three contacts tagged at t0, t0+1s, t0+1s (the last two in contact id order). */
    async function tagged(w: World) {
      const contacts = [await waContact(w, 'Um'), await waContact(w, 'Dois'), await waContact(w, 'Tres')];
      const tag = await makeTag(w.c, 'VIP');
      const [first, ...rest] = contacts;
      const sameMoment = rest.sort((x, y) => (x.id < y.id ? 1 : -1)); // put on in descending id order
      t.clock.advance(1000);
      const t0 = micro(t.clock.now());
      await json(await putTag(w.c, first!.id, tag.id), 200);
      t.clock.advance(1000);
      const t1 = micro(t.clock.now());
      for (const c of sameMoment) await json(await putTag(w.c, c.id, tag.id), 200);
      const order = [first!.id, ...[...sameMoment].map((c) => c.id).sort()];
      return { tag, contacts, order, t0, t1 };
    }

    it('lists {tagged_at, contact} in tagged_at then contact id order', async () => {
      const w = await world();
      const { tag, order, t0, t1 } = await tagged(w);
      const page = await holders(w.c, tag.id);
      expect(page.next_cursor).toBeNull();
      expect(page.data.map((h) => [h.contact.id, h.tagged_at])).toEqual([
        [order[0], t0],
        [order[1], t1],
        [order[2], t1],
      ]);
      for (const h of page.data) {
        expect(Object.keys(h).sort()).toEqual(['contact', 'tagged_at']);
        expect(h.contact).toEqual(await getContact(w.c, h.contact.id));
      }
    });

    it('moves a contact that loses and regains the tag to the end, with a new tagged_at', async () => {
      const w = await world();
      const { tag, order } = await tagged(w);
      t.clock.advance(1000);
      await json(await deleteTag(w.c, order[0]!, tag.id), 200);
      t.clock.advance(1000);
      await json(await putTag(w.c, order[0]!, tag.id), 200);
      const page = await holders(w.c, tag.id);
      expect(page.data.map((h) => h.contact.id)).toEqual([order[1], order[2], order[0]]);
      expect(page.data[2]!.tagged_at).toBe(micro(t.clock.now()));
    });

    it('keeps with tagged_since only those tagged at or after it (equal included)', async () => {
      const w = await world();
      const { tag, order, t0, t1 } = await tagged(w);
      const since = (at: string) => `?tagged_since=${encodeURIComponent(at)}`;
      expect((await holders(w.c, tag.id, since(t1))).data.map((h) => h.contact.id)).toEqual(order.slice(1));
      expect((await holders(w.c, tag.id, since(t0))).data.map((h) => h.contact.id)).toEqual(order);
      const justAfter = new Date(Date.parse(t1) + 1).toISOString();
      expect(await holders(w.c, tag.id, since(justAfter))).toEqual({ data: [], next_cursor: null });
    });

    it('pages with limit and cursor', async () => {
      const w = await world();
      const { tag, order } = await tagged(w);
      const first = await holders(w.c, tag.id, '?limit=2');
      expect(first.data.map((h) => h.contact.id)).toEqual(order.slice(0, 2));
      expect(first.next_cursor).toEqual(expect.any(String));
      const second = await holders(w.c, tag.id, `?limit=2&cursor=${encodeURIComponent(first.next_cursor!)}`);
      expect(second.data.map((h) => h.contact.id)).toEqual(order.slice(2));
      expect(second.next_cursor).toBeNull();
    });

    it('pages within tagged_since when the cursor comes with the same tagged_since', async () => {
      const w = await world();
      const { tag, order, t1 } = await tagged(w);
      const since = `tagged_since=${encodeURIComponent(t1)}`;
      const first = await holders(w.c, tag.id, `?limit=1&${since}`);
      expect(first.data.map((h) => h.contact.id)).toEqual([order[1]]);
      const second = await holders(w.c, tag.id, `?limit=1&${since}&cursor=${encodeURIComponent(first.next_cursor!)}`);
      expect(second.data.map((h) => h.contact.id)).toEqual([order[2]]);
      expect(second.next_cursor).toBeNull();
    });

    it('answers 400 invalid_cursor for a cursor of another tag', async () => {
      const w = await world();
      const { tag, contacts } = await tagged(w);
      const other = await makeTag(w.c, 'Other');
      for (const c of contacts) await json(await putTag(w.c, c.id, other.id), 200);
      const page = await holders(w.c, tag.id, '?limit=1');
      await expectError(
        await w.c.call('GET', `/v1/tags/${other.id}/contacts?limit=1&cursor=${encodeURIComponent(page.next_cursor!)}`),
        400,
        { code: 'invalid_cursor' },
      );
    });

    it('answers 400 invalid_cursor for a cursor issued with another tagged_since', async () => {
      const w = await world();
      const { tag, t0, t1 } = await tagged(w);
      const page = await holders(w.c, tag.id, `?limit=1&tagged_since=${encodeURIComponent(t0)}`);
      const cursor = encodeURIComponent(page.next_cursor!);
      for (const query of [
        `?limit=1&tagged_since=${encodeURIComponent(t1)}&cursor=${cursor}`,
        `?limit=1&cursor=${cursor}`,
      ])
        await expectError(await w.c.call('GET', `/v1/tags/${tag.id}/contacts${query}`), 400, {
          code: 'invalid_cursor',
        });
    });

    it('answers 404 not_found for an unknown, deleted or another account’s tag', async () => {
      const w = await world();
      const other = await world();
      const gone = await makeTag(w.c, 'Gone');
      expect((await w.c.call('DELETE', `/v1/tags/${gone.id}`)).status).toBe(204);
      const foreign = await makeTag(other.c, 'Foreign');
      for (const id of [randomUUID(), gone.id, foreign.id])
        await expectError(await w.c.call('GET', `/v1/tags/${id}/contacts`), 404, notFound);
    });

    it('does not list deleted contacts', async () => {
      const w = await world();
      const { tag, order } = await tagged(w);
      await deleteContactInConsole(t.database.db, t.clock, w.c.accountId, order[1]!);
      expect((await holders(w.c, tag.id)).data.map((h) => h.contact.id)).toEqual([order[0], order[2]]);
    });
  });

  // ----------------------------------------------------------------- scopes, isolation, idempotency, rate

  describe('scopes, accounts, idempotency and rate kind', () => {
    it('answers 403 insufficient_scope (contacts:write) to a read-only key on the four changes, changing nothing', async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      const held = await makeTag(w.c, 'Held');
      const city = await makeField(w.c, 'Cidade', 'text');
      await json(await putTag(w.c, contact.id, held.id), 200);
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]), 200);
      const before = await getContact(w.c, contact.id);
      const { secret } = await createApiKey(t.database.db, t.clock, {
        accountId: w.c.accountId,
        name: 'read only',
        scopes: ['contacts:read'],
        validityDays: 90,
      });
      const reader = (method: string, path: string, body?: unknown) =>
        call(t.baseUrl, secret, method, path, body === undefined ? {} : { body });
      const scope = { code: 'insufficient_scope', required_scope: 'contacts:write' };
      await expectError(await reader('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`), 403, scope);
      await expectError(await reader('DELETE', `/v1/contacts/${contact.id}/tags/${held.id}`), 403, scope);
      await expectError(
        await reader('PATCH', `/v1/contacts/${contact.id}/custom-fields`, {
          custom_fields: [{ field_id: city.id, value: 'Olinda' }],
        }),
        403,
        scope,
      );
      await expectError(await reader('DELETE', `/v1/contacts/${contact.id}/custom-fields/${city.id}`), 403, scope);
      expect(await getContact(w.c, contact.id)).toEqual(before);
      // The reader still reads.
      expect((await reader('GET', `/v1/tags/${held.id}/contacts`)).status).toBe(200);
    });

    it("answers 404 not_found on the four changes for another account's contact, changing nothing", async () => {
      const owner = await world();
      const stranger = await world();
      const contact = await waContact(owner);
      const ownerTag = await makeTag(owner.c, 'VIP');
      const ownerField = await makeField(owner.c, 'Cidade', 'text');
      await json(await putTag(owner.c, contact.id, ownerTag.id), 200);
      await json(await patchValues(owner.c, contact.id, [{ field_id: ownerField.id, value: 'Recife' }]), 200);
      const before = await getContact(owner.c, contact.id);
      const tag = await makeTag(stranger.c, 'VIP');
      const field = await makeField(stranger.c, 'Cidade', 'text');
      const written = await eventsOf(owner.c.accountId, async () => {
        for (const tagId of [tag.id, ownerTag.id]) {
          await expectError(await putTag(stranger.c, contact.id, tagId), 404, notFound);
          await expectError(await deleteTag(stranger.c, contact.id, tagId), 404, notFound);
        }
        await expectError(
          await patchValues(stranger.c, contact.id, [{ field_id: field.id, value: 'x' }]),
          404,
          notFound,
        );
        for (const fieldId of [field.id, ownerField.id])
          await expectError(await clearValue(stranger.c, contact.id, fieldId), 404, notFound);
      });
      expect(written).toEqual([]);
      expect(await getContact(owner.c, contact.id)).toEqual(before);
      expect(await events(stranger.c.accountId)).toEqual([]);
    });

    it('replays the first answer of a PUT for the same Idempotency-Key', async () => {
      const w = await world();
      const contact = await waContact(w);
      const a = await makeTag(w.c, 'A');
      const b = await makeTag(w.c, 'B');
      const key = { 'Idempotency-Key': `put-${randomUUID()}` };
      t.clock.advance(1000);
      const first = await json<SchemaContactTags>(await putTag(w.c, contact.id, a.id, key), 200);
      expect(first).toEqual({ contact_id: contact.id, tags: [a] });
      t.clock.advance(1000);
      await json(await putTag(w.c, contact.id, b.id), 200);
      const written = await eventsOf(w.c.accountId, async () => {
        expect(await json<SchemaContactTags>(await putTag(w.c, contact.id, a.id, key), 200)).toEqual(first);
      });
      expect(written).toEqual([]);
    });

    it('answers 422 idempotency_key_reused for the same key on another request, running nothing', async () => {
      const w = await world();
      const contact = await waContact(w);
      const a = await makeTag(w.c, 'A');
      const b = await makeTag(w.c, 'B');
      const city = await makeField(w.c, 'Cidade', 'text');
      const key = { 'Idempotency-Key': `put-${randomUUID()}` };
      await json(await putTag(w.c, contact.id, a.id, key), 200);
      const patchKey = { 'Idempotency-Key': `patch-${randomUUID()}` };
      await json(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }], patchKey), 200);
      const written = await eventsOf(w.c.accountId, async () => {
        await expectError(await putTag(w.c, contact.id, b.id, key), 422, { code: 'idempotency_key_reused' });
        await expectError(await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Olinda' }], patchKey), 422, {
          code: 'idempotency_key_reused',
        });
      });
      expect(written).toEqual([]);
      const after = await getContact(w.c, contact.id);
      expect(after.tags).toEqual([a]);
      expect(after.custom_fields.map((v) => v.value)).toEqual(['Recife']);
    });

    it('counts the four changes as write calls (RateLimit-Limit 60)', async () => {
      const w = await world();
      const contact = await waContact(w);
      const tag = await makeTag(w.c, 'VIP');
      const city = await makeField(w.c, 'Cidade', 'text');
      for (const res of [
        await putTag(w.c, contact.id, tag.id),
        await deleteTag(w.c, contact.id, tag.id),
        await patchValues(w.c, contact.id, [{ field_id: city.id, value: 'Recife' }]),
        await clearValue(w.c, contact.id, city.id),
      ]) {
        expect(res.status).toBe(200);
        expect(res.headers.get('ratelimit-limit')).toBe('60');
      }
    });

    it('counts the holder list as a read call (RateLimit-Limit 120)', async () => {
      const w = await world();
      const tag = await makeTag(w.c, 'VIP');
      const res = await w.c.call('GET', `/v1/tags/${tag.id}/contacts`);
      expect(res.status).toBe(200);
      expect(res.headers.get('ratelimit-limit')).toBe('120');
      expect(res.headers.get('cache-control')).toBe('no-store');
    });
  });

  // ------------------------------------------------------------------------------------------ events

  describe('events against the spec', () => {
    /** Every change of the routes under test, with the events each wrote and the contacts read right after. */
    async function scenario() {
      const w = await world();
      const [a, b] = await person(w);
      const tag = await makeTag(w.c, 'VIP');
      const city = await makeField(w.c, 'Cidade', 'text');
      const plan = await makeField(w.c, 'Plano', 'dropdown', [{ value: 'pro', label: 'Plano Pro' }]);
      const steps: { step: string; written: EventRow[]; read: Map<string, SchemaContact> }[] = [];
      const step = async (name: string, action: () => Promise<Response>, read: string[]) => {
        t.clock.advance(1000);
        const written = await eventsOf(w.c.accountId, async () => {
          const res = await action();
          expect(res.status, name).toBe(200);
        });
        const contacts = new Map<string, SchemaContact>();
        for (const id of read) contacts.set(id, await getContact(w.c, id));
        steps.push({ step: name, written, read: contacts });
      };
      await step('PUT tag on a', () => putTag(w.c, a.id, tag.id), [a.id]);
      await step('PUT tag on b', () => putTag(w.c, b.id, tag.id), [b.id]);
      await step(
        'PATCH a',
        () =>
          patchValues(w.c, a.id, [
            { field_id: city.id, value: 'Recife' },
            { field_id: plan.id, value: 'Plano Pro' },
          ]),
        [a.id],
      );
      await step('PATCH b', () => patchValues(w.c, b.id, [{ field_id: city.id, value: 'Olinda' }]), [b.id]);
      await step('DELETE tag on a', () => deleteTag(w.c, a.id, tag.id), [a.id, b.id]);
      await step('DELETE value on b', () => clearValue(w.c, b.id, city.id), [a.id, b.id]);
      await step(
        'POST existing contact',
        async () => {
          const tag2 = await makeTag(w.c, 'Recompra');
          return w.c.call('POST', '/v1/contacts', {
            body: {
              phone: a.whatsapp!.phone,
              name: a.name,
              connection_id: w.whatsapp,
              consent: true,
              tag_ids: [tag2.id],
              custom_fields: [{ field_id: city.id, value: 'Natal' }],
            },
          });
        },
        [a.id],
      );
      return { w, a, b, steps };
    }

    it('writes the expected events for each change', async () => {
      const { a, steps } = await scenario();
      expect(
        steps.map((s) => [s.step, s.written.map((e) => `${e.type} ${e.resource_id === a.id ? 'a' : 'b'}`)]),
      ).toEqual([
        ['PUT tag on a', ['contact.tagged a']],
        ['PUT tag on b', ['contact.tagged b']],
        ['PATCH a', ['contact.custom_fields_updated a']],
        ['PATCH b', ['contact.custom_fields_updated b']],
        ['DELETE tag on a', expect.arrayContaining(['contact.untagged a', 'contact.untagged b'])],
        [
          'DELETE value on b',
          expect.arrayContaining(['contact.custom_fields_updated a', 'contact.custom_fields_updated b']),
        ],
        ['POST existing contact', ['contact.tagged a', 'contact.custom_fields_updated a']],
      ]);
      expect(steps[4]!.written).toHaveLength(2);
      expect(steps[5]!.written).toHaveLength(2);
    });

    it("carries in each event's data the contact as GET /v1/contacts/{id} returned it right after the change", async () => {
      const { steps } = await scenario();
      const mismatches: string[] = [];
      for (const s of steps)
        for (const e of s.written) {
          const read = s.read.get(e.resource_id);
          const carried = (e.data as { contact?: unknown }).contact;
          if (read === undefined || !isDeepStrictEqual(carried, read))
            mismatches.push(`${s.step} ${e.type}: ${JSON.stringify(carried)} ≠ ${JSON.stringify(read)}`);
        }
      expect(mismatches).toEqual([]);
      expect(steps.flatMap((s) => s.written)).toHaveLength(10);
    });

    it('validates every event written in this file against the webhook body schema of its type', async () => {
      await scenario();
      const rows = (await t.database.db
        .selectFrom('events')
        .select(['id', 'sequence', 'type', 'resource_type', 'resource_id', 'data', 'created_at'])
        .orderBy('sequence')
        .execute()) as EventRow[];
      const types = new Set(rows.map((r) => r.type));
      for (const type of ['contact.created', 'contact.tagged', 'contact.untagged', 'contact.custom_fields_updated'])
        expect(types, type).toContain(type);
      const failures: string[] = [];
      for (const row of rows) {
        const validate = eventValidator(row.type);
        if (!validate(envelope(row)))
          failures.push(
            `${row.type} ${row.id}: ${(validate.errors ?? [])
              .slice(0, 5)
              .map((e) => `${e.instancePath || '/'} ${e.message ?? e.keyword}`)
              .join('; ')}`,
          );
      }
      expect(failures).toEqual([]);
    });

    it('refuses, as a check of the check, an event whose data breaks the schema', async () => {
      const { steps } = await scenario();
      const row = steps[0]!.written[0]!;
      const validate = eventValidator(row.type);
      expect(validate(envelope(row))).toBe(true);
      expect(validate(envelope({ ...row, data: { ...(row.data as object), tags: [] } }))).toBe(false);
      expect(validate({ ...envelope(row), api_version: 'v2' })).toBe(false);
    });
  });
});
