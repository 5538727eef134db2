// The automation engine (Part B, running side) on every engine of the run, driven as a partner would: publish
// through the API, a sandbox contact writes, answers and taps, the clock moves past waits, the job worker runs
// what is due. Runs follow the version they started with; workflow_run.ended is recorded when a run ends.
import { describe, expect, it } from 'vitest';
import { engineHarness } from './engine-harness.js';
import { engines } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type {
  SchemaContact,
  SchemaConversationList,
  SchemaRepliesList,
  SchemaWorkflow,
  SchemaWorkflowRunStarted,
} from '../../generated/api.js';

describe.each(engines)('the automation engine on %s', (engine) => {
  const { h, admin, drain, setUp, publish: publishOn, runsOf, runOf, messagesOf } = engineHarness(engine);
  /** This file's automations are all titled Promo. */
  const publish = (
    me: Parameters<typeof publishOn>[0],
    connectionId: string | null,
    graph: unknown,
    trigger: unknown,
    channel: 'whatsapp' | 'instagram' = 'whatsapp',
  ) => publishOn(me, connectionId, graph, trigger, 'Promo', channel);

  it('a keyword starts a run that sends, asks, saves the answer, tags, branches and completes; workflow_run.ended is recorded', async () => {
    const { me, connection, writes } = await setUp();
    await json(await me.call('POST', '/v1/tags', { body: { name: 'Lead' } }), 201);
    await admin('POST', `/accounts/${me.accountId}/custom-fields`, { label: 'email', type: 'text' });
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['hello'] } },
        hello: {
          type: 'message',
          data: { text: 'Oi {contact.first_name}! Você disse: {message.trigger}', next: ['ask'] },
        },
        ask: {
          type: 'question',
          data: { text: 'Seu e-mail?', answer_type: 'any', answer_field: 'email', next: ['tag'] },
        },
        tag: { type: 'tags', data: { operation: 'add', tags: ['Lead'], next: ['check'] } },
        check: {
          type: 'conditional',
          data: {
            conditions: [{ field_type: 'tag', field_name: 'Lead', operator: 'has_tag' }],
            next: ['thanks', 'never'],
          },
        },
        thanks: { type: 'message', data: { text: 'Obrigado! Anotei {email}.', next: [null] } },
        never: { type: 'message', data: { text: 'não deveria', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, {
      events: ['message'],
      match: 'contains',
      keywords: ['promo'],
    });

    // Another text does not start it; the keyword does (ignoring case, inside the text).
    await writes('oi, tudo bem?');
    expect(await runsOf(me, workflowId)).toEqual([]);
    await writes('Quero a PROMOção');
    const [run] = await runsOf(me, workflowId);
    expect(run).toMatchObject({ status: 'waiting', source: 'trigger' });

    const sent = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow');
    expect(sent.map((m) => m.text).sort()).toEqual(['Oi Ana! Você disse: Quero a PROMOção', 'Seu e-mail?'].sort());
    expect(sent.every((m) => m.sender.workflow_id === workflowId)).toBe(true);

    await writes('ana@example.com');
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.status, s.output])).toEqual([
      ['root', 'completed', 0],
      ['hello', 'completed', 0],
      ['ask', 'completed', 0],
      ['tag', 'completed', 0],
      ['check', 'completed', 0],
      ['thanks', 'completed', 0],
    ]);
    const texts = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
    expect(texts).toContain('Obrigado! Anotei ana@example.com.');
    const contactId = (await writes('tchau')).contact.id;
    const contact = await json<SchemaContact>(await me.call('GET', `/v1/contacts/${contactId}`));
    expect(contact.tags.map((tag) => tag.name)).toEqual(['Lead']);
    expect(contact.custom_fields).toContainEqual(expect.objectContaining({ name: 'email', value: 'ana@example.com' }));
    const events = await h.t.database.db
      .selectFrom('events')
      .select(['type', 'resource_id'])
      .where('account_id', '=', me.accountId)
      .where('type', '=', 'workflow_run.ended')
      .execute();
    expect(events).toEqual([{ type: 'workflow_run.ended', resource_id: run!.id }]);
  });

  it('buttons wait for a tap and follow the tapped output; a sleep ends when the clock moves', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['menu'] } },
        menu: {
          type: 'buttons',
          data: {
            subtitle: 'Escolha',
            buttons: [{ id: 'a', title: 'A' }, { title: 'B' }],
            next: ['chose_a', 'wait', null, null],
          },
        },
        chose_a: { type: 'message', data: { text: 'A!', next: [null] } },
        wait: { type: 'sleep', data: { seconds: 60, next: ['later'] } },
        later: { type: 'message', data: { text: 'Um minuto depois', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, { events: ['message'], match: 'any' });
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run?.status).toBe('waiting');
    const menu = (await messagesOf(me)).find((m) => m.sender.type === 'workflow')!;
    // A tap on the second button (sent as button_1): output 1, the sleep.
    await json(await admin('POST', `/sandbox/messages/${menu.id}/button-taps`, { button_id: 'button_1' }), 201);
    await drain();
    expect((await runOf(me, workflowId, run!.id)).status).toBe('running');
    h.t.clock.advance(59_000);
    await drain();
    expect((await runOf(me, workflowId, run!.id)).status).toBe('running');
    h.t.clock.advance(1_000);
    await drain();
    const done = await runOf(me, workflowId, run!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.output])).toEqual([
      ['root', 0],
      ['menu', 1],
      ['wait', 0],
      ['later', 0],
    ]);
  });

  it('the loop guard stops a run on the 7th run of a block', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['again'] } },
        again: { type: 'comment', data: { text: 'volta', next: ['again'] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, { events: ['message'], match: 'any' });
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const stopped = await runOf(me, workflowId, run!.id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.steps.filter((s) => s.node_id === 'again')).toHaveLength(7);
    expect(stopped.steps.at(-1)).toMatchObject({ status: 'failed', error: { code: 'loop_limit' } });
  });

  /** A question, then a message of `text`: a run waits on the question while the automation changes. */
  const graphWith = (text: string) => ({
    nodes: {
      root: { type: 'root', data: { next: ['ask'] } },
      ask: { type: 'question', data: { text: 'Pergunta?', answer_type: 'any', answer_field: '', next: ['end'] } },
      end: { type: 'message', data: { text, next: [null] } },
    },
  });

  it('a run follows the version it started with, through a new publish', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, graphWith('versão 1'), {
      events: ['message'],
      match: 'equals',
      keywords: ['começar'],
    });
    await writes('começar');
    await json(
      await me.call('PATCH', `/v1/workflows/${workflowId}`, {
        body: { graph: graphWith('versão 2') },
        headers: { 'If-Match': '"0"' },
      }),
    );
    await json(await me.call('POST', `/v1/workflows/${workflowId}/publish`));
    await writes('minha resposta');
    const texts = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
    expect(texts).toContain('versão 1');
    expect(texts).not.toContain('versão 2');
  });

  it('a run follows its version through an unpublish and a later edit of the draft', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, graphWith('publicada'), {
      events: ['message'],
      match: 'equals',
      keywords: ['começar'],
    });
    await writes('começar');
    await json(await me.call('POST', `/v1/workflows/${workflowId}/unpublish`));
    await json(
      await me.call('PATCH', `/v1/workflows/${workflowId}`, {
        body: { graph: graphWith('rascunho') },
        headers: { 'If-Match': '"0"' },
      }),
    );
    await writes('minha resposta');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
    const texts = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
    expect(texts).toEqual(expect.arrayContaining(['Pergunta?', 'publicada']));
    expect(texts).not.toContain('rascunho');
  });

  it('a comment starts a run: the first message is a private reply, a public reply from the list goes under the comment, a second message before the contact answers is refused', async () => {
    const { me, writes } = await setUp('instagram');
    const list = await json<SchemaRepliesList>(
      await me.call('POST', '/v1/replies-lists', {
        body: { name: 'Respostas', replies: ['Te chamei no direct, {contact.first_name}!'] },
      }),
      201,
    );
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['dm'] } },
        dm: { type: 'message', data: { text: 'Oi! Aqui está o link.', next: ['again'] } },
        again: { type: 'message', data: { text: 'Mais uma', next: [null] } },
      },
    };
    const workflowId = await publish(
      me,
      null,
      graph,
      { events: ['comment'], match: 'contains', keywords: ['preço'], replies_list_id: list.id },
      'instagram',
    );
    const comment = await writes('Qual o preço?', { type: 'comment', post: { id: '1790001', type: 'feed' } });
    const [run] = await runsOf(me, workflowId);
    const stopped = await runOf(me, workflowId, run!.id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.steps.map((step) => [step.node_id, step.type, step.status])).toEqual([
      ['root', 'root', 'completed'],
      ['dm', 'message', 'completed'],
      [null, 'public_reply', 'completed'],
      ['again', 'message', 'failed'],
    ]);
    expect(stopped.steps.at(-1)?.error?.code).toBe('private_reply_limit');
    const sent = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow');
    expect(sent.map((m) => [m.type, m.text])).toEqual(
      expect.arrayContaining([
        ['comment_dm_reply', 'Oi! Aqui está o link.'],
        ['comment_reply', 'Te chamei no direct, Ana!'],
      ]),
    );
    expect(sent).toHaveLength(2);
    expect(comment.message.type).toBe('comment');
  });

  it('deleting an automation stops its runs in progress (stopped, with workflow_run.ended)', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['ask'] } },
        ask: { type: 'question', data: { text: 'Pergunta?', answer_type: 'any', answer_field: '', next: [null] } },
      },
    };
    const workflowId = await publish(me, connection.id, graph, { events: ['message'], match: 'any' });
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    expect(run?.status).toBe('waiting');
    await json(await me.call('DELETE', `/v1/workflows/${workflowId}`));
    await drain();
    const row = await h.t.database.db
      .selectFrom('workflow_runs')
      .select(['status', 'ended_at'])
      .where('id', '=', run!.id)
      .executeTakeFirstOrThrow();
    expect(row.status).toBe('stopped');
    expect(row.ended_at).not.toBeNull();
    const ended = await h.t.database.db
      .selectFrom('events')
      .select('resource_id')
      .where('account_id', '=', me.accountId)
      .where('type', '=', 'workflow_run.ended')
      .execute();
    expect(ended.map((e) => e.resource_id)).toEqual([run!.id]);
    // The answer that comes later resumes nothing.
    await writes('resposta');
    expect(
      (
        await h.t.database.db
          .selectFrom('workflow_runs')
          .select('status')
          .where('id', '=', run!.id)
          .executeTakeFirstOrThrow()
      ).status,
    ).toBe('stopped');
  });

  it('keeps run history 90 days after a run ends: the hourly retention job prunes older runs', async () => {
    const { me, connection, writes } = await setUp();
    const graph = { nodes: { root: { type: 'root', data: { next: [null] } } } };
    const workflowId = await publish(me, connection.id, graph, { events: ['message'], match: 'any' });
    await writes('oi');
    expect(await runsOf(me, workflowId)).toHaveLength(1);
    const { runPruneJob } = await import('../../server/domain/webhooks/delivery.js');
    const prune = () =>
      runPruneJob({
        db: h.t.database.db,
        clock: h.t.clock,
        logger: { info: () => {} } as never,
        complete: async () => {},
        park: async () => {},
      } as never);
    // Read in the database: the test key itself expires after 90 days.
    const kept = () =>
      h.t.database.db.selectFrom('workflow_runs').select('id').where('workflow_id', '=', workflowId).execute();
    h.t.clock.advance(89 * 24 * 3600_000);
    await prune();
    expect(await kept()).toHaveLength(1);
    h.t.clock.advance(2 * 24 * 3600_000);
    await prune();
    expect(await kept()).toHaveLength(0);
  });

  it('message_sent: the account’s own instagram message in the native app starts an automation (interaction dm_sent)', async () => {
    const { me, writes } = await setUp('instagram');
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['follow'] } },
        follow: { type: 'message', data: { text: 'Seu cupom: {message.interaction_type}', next: [null] } },
      },
    };
    const workflowId = await publish(
      me,
      null,
      graph,
      { events: ['message_sent'], match: 'contains', keywords: ['cupom'] },
      'instagram',
    );
    const written = await writes('oi');
    const conversations = await json<SchemaConversationList>(await me.call('GET', '/v1/conversations'));
    await json(
      await admin('POST', `/sandbox/conversations/${conversations.data[0]!.id}/native-messages`, {
        text: 'Vou te mandar um cupom',
      }),
      201,
    );
    await drain();
    const [run] = await runsOf(me, workflowId);
    expect(run).toMatchObject({ status: 'completed', source: 'trigger' });
    const texts = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
    expect(texts).toEqual(['Seu cupom: dm_sent']);
    // The contact’s own message with the keyword is not the account’s: it starts nothing.
    await writes('cupom?');
    expect(await runsOf(me, workflowId)).toHaveLength(1);
    expect(written.message.type).toBe('message');
  });

  it('fills message and conversation variables from the contact’s messages when the graph reads them', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['echo'] } },
        echo: {
          type: 'message',
          data: { text: 'Última: {message.last_contact} | {message.interaction_type}', next: [null] },
        },
      },
    };
    const workflowId = await publish(me, connection.id, graph, { events: ['message'], match: 'any' });
    await writes('Olá, loja');
    expect(await runsOf(me, workflowId)).toHaveLength(1);
    const texts = (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => m.text);
    expect(texts).toEqual(['Última: Olá, loja | dm']);
  });

  it('starts by the API: 202 queued, then the same rules (not published, run in progress, window closed)', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['ask'] } },
        ask: { type: 'question', data: { text: 'Tudo certo?', answer_type: 'any', answer_field: '', next: [null] } },
      },
    };
    const draft = await json<SchemaWorkflow>(
      await me.call('POST', '/v1/workflows', {
        body: {
          title: 'API',
          channel: { type: 'whatsapp', connection_id: connection.id },
          trigger: { events: [], match: 'any' },
          graph,
        },
      }),
      201,
    );
    const contactId = (await writes('oi')).contact.id;
    const start = (key: string) =>
      me.call('POST', `/v1/workflows/${draft.id}/runs`, {
        body: { contact_id: contactId },
        headers: { 'Idempotency-Key': key },
      });
    await expectError(await start('k1'), 409, { code: 'workflow_not_published' });
    await json(await me.call('POST', `/v1/workflows/${draft.id}/publish`));
    const response = await start('k2');
    // Part B: starting a run counts as a send (20 per minute).
    expect(response.headers.get('ratelimit-limit')).toBe('20');
    const started = await json<SchemaWorkflowRunStarted>(response, 202);
    expect(started).toMatchObject({ status: 'queued', workflow_id: draft.id, contact_id: contactId });
    await drain();
    expect((await runOf(me, draft.id, started.id)).status).toBe('waiting');
    await expectError(await start('k3'), 409, { code: 'run_in_progress' });
    // The window closes 24 hours after the contact's last message.
    h.t.clock.advance(25 * 3600_000);
    await drain();
    await expectError(await start('k4'), 422, { code: 'messaging_window_closed', last_inbound_at: expect.any(String) });
  });
});
