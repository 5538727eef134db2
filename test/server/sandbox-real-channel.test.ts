// The sandbox does not play the contact or the channel of a connection a real channel serves (issue 35 §5), on
// every engine of the run: with a WhatsApp Cloud number attached (the fake Graph API on loopback, test/fakes/meta),
// every sandbox action that pretends to be the contact or the channel — writing, tapping, reacting, editing,
// unsending, a later failure, the native app's message, the arranged send outcomes — answers
// `422 invalid_sandbox_action` with `reason` `not_sandbox` and changes nothing; detached, the sandbox acts again.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaConnection, SchemaMessage } from '../../generated/api.js';
import type { JobWorker } from '../../server/jobs/index.js';
import { webhooks, type FakeMeta, type FakeNumber } from '../fakes/meta/index.js';
import { startFakeMetaApp, type FakeMetaApp } from './fake-meta-app.js';
import { engines, type TestApp } from './harness.js';
import { expectError, json as ok } from './http-helpers.js';

const TOKEN = 'admin-token-for-sandbox-real-channel-0123456789';
const APP_SECRET = 'meta-app-secret-for-sandbox-real-channel';

/** A number of the fake, `+55 11 9xxxx-xxxx` as Meta displays it, and its E.164 form for the connection. */
function fakeNumber(): { number: FakeNumber; phone: string } {
  const local = `9${randomInt(1000_0000, 9999_9999)}`;
  return {
    phone: `+5511${local}`,
    number: {
      phoneNumberId: `10${randomInt(1e12, 9e12)}`,
      wabaId: `10${randomInt(1e12, 9e12)}`,
      accessToken: `EAAG${randomInt(1e9, 9e9)}sandboxrefusal${randomInt(1e9, 9e9)}`,
      displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
      verifiedName: 'Loja Aurora',
      templates: [],
    },
  };
}

describe.each(engines)('the sandbox on a WhatsApp Cloud connection on %s', (engine) => {
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;
  let admin: FakeMetaApp['admin'];

  beforeAll(async () => {
    ({ t, meta, worker, admin } = await startFakeMetaApp(engine, { adminToken: TOKEN, appSecret: APP_SECRET }));
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /** Everything of the account a sandbox action could change, as stored. */
  const stored = async (accountId: string, connectionId: string) => {
    const db = t.database.db;
    return {
      contacts: await db.selectFrom('contacts').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
      conversations: await db
        .selectFrom('conversations')
        .selectAll()
        .where('account_id', '=', accountId)
        .orderBy('id')
        .execute(),
      messages: await db.selectFrom('messages').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
      events: await db.selectFrom('events').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
      media: await db.selectFrom('media').selectAll().where('account_id', '=', accountId).orderBy('id').execute(),
      arrangements: await db
        .selectFrom('sandbox_arrangements')
        .selectAll()
        .where('connection_id', '=', connectionId)
        .execute(),
    };
  };

  it('refuses every action that plays the contact or the channel (not_sandbox), changing nothing', async () => {
    const me = await t.account();
    const { number, phone } = fakeNumber();
    meta.addNumber(number);
    const connection = await ok<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, { channel: 'whatsapp', name: 'Vendas', phone }),
      201,
    );
    // An answer arranged while the sandbox served the connection stays queued (the refused clear keeps it).
    await ok(
      await admin('POST', `/sandbox/connections/${connection.id}/send-outcomes`, { outcome: 'fails_later' }),
      201,
    );
    await ok(
      await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        access_token: number.accessToken,
      }),
    );

    // The contact writes through Meta's webhook, and the account answers with a reply button through the Graph API.
    const contactPhone = `+55119${randomInt(1000_0000, 9999_9999)}`;
    const webhook = webhooks.text(number, {
      from: contactPhone,
      name: 'Ana Souza',
      text: 'Oi!',
      id: webhooks.newWamid(),
    });
    expect((await meta.sendWebhook(webhook)).status).toBe(200);
    while ((await worker.runOnce()) > 0);
    const conversations = await ok<{ data: { id: string }[] }>(await me.call('GET', '/v1/conversations?limit=1'));
    const conversationId = conversations.data[0]?.id ?? '';
    const inbound = (
      await ok<{ data: SchemaMessage[] }>(await me.call('GET', `/v1/conversations/${conversationId}/messages`))
    ).data[0];
    expect(inbound).toMatchObject({ direction: 'inbound', text: 'Oi!' });
    const inboundId = inbound?.id ?? '';
    const outbound = await ok<SchemaMessage>(
      await me.call('POST', `/v1/conversations/${conversationId}/messages`, {
        body: { text: 'Qual tamanho?', buttons: [{ type: 'reply', id: 'size_38', title: '38' }] },
        headers: { 'Idempotency-Key': `sandbox-real-channel-${randomInt(1e9)}` },
      }),
      201,
    );
    expect(outbound.status).toBe('sent');
    while ((await worker.runOnce()) > 0);

    const before = await stored(me.accountId, connection.id);
    const graphRequests = meta.requests.length;
    expect(before.arrangements).toHaveLength(1);
    const refused: [string, string, unknown?][] = [
      [
        'POST',
        `/sandbox/connections/${connection.id}/inbound`,
        { from: { phone: contactPhone, name: 'Ana Souza' }, text: 'Oi' },
      ],
      ['POST', `/sandbox/messages/${outbound.id}/button-taps`, { button_id: 'size_38' }],
      ['PUT', `/sandbox/messages/${inboundId}/reaction`, { emoji: '❤️' }],
      ['DELETE', `/sandbox/messages/${inboundId}/reaction`],
      ['PATCH', `/sandbox/messages/${inboundId}`, { text: 'Oi, tudo bem?' }],
      ['DELETE', `/sandbox/messages/${inboundId}`],
      ['POST', `/sandbox/messages/${outbound.id}/failure`, { provider_code: '131026' }],
      ['POST', `/sandbox/conversations/${conversationId}/native-messages`, { text: 'Do app' }],
      ['POST', `/sandbox/connections/${connection.id}/send-outcomes`, { outcome: 'provider_rejected' }],
      ['DELETE', `/sandbox/connections/${connection.id}/send-outcomes`],
    ];
    for (const [method, path, body] of refused) {
      const answer = await admin(method, path, body);
      const text = await answer.clone().text();
      expect(`${method} ${path} ${answer.status}`, text).toBe(`${method} ${path} 422`);
      await expectError(answer, 422, { code: 'invalid_sandbox_action', reason: 'not_sandbox' });
    }
    while ((await worker.runOnce()) > 0);
    expect(await stored(me.accountId, connection.id)).toEqual(before);
    // Nothing reached Meta either.
    expect(meta.requests.length).toBe(graphRequests);

    // Detached, the sandbox serves the connection again (disconnected by the user until reconnected) and acts.
    await ok(await admin('DELETE', `/connections/${connection.id}/whatsapp-cloud`));
    await ok(await admin('PATCH', `/connections/${connection.id}`, { status: 'connected' }));
    const tap = await admin('POST', `/sandbox/messages/${outbound.id}/button-taps`, { button_id: 'size_38' });
    expect(tap.status).toBe(201);
    await ok(await admin('DELETE', `/sandbox/connections/${connection.id}/send-outcomes`));
  });
});
