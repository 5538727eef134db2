// Lock order on PostgreSQL (PGlite has one session, so nothing waits there): a message the account sends and a
// message the contact sends at the same moment lock the contact's row, then the conversation's. In the other
// order the two transactions deadlock and one of them fails (an automation's send against a contact's tap,
// found by a partner check with two server processes).
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { recordOutbound } from '../../server/domain/messaging/outbound.js';
import { updateContact } from '../../server/store/contacts.js';
import { findConversationOfContact } from '../../server/store/messaging.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { json } from './http-helpers.js';
import type { SchemaConnection } from '../../generated/api.js';
import type { SchemaSandboxInboundResult } from '../../generated/admin-api.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const pause = (ms: number) => new Promise((ok) => setTimeout(ok, ms));

describe.runIf(engines.includes('postgres'))('lock order of sends and inbound messages on PostgreSQL', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp('postgres', { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
  });
  afterAll(async () => t?.close());

  it('a send waits for an inbound message that holds the contact, instead of deadlocking with it', async () => {
    const me = await t.account();
    const admin = (method: string, path: string, body: unknown) =>
      call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, { body });
    const connection = await json<SchemaConnection>(
      await admin('POST', `/accounts/${me.accountId}/connections`, {
        channel: 'whatsapp',
        name: 'Loja',
        phone: `+55113${randomInt(1_000_000, 9_999_999)}`,
      }),
      201,
    );
    const { contact } = await json<SchemaSandboxInboundResult>(
      await admin('POST', `/sandbox/connections/${connection.id}/inbound`, {
        from: { phone: `+55119${randomInt(10_000_000, 99_999_999)}`, name: 'Ana' },
        text: 'Oi',
      }),
      201,
    );
    const db = t.database.db;
    const conversation = (await findConversationOfContact(db, me.accountId, contact.id))!;
    const at = t.clock.now().toISOString();

    // The inbound message's order (recordInbound): the contact, a moment later the conversation.
    const inbound = db.transaction().execute(async (tx) => {
      await updateContact(tx, me.accountId, contact.id, { updated_at: at, last_interaction_at: at });
      await pause(300); // the send below starts meanwhile and takes what it takes first
      await findConversationOfContact(tx, me.accountId, contact.id, { forUpdate: true });
    });
    await pause(50);
    const send = db.transaction().execute((tx) =>
      recordOutbound(
        tx,
        conversation,
        {
          sender: { type: 'api', name: null, api_key_id: me.keyId },
          text: 'Olá',
          attachments: [],
          template: null,
          providerMessageId: 'sandbox-lock-order',
        },
        at,
        t.baseUrl,
      ),
    );
    const [a, b] = await Promise.allSettled([inbound, send]);
    expect(a.status, a.status === 'rejected' ? String(a.reason) : '').toBe('fulfilled');
    expect(b.status, b.status === 'rejected' ? String(b.reason) : '').toBe('fulfilled');
  });
});
