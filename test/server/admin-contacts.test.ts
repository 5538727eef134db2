// The console's contact routes of the admin API: a console edit is activity (moves updated_at, unlike every
// public change), a deletion hides the contact and keeps its id for its return, and the contact history
// shows what keys changed, named after the key.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '../../server/domain/console/connections.js';
import { createCustomField } from '../../server/domain/console/custom-fields.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { SchemaContact, SchemaContactList, SchemaTag } from '../../generated/api.js';
import type { SchemaAdminContactHistory } from '../../generated/admin-api.js';
import type { ErrorBody } from './http-helpers.js';

const TOKEN = 'admin-token-for-contact-tests-0123456789';

describe.each(engines)('admin contact routes on %s', (engine) => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `/admin/v1${path}`, body === undefined ? {} : { body });

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => t?.close());

  async function world(me: TestCaller) {
    const connection = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    const field = await createCustomField(t.database.db, t.clock, me.accountId, { label: 'Cidade', type: 'text' });
    const tag = (await (await me.call('POST', '/v1/tags', { body: { name: 'VIP' } })).json()) as SchemaTag;
    const created = await me.call('POST', '/v1/contacts', {
      body: { phone: '+5511987654321', name: 'Ana', connection_id: connection.id, consent: true },
    });
    expect(created.status).toBe(201);
    return { connection, field, tag, contact: (await created.json()) as SchemaContact };
  }

  const listIds = async (me: TestCaller) =>
    ((await (await me.call('GET', '/v1/contacts')).json()) as SchemaContactList).data.map((c) => c.id);

  it('a console edit changes the name and moves updated_at, so the contact goes to the end of the sync order', async () => {
    const me = await t.account();
    const { connection, contact } = await world(me);
    t.clock.advance(1000);
    const other = (await (
      await me.call('POST', '/v1/contacts', {
        body: { phone: '+5521998765432', name: 'Bruno', connection_id: connection.id, consent: true },
      })
    ).json()) as SchemaContact;
    expect(await listIds(me)).toEqual([contact.id, other.id]);

    t.clock.advance(60_000);
    const res = await admin('PATCH', `/contacts/${contact.id}`, { name: 'Ana Souza' });
    expect(res.status).toBe(200);
    const edited = (await res.json()) as SchemaContact;
    expect(edited.name).toBe('Ana Souza');
    expect(edited.updated_at > contact.updated_at).toBe(true);
    expect(edited.updated_at).toBe(t.clock.now().toISOString().replace('Z', '000Z'));
    expect(await listIds(me)).toEqual([other.id, contact.id]);
  });

  it('a blank console name is 422 invalid_name; an unknown contact is 404', async () => {
    const me = await t.account();
    const { contact } = await world(me);
    const blank = await admin('PATCH', `/contacts/${contact.id}`, { name: '  ' });
    expect(blank.status).toBe(422);
    expect(((await blank.json()) as ErrorBody).context).toEqual({ code: 'invalid_name' });
    const missing = await admin('PATCH', '/contacts/00000000-0000-4000-8000-000000000000', { name: 'X' });
    expect(missing.status).toBe(404);
    expect((await admin('GET', '/contacts/00000000-0000-4000-8000-000000000000/history')).status).toBe(404);
  });

  it('deleting hides the contact; POST /v1/contacts brings it back with its id, 201 and no contact.created', async () => {
    const me = await t.account();
    const { connection, contact, tag } = await world(me);
    expect((await me.call('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`)).status).toBe(200);

    const res = await admin('DELETE', `/contacts/${contact.id}`);
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({ id: contact.id, deleted: true });
    expect((await me.call('GET', `/v1/contacts/${contact.id}`)).status).toBe(404);
    expect(await listIds(me)).toEqual([]);
    expect((await admin('DELETE', `/contacts/${contact.id}`)).status).toBe(404);

    const before = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('account_id', '=', me.accountId)
      .execute();
    const back = await me.call('POST', '/v1/contacts', {
      body: {
        phone: '+551187654321',
        name: 'Ana de volta',
        connection_id: connection.id,
        consent: true,
        tag_ids: [tag.id],
      },
    });
    expect(back.status).toBe(201);
    const returned = (await back.json()) as SchemaContact;
    expect(returned.id).toBe(contact.id);
    // It lost its tags when deleted: the tag sent is put on again, as a change, not a creation.
    expect(returned.tags).toEqual([{ id: tag.id, name: 'VIP' }]);
    const after = await t.database.db
      .selectFrom('events')
      .select('type')
      .where('account_id', '=', me.accountId)
      .orderBy('sequence')
      .execute();
    expect(after.slice(before.length).map((e) => e.type)).toEqual(['contact.tagged']);
  });

  it('the history names the key for tags and values a key changed, and records the import with consent', async () => {
    const me = await t.account();
    const { connection, contact, tag, field } = await world(me);
    await me.call('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`);
    await me.call('PATCH', `/v1/contacts/${contact.id}/custom-fields`, {
      body: { custom_fields: [{ field_id: field.id, value: 'Campinas' }] },
    });
    await me.call('DELETE', `/v1/contacts/${contact.id}/custom-fields/${field.id}`);
    await me.call('DELETE', `/v1/contacts/${contact.id}/tags/${tag.id}`);
    await admin('PATCH', `/contacts/${contact.id}`, { name: 'Ana S.' });

    const res = await admin('GET', `/contacts/${contact.id}/history`);
    expect(res.status).toBe(200);
    const body = (await res.json()) as SchemaAdminContactHistory;
    expect(body.next_cursor).toBeNull();
    const key = { type: 'api_key', id: me.keyId, name: expect.stringMatching(/^test key/) as unknown };
    expect(body.data.map(({ kind, actor, details }) => ({ kind, actor, details }))).toEqual([
      { kind: 'contact.imported', actor: key, details: { consent: true, connection_id: connection.id } },
      { kind: 'tag.added', actor: key, details: { tag_id: tag.id, tag_name: 'VIP' } },
      { kind: 'custom_field.set', actor: key, details: { field_id: field.id, name: 'cidade', value: 'Campinas' } },
      { kind: 'custom_field.cleared', actor: key, details: { field_id: field.id, name: 'cidade' } },
      { kind: 'tag.removed', actor: key, details: { tag_id: tag.id, tag_name: 'VIP' } },
      { kind: 'contact.edited', actor: { type: 'console', id: null, name: 'Console' }, details: { name: 'Ana S.' } },
    ]);
  });

  it('needs the admin token', async () => {
    const me = await t.account();
    const { contact } = await world(me);
    const res = await call(t.baseUrl, me.apiKey, 'GET', `/admin/v1/contacts/${contact.id}/history`);
    expect(res.status).toBe(401);
  });
});
