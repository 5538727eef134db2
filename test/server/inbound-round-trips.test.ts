// What an inbound message costs the database (issue 37): the round trips (every statement, begin and commit,
// counted at the driver: db_round_trips_total) of `recordInbound` for a contact who wrote before and for someone
// new, with an endpoint subscribed to the message's event, and of the sandbox's inbound request around it.
// The figures are printed for docs/benchmarks.md; the bounds keep them from growing back.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type { SchemaConnection } from '../../generated/api.js';
import { recordInbound, type InboundInput } from '../../server/domain/messaging/inbound.js';
import { serviceRegistry } from '../../server/metrics.js';
import { requestContext } from '../../server/request-context.js';
import { findConnection } from '../../server/store/console.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { json } from './http-helpers.js';
import { insertEndpoint } from './webhook-receiver.js';
import { webhooks, type FakeNumber } from '../fakes/meta/index.js';
import { startFakeMetaApp, type FakeMetaApp } from './fake-meta-app.js';
import type { SchemaAdminWhatsAppCloudNumber } from '../../generated/admin-api.js';

const TOKEN = 'inbound-round-trips-admin-token-0123456789';
const N = 20;

const metric = async (name: string, labels: string) => {
  const text = await serviceRegistry.metrics();
  return Number(new RegExp(`^${name}\\{${labels}\\} (\\d+)$`, 'm').exec(text)?.[1] ?? 0);
};
const requestTrips = () => metric('db_round_trips_total', 'work="request"');

/** The round trips `work` costs, counted as a request's. */
async function tripsOf(work: () => Promise<unknown>): Promise<number> {
  const before = await requestTrips();
  await requestContext.run({ requestId: 'count' }, work);
  return (await requestTrips()) - before;
}

const text = (phone: string, i: number): InboundInput => ({
  from: { phone, name: 'Ana' },
  type: 'message',
  text: `oi ${i}`,
  attachments: [],
  post: null,
  reply_to_message_id: null,
  button: null,
  is_unsupported: false,
});

describe.each(engines)('round trips of an inbound message on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
  });
  afterAll(async () => t?.close());

  it('records a message in a few round trips, for a known contact and for someone new', async () => {
    const me = await t.account();
    const db = t.database.db;
    const created = await json<SchemaConnection>(
      await call(t.baseUrl, TOKEN, 'POST', `${ADMIN_PREFIX}/accounts/${me.accountId}/connections`, {
        body: { channel: 'whatsapp', name: 'Loja', phone: `+55113${randomInt(1_000_000, 9_999_999)}` },
      }),
      201,
    );
    await insertEndpoint(db, {
      accountId: me.accountId,
      url: 'https://example.com/hook',
      types: ['message.received', 'contact.created'],
      now: t.clock.now(),
    });
    const connection = (await findConnection(db, me.accountId, created.id))!;
    const phone = `+55119${randomInt(10_000_000, 99_999_999)}`;
    const record = (from: string, i: number) =>
      recordInbound(db, t.clock, me.accountId, connection, text(from, i), t.baseUrl);

    const newContact = await tripsOf(() => record(phone, 0));
    let known = 0;
    for (let i = 1; i <= N; i += 1) known += await tripsOf(() => record(phone, i));
    const perKnown = known / N;

    // The sandbox's request around it (the connection, the checks, the answer's views).
    const request = (i: number) =>
      call(t.baseUrl, TOKEN, 'POST', `${ADMIN_PREFIX}/sandbox/connections/${connection.id}/inbound`, {
        body: { from: { phone, name: 'Ana' }, text: `req ${i}` },
      });
    const before = await requestTrips();
    for (let i = 0; i < N; i += 1) expect((await request(i)).status).toBe(201);
    const perRequest = ((await requestTrips()) - before) / N;

    console.log(
      `[${engine}] round trips per inbound message: known contact ${perKnown}, new contact ${newContact}, ` +
        `sandbox request ${perRequest}`,
    );
    // begin, the contact, the conversation with the message, the event with its deliveries and the job, commit.
    expect(perKnown).toBe(5);
    // Someone new: the contact inserted with its conversation (one statement each) and contact.created, no tags
    // or values read for a contact made just now.
    expect(newContact).toBeLessThanOrEqual(9);
    // The request around a known contact's message: the connection, the five, and the contact's holdings for
    // the answer (the conversation's view is the one the message left).
    expect(perRequest).toBeLessThanOrEqual(8);
    const rows = await db
      .selectFrom('webhook_deliveries')
      .select('event_type')
      .where('account_id', '=', me.accountId)
      .execute();
    expect(rows.filter((r) => r.event_type === 'message.received')).toHaveLength(2 * N + 1);
    expect(rows.filter((r) => r.event_type === 'contact.created')).toHaveLength(1);
  });
});

describe.each(engines)("round trips of a Meta webhook's inbound message on %s", (engine) => {
  const APP_SECRET = 'meta-app-secret-for-round-trips';
  let fake: FakeMetaApp | undefined;
  afterAll(async () => {
    await fake?.t.close();
    await fake?.meta.close();
  });

  it('applies a text payload of a known contact in a few round trips (job:channels.webhook)', async () => {
    fake = await startFakeMetaApp(engine, { adminToken: TOKEN, appSecret: APP_SECRET });
    const { t, meta, worker, admin } = fake;
    const me = await t.account();
    const local = `9${randomInt(1000_0000, 9999_9999)}`;
    const number: FakeNumber = {
      phoneNumberId: `10${randomInt(1e12, 9e12)}`,
      wabaId: `10${randomInt(1e12, 9e12)}`,
      accessToken: `EAAG${randomInt(1e9, 9e9)}roundtrips${randomInt(1e9, 9e9)}`,
      displayPhoneNumber: `+55 11 ${local.slice(0, 5)}-${local.slice(5)}`,
      verifiedName: 'Loja',
      templates: [],
    };
    meta.addNumber(number);
    const connection = await json<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, {
        channel: 'whatsapp',
        name: 'Vendas',
        phone: `+5511${local}`,
      }),
      201,
    );
    await json<SchemaAdminWhatsAppCloudNumber>(
      await admin('PUT', `/connections/${connection.id}/whatsapp-cloud`, {
        phone_number_id: number.phoneNumberId,
        waba_id: number.wabaId,
        access_token: number.accessToken,
      }),
    );
    await insertEndpoint(t.database.db, {
      accountId: me.accountId,
      url: 'https://example.com/hook',
      types: ['message.received'],
      now: t.clock.now(),
    });
    const from = `55119${randomInt(10_000_000, 99_999_999)}`;
    const write = async (i: number) => {
      const sent = await meta.sendWebhook(
        webhooks.text(number, { from, name: 'Ana', text: `oi ${i}`, id: webhooks.newWamid() }),
      );
      expect(sent.status).toBe(200);
      while ((await worker.runOnce()) > 0);
    };
    await write(0); // someone new
    const trips = () => metric('db_round_trips_total', 'work="job:channels.webhook"');
    const runs = () => metric('jobs_run_total', 'kind="channels.webhook"');
    const [tripsBefore, runsBefore] = [await trips(), await runs()];
    for (let i = 1; i <= N; i += 1) await write(i);
    const perJob = ((await trips()) - tripsBefore) / ((await runs()) - runsBefore);
    console.log(`[${engine}] round trips per channels.webhook job (a known contact's text): ${perJob}`);
    const received = await t.database.db
      .selectFrom('messages')
      .select('id')
      .where('account_id', '=', me.accountId)
      .where('direction', '=', 'inbound')
      .execute();
    expect(received).toHaveLength(N + 1);
  });
});
