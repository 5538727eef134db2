// Comment-started runs and the 24-hour window around waits (Part B), on every engine of the run: a sandbox
// instagram contact comments on a post or a live, the sandbox channel answers as arranged, the clock moves.
import { describe, expect, it } from 'vitest';
import { engineHarness, HOUR, MINUTE } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';
import type { SchemaRepliesList, SchemaWorkflowRun } from '../../generated/api.js';

const COMMENT = { events: ['comment', 'live_comment'], match: 'any', replies_list_id: '' };

describe.each(engines)('comment-started runs and the window on %s', (engine) => {
  const { h, admin, drain, setUp, publish, runsOf, runOf, messagesOf } = engineHarness(engine);

  async function instagram() {
    const { me, connection, writes } = await setUp('instagram');
    const list = await json<SchemaRepliesList>(
      await me.call('POST', '/v1/replies-lists', { body: { name: 'Respostas', replies: ['Veja o direct!'] } }),
      201,
    );
    return { me, connection, writes, trigger: { ...COMMENT, replies_list_id: list.id } };
  }
  const sent = async (me: TestCaller) =>
    (await messagesOf(me)).filter((m) => m.sender.type === 'workflow').map((m) => [m.type, m.text]);
  const onlyRun = async (me: TestCaller, workflowId: string): Promise<SchemaWorkflowRun> => {
    const runs = await runsOf(me, workflowId);
    expect(runs).toHaveLength(1);
    return runOf(me, workflowId, runs[0]!.id);
  };
  const say = (text: string, next: string | null = null) => ({ type: 'message', data: { text, next: [next] } });

  it('instagram refusing the private reply blocks the run: status blocked, no public reply, workflow_run.ended', async () => {
    const { me, connection, writes, trigger } = await instagram();
    const workflowId = await publish(
      me,
      connection.id,
      { nodes: { root: { type: 'root', data: { next: ['dm'] } }, dm: say('Oi!') } },
      trigger,
      'Bloqueada',
      'instagram',
    );
    await json(
      await admin('POST', `/sandbox/connections/${connection.id}/send-outcomes`, { outcome: 'provider_rejected' }),
      201,
    );
    await writes('Quero', { type: 'comment', post: { id: '1790001', type: 'feed' } });
    const run = await onlyRun(me, workflowId);
    expect(run.status).toBe('blocked');
    expect(run.steps.map((s) => [s.node_id, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['dm', 'failed', 'private_reply_refused'],
    ]);
    expect(await sent(me)).toEqual([]);
    const events = await h.t.database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'workflow_run.ended')
      .where('resource_id', '=', run.id)
      .execute();
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual(['blocked']);
  });

  it('no public reply under a live comment, nor when the run sends nothing', async () => {
    const { me, connection, writes, trigger } = await instagram();
    const quiet = await publish(
      me,
      connection.id,
      {
        nodes: { root: { type: 'root', data: { next: ['note'] } }, note: { type: 'comment', data: { next: [null] } } },
      },
      { ...trigger, events: ['comment'] },
      'Calada',
      'instagram',
    );
    await writes('Oi', { type: 'comment', post: { id: '1790002', type: 'feed' } });
    expect((await onlyRun(me, quiet)).status).toBe('completed');
    expect(await sent(me)).toEqual([]);

    const live = await publish(
      me,
      connection.id,
      { nodes: { root: { type: 'root', data: { next: ['dm'] } }, dm: say('Oi da live!') } },
      { ...trigger, events: ['live_comment'] },
      'Live',
      'instagram',
    );
    await writes('Oi', { type: 'live_comment', post: { id: '1790003', type: 'live' } });
    const run = await onlyRun(me, live);
    expect(run.status).toBe('completed');
    expect(run.steps.map((s) => s.type)).toEqual(['root', 'message']);
    expect(await sent(me)).toEqual([['comment_dm_reply', 'Oi da live!']]);
  });

  it('after a sleep a message goes only while the window is open; a comment-started run’s first message goes anyway', async () => {
    const { me, connection, writes, trigger } = await instagram();
    const napThenSay = (text: string) => ({
      nodes: {
        root: { type: 'root', data: { next: ['nap'] } },
        nap: { type: 'sleep', data: { seconds: 82800, next: ['later'] } },
        later: say(text),
      },
    });
    const byComment = await publish(
      me,
      connection.id,
      napThenSay('Resposta ao comentário'),
      { ...trigger, events: ['comment'] },
      'Comentário',
      'instagram',
    );
    const byMessage = await publish(
      me,
      connection.id,
      napThenSay('Depois da soneca'),
      { events: ['message'], match: 'any' },
      'Direct',
      'instagram',
    );
    await writes('Oi', { type: 'comment', post: { id: '1790004', type: 'feed' } });
    // The direct message opens the window 2 hours later; both sleeps end 23 hours after their start.
    h.t.clock.advance(2 * HOUR);
    await writes('Oi pelo direct');
    h.t.clock.advance(23 * HOUR - 2 * HOUR);
    await drain();
    expect((await onlyRun(me, byComment)).status).toBe('completed');
    expect(await sent(me)).toEqual(
      expect.arrayContaining([
        ['comment_dm_reply', 'Resposta ao comentário'],
        ['comment_reply', 'Veja o direct!'],
      ]),
    );
    // 25 hours after the direct message: the window closed, the message after the sleep is refused.
    h.t.clock.advance(4 * HOUR + MINUTE);
    await drain();
    const late = await onlyRun(me, byMessage);
    expect(late.status).toBe('stopped');
    expect(late.steps.at(-1)).toMatchObject({ node_id: 'later', status: 'failed' });
    expect(late.steps.at(-1)?.error?.code).toBe('messaging_window_closed');
    expect(await sent(me)).toHaveLength(2);
  });

  it('a direct message while a comment run sleeps lets its next message go (the contact answered)', async () => {
    const { me, connection, writes, trigger } = await instagram();
    const workflowId = await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['dm'] } },
          dm: say('Te mandei o link', 'nap'),
          nap: { type: 'sleep', data: { seconds: 600, next: ['again'] } },
          again: say('Gostou?'),
        },
      },
      { ...trigger, events: ['comment'] },
      'Conversa',
      'instagram',
    );
    await writes('Quero', { type: 'comment', post: { id: '1790005', type: 'feed' } });
    await writes('Obrigada!');
    h.t.clock.advance(600_000);
    await drain();
    expect((await onlyRun(me, workflowId)).status).toBe('completed');
    expect(await sent(me)).toEqual(
      expect.arrayContaining([
        ['comment_dm_reply', 'Te mandei o link'],
        ['message', 'Gostou?'],
      ]),
    );
  });

  it('a question sent as the private reply waits on its own step: the public reply recorded after it does not take its place', async () => {
    const { me, connection, writes, trigger } = await instagram();
    const workflowId = await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['ask'] } },
          ask: {
            type: 'question',
            data: { text: 'Qual tamanho?', answer_type: 'any', answer_field: '', next: ['thanks'] },
          },
          thanks: say('Anotado!'),
        },
      },
      { ...trigger, events: ['comment'] },
      'Pergunta',
      'instagram',
    );
    await writes('Quero', { type: 'comment', post: { id: '1790006', type: 'feed' } });
    const waiting = await onlyRun(me, workflowId);
    expect(waiting.status).toBe('waiting');
    expect(waiting.steps.map((s) => [s.node_id, s.type, s.status])).toEqual([
      ['root', 'root', 'completed'],
      ['ask', 'question', 'waiting'],
      [null, 'public_reply', 'completed'],
    ]);
    await writes('M');
    await drain();
    const run = await onlyRun(me, workflowId);
    expect(run.status).toBe('completed');
    expect(run.steps.map((s) => [s.node_id, s.type, s.status, s.output])).toEqual([
      ['root', 'root', 'completed', 0],
      ['ask', 'question', 'completed', 0],
      [null, 'public_reply', 'completed', waiting.steps[2]!.output],
      ['thanks', 'message', 'completed', 0],
    ]);
    expect(await sent(me)).toEqual(
      expect.arrayContaining([
        ['comment_dm_reply', 'Qual tamanho?'],
        ['comment_reply', 'Veja o direct!'],
        ['message', 'Anotado!'],
      ]),
    );
  });

  it('a message after a sleep goes while the window is still open', async () => {
    const { me, connection, writes } = await instagram();
    const workflowId = await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['nap'] } },
          nap: { type: 'sleep', data: { seconds: 3600, next: ['later'] } },
          later: say('Uma hora depois'),
        },
      },
      { events: ['message'], match: 'any' },
      'Soneca',
      'instagram',
    );
    await writes('Oi');
    h.t.clock.advance(HOUR);
    await drain();
    expect((await onlyRun(me, workflowId)).status).toBe('completed');
    expect(await sent(me)).toEqual([['message', 'Uma hora depois']]);
  });
});
