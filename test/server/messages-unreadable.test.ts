// A message row whose stored content cannot be read (edited by hand, or written by a bug) on every engine of the
// run: the conversation's message list still answers 200 with every row, that one shown as a message the service
// cannot show (`is_unsupported`, no text or attachments; a stored object or list of the wrong JSON kind empty), so
// one row does not take the whole list (or the console's chat) down. The answers pass the response validator,
// which the test server runs.
import { sql } from 'kysely';
import { beforeAll, describe, expect, it } from 'vitest';
import type { SchemaMessage, SchemaMessageList } from '../../generated/api.js';
import type { SchemaSandboxInboundResult } from '../../generated/admin-api.js';
import { ensureDemoAccount, type Demo } from '../../server/console/demo.js';
import { exampleServer } from './example-server.js';
import { call, engines } from './harness.js';
import { json } from './http-helpers.js';

const ADMIN_TOKEN = 'messages-unreadable-admin-token-0123456789';

describe.each(engines)('a message row whose stored content cannot be read, on %s', (engine) => {
  const server = exampleServer(engine, ADMIN_TOKEN, 'messages-unreadable');
  let demo: Demo;
  beforeAll(async () => {
    demo = await ensureDemoAccount(server.t.database.db, server.t.clock, server.dataDir);
  });

  it('is listed as a message the service cannot show, beside the others as they were', async () => {
    const { db } = server.t.database;
    const connection = await db
      .selectFrom('connections')
      .select('id')
      .where('account_id', '=', demo.accountId)
      .where('channel', '=', 'whatsapp')
      .executeTakeFirstOrThrow();
    const phone = `+55119${String(Math.floor(Math.random() * 1e8)).padStart(8, '0')}`;
    const written: SchemaSandboxInboundResult[] = [];
    for (const text of ['um', 'dois', 'três', 'quatro']) {
      written.push(
        await json<SchemaSandboxInboundResult>(
          await call(server.t.baseUrl, ADMIN_TOKEN, 'POST', `/admin/v1/sandbox/connections/${connection.id}/inbound`, {
            body: { from: { phone, name: 'Linha Estragada' }, text },
          }),
          201,
        ),
      );
      server.t.clock.advance(1000);
    }
    const [one, two, three, four] = written.map((w) => w.message.id);
    // Attachments that are no list, a cards attachment without its cards, and other JSON columns of the wrong kind.
    await sql`update messages set attachments = '{"oops": 1}'::jsonb, reactions = '"x"'::jsonb where id = ${two}`.execute(
      db,
    );
    await sql`update messages set attachments = '[{"type": "cards"}]'::jsonb, template = '[1]'::jsonb,
      button = '"b"'::jsonb, post = '2'::jsonb, failure = 'true'::jsonb where id = ${three}`.execute(db);

    const conversationId = written[0]!.message.conversation_id;
    const page = await json<SchemaMessageList>(
      await call(server.t.baseUrl, demo.apiKey, 'GET', `/v1/conversations/${conversationId}/messages?order=asc`),
    );
    expect(page.data.map((m) => m.id)).toEqual([one, two, three, four]);
    const unreadable = {
      is_unsupported: true,
      text: null,
      attachments: [],
      reactions: [],
      template: null,
      button: null,
      post: null,
      failure: null,
    };
    expect(page.data[1]).toMatchObject(unreadable);
    expect(page.data[2]).toMatchObject(unreadable);
    for (const [i, text] of [
      [0, 'um'],
      [3, 'quatro'],
    ] as const)
      expect(page.data[i]).toMatchObject({ is_unsupported: false, text, attachments: [], reactions: [] });

    // The message read alone: the same view.
    const alone = await json<SchemaMessage>(await call(server.t.baseUrl, demo.apiKey, 'GET', `/v1/messages/${three}`));
    expect(alone).toEqual(page.data[2]);
  });
});
