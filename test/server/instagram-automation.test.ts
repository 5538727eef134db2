// Automations on an attached Instagram account (issue 36 §3), on every engine of the run, against the fake Graph
// API: a comment starts the published automation; its first message goes as the private reply
// (`recipient.comment_id`) in the send's job, then the public reply under the comment in a job of its own
// (`POST /{comment_id}/replies`, engine/public-reply-job.ts), recorded as the run's `public_reply` step when Meta
// answers, with no transaction held while Meta is slow; Meta refusing the public reply fails that step alone; and a
// conversation another app owns (standby) fails the automation's send `conversation_not_owned` without a call.
//
// The comments and messages come from the domain's `recordInbound` on the attached connection (a test setup: the
// webhook side is tested in its own files); its job starts the run when the worker drains.
import { randomInt } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SchemaRepliesList, SchemaWorkflowRun } from '../../generated/api.js';
import { recordInbound, type InboundInput } from '../../server/domain/messaging/inbound.js';
import type { JobWorker } from '../../server/jobs/index.js';
import { findConnection } from '../../server/store/console.js';
import type { FakeMeta } from '../fakes/meta/index.js';
import { engines, type TestApp } from './harness.js';
import { json as ok } from './http-helpers.js';
import { startInstagramApp, type InstagramApp } from './instagram-app.js';

const TOKEN = 'admin-token-for-instagram-automation-0123';
const APP_SECRET = 'meta-app-secret-for-instagram-automation';

type Graph = { nodes: Record<string, { type: string; data: Record<string, unknown> }> };

const greeting: Graph = {
  nodes: {
    root: { type: 'root', data: { next: ['dm'] } },
    dm: { type: 'message', data: { text: 'Oi! Te mandei no direct.', next: [null] } },
  },
};

describe.each(engines)('an automation on an attached instagram account on %s', (engine) => {
  let app: InstagramApp;
  let t: TestApp;
  let meta: FakeMeta;
  let worker: JobWorker;

  beforeAll(async () => {
    app = await startInstagramApp(engine, { adminToken: TOKEN, appSecret: APP_SECRET });
    ({ t, meta, worker } = app);
  });
  afterAll(async () => {
    await t?.close();
    await meta?.close();
  });

  /** Runs every job due, each within the test's timeout. */
  const drain = async () => {
    while ((await worker.runOnce()) > 0);
  };

  /** An attached account with a published automation on `events`, and a contact who writes or comments. */
  async function automation(events: string[], graph: Graph = greeting) {
    const me = await t.account();
    const { connection } = await app.attachInstagram(me);
    const row = await findConnection(t.database.db, me.accountId, connection.id);
    if (!row) throw new Error('the connection was not stored');
    const list = await ok<SchemaRepliesList>(
      await me.call('POST', '/v1/replies-lists', { body: { name: 'Respostas', replies: ['Veja o direct!'] } }),
      201,
    );
    const workflow = await ok<{ id: string }>(
      await me.call('POST', '/v1/workflows', {
        body: {
          title: 'Comentários',
          channel: { type: 'instagram', connection_id: connection.id },
          trigger: { events, match: 'any', ...(events.includes('comment') ? { replies_list_id: list.id } : {}) },
          graph,
        },
      }),
      201,
    );
    await ok(await me.call('POST', `/v1/workflows/${workflow.id}/publish`));
    const igsid = `19${randomInt(1e12, 9e12)}`;
    const username = `ana.${randomInt(1e6, 9e6)}`;
    /** The contact's comment or message, recorded as the webhook side would (a test setup); not drained. */
    const records = (input: Pick<InboundInput, 'type' | 'text' | 'post'>, providerMessageId: string) =>
      recordInbound(
        t.database.db,
        t.clock,
        me.accountId,
        row,
        {
          from: { instagram_id: igsid, username, name: 'Ana' },
          attachments: [],
          reply_to_message_id: null,
          button: null,
          is_unsupported: false,
          provider_message_id: providerMessageId,
          ...input,
        },
        t.baseUrl,
      );
    const comments = (commentId: string) =>
      records({ type: 'comment', text: 'Quero!', post: { id: '1790001', type: 'feed', url: null } }, commentId);
    const run = async () => {
      const { data } = await ok<{ data: SchemaWorkflowRun[] }>(
        await me.call('GET', `/v1/workflows/${workflow.id}/runs`),
      );
      expect(data).toHaveLength(1);
      return ok<SchemaWorkflowRun>(await me.call('GET', `/v1/workflows/${workflow.id}/runs/${data[0]?.id ?? ''}`));
    };
    return { me, igsid, records, comments, run };
  }

  const newCommentId = () => `18${randomInt(1e12, 9e12)}${randomInt(1e3, 9e3)}`;

  it('a comment: the private reply by comment_id, then the public reply in its own job, a public_reply step', async () => {
    const { me, comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    await comments(commentId);
    await drain();

    const privateReplies = meta.instagramSent.filter(
      (m) => 'comment_id' in m.recipient && m.recipient.comment_id === commentId,
    );
    expect(privateReplies.map((m) => m.body.message)).toEqual([{ text: 'Oi! Te mandei no direct.' }]);
    const replies = meta.requestsTo(`/${commentId}/replies`, 'POST');
    expect(replies.map((r) => r.body)).toEqual([{ message: 'Veja o direct!' }]);

    const ended = await run();
    expect(ended.status).toBe('completed');
    expect(ended.steps.map((s) => [s.node_id, s.type, s.status])).toEqual([
      ['root', 'root', 'completed'],
      ['dm', 'message', 'completed'],
      [null, 'public_reply', 'completed'],
    ]);
    const replyStep = ended.steps[2];
    const reply = await ok<{ type: string; text: string; reply_to_message_id: string | null }>(
      await me.call('GET', `/v1/messages/${replyStep?.message_id ?? ''}`),
    );
    expect(reply).toMatchObject({ type: 'comment_reply', text: 'Veja o direct!' });
    const stored = await t.database.db
      .selectFrom('messages')
      .select('provider_message_id')
      .where('id', '=', replyStep?.message_id ?? '')
      .executeTakeFirstOrThrow();
    expect(stored.provider_message_id).toMatch(/^\d+$/);
  });

  it('holds no transaction while Meta is slow to take the public reply', { timeout: 30_000 }, async () => {
    const { me, comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    meta.scriptPath(`${commentId}/replies`, { kind: 'delay', ms: 2_500 });
    await comments(commentId);
    const draining = drain();
    const asked = Date.now();
    while (meta.requestsTo(`/${commentId}/replies`, 'POST').length === 0) {
      if (Date.now() - asked > 10_000) throw new Error('the public reply never reached the fake');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    // Meta is answering: the database serves others at once (PGlite: one session, which a transaction waiting on
    // Meta would hold); the run already shows its private reply, and the public reply's step is not there yet.
    const began = Date.now();
    await ok(await me.call('GET', '/v1/me'));
    expect(Date.now() - began).toBeLessThan(1_500);
    expect((await run()).steps.map((s) => s.type)).toEqual(['root', 'message']);
    await draining;
    expect((await run()).steps.map((s) => [s.type, s.status])).toEqual([
      ['root', 'completed'],
      ['message', 'completed'],
      ['public_reply', 'completed'],
    ]);
  });

  it('the public reply claimed again after a crash never calls Meta twice: its step fails outcome_unknown', async () => {
    const { comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    await comments(commentId);
    // Up to the public reply's job, then as if a claim of it had ended in a crash (its next claim is its second).
    const replyJob = () =>
      t.database.db.selectFrom('jobs').select('id').where('kind', '=', 'workflow.public_reply').executeTakeFirst();
    for (let i = 0; i < 50 && !(await replyJob()); i += 1) await worker.runOnce(1);
    const job = await replyJob();
    if (!job) throw new Error('no public reply job');
    await t.database.db.updateTable('jobs').set({ attempts: 1 }).where('id', '=', job.id).execute();
    await drain();
    expect(meta.requestsTo(`/${commentId}/replies`, 'POST')).toHaveLength(0);
    const ended = await run();
    expect(ended.steps.map((s) => [s.type, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['message', 'completed', null],
      ['public_reply', 'failed', 'outcome_unknown'],
    ]);
  });

  it("Meta refusing the public reply fails that step alone; the run's message went out", async () => {
    const { comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    meta.scriptPath(`${commentId}/replies`, {
      kind: 'error',
      code: 100,
      message: '(#100) Comments are turned off on this post',
    });
    await comments(commentId);
    await drain();
    const ended = await run();
    expect(ended.status).toBe('completed');
    expect(ended.steps.map((s) => [s.type, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['message', 'completed', null],
      ['public_reply', 'failed', 'provider_rejected'],
    ]);
  });

  it('Meta refusing the private reply (10900: already replied) blocks the run, and no public reply goes', async () => {
    const { comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    meta.scriptInstagram(commentId, { kind: 'error', code: 10900 });
    await comments(commentId);
    await drain();
    const ended = await run();
    expect(ended.status).toBe('blocked');
    expect(ended.steps.map((s) => [s.type, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['message', 'failed', 'private_reply_refused'],
    ]);
    expect(meta.requestsTo(`/${commentId}/replies`)).toEqual([]);
  });

  it("a private reply past its window on Meta's clock (10/2534022): the step fails messaging_window_closed, no public reply", async () => {
    const { comments, run } = await automation(['comment']);
    const commentId = newCommentId();
    meta.scriptInstagram(commentId, { kind: 'error', code: 10, subcode: 2534022 });
    await comments(commentId);
    await drain();
    const ended = await run();
    expect(ended.steps.map((s) => [s.type, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['message', 'failed', 'messaging_window_closed'],
    ]);
    expect(meta.requestsTo(`/${commentId}/replies`)).toEqual([]);
  });

  it('a conversation another app owns (standby): the automation send fails conversation_not_owned, Meta not called', async () => {
    const { igsid, records, run } = await automation(['message']);
    const inbound = await records({ type: 'message', text: 'Oi', post: null }, `aWdfZAG1f${randomInt(1e9, 9e9)}`);
    await t.database.db
      .updateTable('conversations')
      .set({ owned_elsewhere_since: t.clock.now().toISOString() })
      .where('id', '=', inbound.conversation.id)
      .execute();
    const requests = meta.requests.length;
    await drain();
    const ended = await run();
    expect(ended.steps.map((s) => [s.type, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['message', 'failed', 'conversation_not_owned'],
    ]);
    expect(meta.requests.length).toBe(requests);
    expect(meta.instagramSent.filter((m) => m.recipientId === igsid)).toEqual([]);
  });
});
