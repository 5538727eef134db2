// Messages are the contacts' activity (Part A, contact list sync rules): a stored message in either direction
// moves the contact's `updated_at` and `last_interaction_at`, so `updated_since` brings the contact back; a read,
// a reaction, an edit or a failure report is no message and moves nothing. A contact created by the API opens
// no window until it writes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createConnection } from '../../server/domain/console/connections.js';
import { call, engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { SchemaContact, SchemaContactList, SchemaMessage } from '../../generated/api.js';
import type { SchemaSandboxInboundResult } from '../../generated/admin-api.js';

const TOKEN = 'messaging-activity-admin-token-0123456789';
const MINUTE = 60_000;

describe.each(engines)('messages as contact activity on %s', (engine) => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown) =>
    call(t.baseUrl, TOKEN, method, `/admin/v1${path}`, body === undefined ? {} : { body });
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
  });
  afterAll(async () => {
    await t?.close();
  });

  /** The contact's activity times in milliseconds (the API writes microseconds). */
  const activity = async (me: TestCaller, id: string) => {
    const contact = (await (await me.call('GET', `/v1/contacts/${id}`)).json()) as SchemaContact;
    return { updated_at: Date.parse(contact.updated_at), last_interaction_at: Date.parse(contact.last_interaction_at) };
  };
  const both = (at: string) => ({ updated_at: Date.parse(at), last_interaction_at: Date.parse(at) });
  const since = async (me: TestCaller, at: string) => {
    const res = await me.call('GET', `/v1/contacts?updated_since=${encodeURIComponent(at)}`);
    expect(res.status).toBe(200);
    return ((await res.json()) as SchemaContactList).data.map((c) => c.id);
  };
  const send = (me: TestCaller, conversationId: string, body: unknown) =>
    me.call('POST', `/v1/conversations/${conversationId}/messages`, {
      body,
      headers: { 'Idempotency-Key': crypto.randomUUID() },
    });

  it('an inbound message and a send move updated_at and last_interaction_at; other changes do not', async () => {
    const me = await t.account();
    const instagram = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'instagram',
      name: 'Loja',
      username: `loja.${engine}`,
    });

    // t0: someone new writes.
    const t0 = t.clock.now().toISOString();
    const wrote = await admin('POST', `/sandbox/connections/${instagram.id}/inbound`, {
      from: { instagram_id: '1784100000001', username: 'bia.lima', name: 'Bia Lima' },
      text: 'Oi!',
    });
    expect(wrote.status).toBe(201);
    const inbound = (await wrote.json()) as SchemaSandboxInboundResult;
    const contactId = inbound.contact.id;
    expect(await activity(me, contactId)).toEqual(both(t0));

    // t1: the API answers: a message, so activity.
    t.clock.advance(10 * MINUTE);
    const t1 = t.clock.now().toISOString();
    const sent = await send(me, inbound.conversation.id, { text: 'Olá, Bia!' });
    expect(sent.status).toBe(201);
    expect(await activity(me, contactId)).toEqual(both(t1));
    expect(await since(me, t1)).toEqual([contactId]);

    // t2: a reaction, an edit, a read and an unread mark are no messages: nothing moves.
    t.clock.advance(10 * MINUTE);
    const t2 = t.clock.now().toISOString();
    expect((await admin('PUT', `/sandbox/messages/${inbound.message.id}/reaction`, { emoji: '❤️' })).status).toBe(200);
    expect((await admin('PATCH', `/sandbox/messages/${inbound.message.id}`, { text: 'Oi!!' })).status).toBe(200);
    expect((await admin('PATCH', `/sandbox/conversations/${inbound.conversation.id}`, { unread: true })).status).toBe(
      200,
    );
    expect(await activity(me, contactId)).toEqual(both(t1));
    expect(await since(me, t2)).toEqual([]);

    // t3: the contact writes again: activity.
    t.clock.advance(10 * MINUTE);
    const t3 = t.clock.now().toISOString();
    expect(
      (
        await admin('POST', `/sandbox/connections/${instagram.id}/inbound`, {
          from: { instagram_id: '1784100000001', username: 'bia.lima', name: 'Bia Lima' },
          text: 'Obrigada',
        })
      ).status,
    ).toBe(201);
    expect(await activity(me, contactId)).toEqual(both(t3));
  });

  it('a whatsapp failure report moves nothing; a contact created by the API has no window until it writes', async () => {
    const me = await t.account();
    const whatsapp = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930009999',
    });
    const created = await me.call('POST', '/v1/contacts', {
      body: { phone: '+5511987650000', name: 'Caio', connection_id: whatsapp.id, consent: true },
    });
    expect(created.status).toBe(201);
    const contact = (await created.json()) as SchemaContact;

    // The contact writes (found by its phone, not created again): the window opens.
    t.clock.advance(MINUTE);
    const wrote = await admin('POST', `/sandbox/connections/${whatsapp.id}/inbound`, {
      from: { phone: '+5511987650000', name: 'Caio' },
      text: 'Oi',
    });
    expect(wrote.status).toBe(201);
    const inbound = (await wrote.json()) as SchemaSandboxInboundResult;
    expect(inbound.contact_created).toBe(false);
    expect(inbound.contact.id).toBe(contact.id);
    expect(inbound.conversation.reply_window.state).toBe('open');

    t.clock.advance(MINUTE);
    const sent = await send(me, inbound.conversation.id, { text: 'Oi, Caio' });
    expect(sent.status).toBe(201);
    const message = (await sent.json()) as SchemaMessage;
    const afterSend = await activity(me, contact.id);

    t.clock.advance(MINUTE);
    expect((await admin('POST', `/sandbox/messages/${message.id}/failure`, {})).status).toBe(200);
    expect(await activity(me, contact.id)).toEqual(afterSend);
  });
});
