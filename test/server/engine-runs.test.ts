// Reading runs and the rules of what a contact's message does to them (Part B), on every engine of the run:
// the run list's filters and order, a run's most recent steps, answers that are not answers, a message while
// buttons wait, and a run whose contact is gone.
import { describe, expect, it } from 'vitest';
import { ANY, engineHarness, keyword, MINUTE } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { json } from './http-helpers.js';
import type { SchemaWorkflowRunList, SchemaWorkflowRunSummary } from '../../generated/api.js';

describe.each(engines)('runs read back, and messages that do not answer, on %s', (engine) => {
  const { h, admin, drain, connect, contactOn, setUp, publish, runsOf, runOf, sentTexts, chain, say } =
    engineHarness(engine);
  const list = async (me: TestCaller, workflowId: string, query: string) =>
    (await json<SchemaWorkflowRunList>(await me.call('GET', `/v1/workflows/${workflowId}/runs?${query}`))).data;
  const ask = (text: string, answerType = 'any') => ({
    type: 'question',
    data: { text, answer_type: answerType, answer_field: '' },
  });

  it('lists runs newest first, filtered by contact_id and the half-open window started_after ≤ t < started_before', async () => {
    const me = await h.t.account();
    const connection = await connect(me);
    const ana = contactOn(connection.id);
    const bia = contactOn(connection.id);
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), ANY);
    const first = h.t.clock.now().toISOString();
    const { contact } = await ana('um');
    h.t.clock.advance(MINUTE);
    const second = h.t.clock.now().toISOString();
    await bia('dois');
    h.t.clock.advance(MINUTE);
    const third = h.t.clock.now().toISOString();
    await ana('três');

    const at = (runs: SchemaWorkflowRunSummary[]) => runs.map((r) => new Date(r.created_at).toISOString());
    const all = await list(me, workflowId, '');
    expect(at(all)).toEqual([third, second, first]);
    const anas = await list(me, workflowId, `contact_id=${contact.id}`);
    expect(at(anas)).toEqual([third, first]);
    const window = await list(
      me,
      workflowId,
      `started_after=${encodeURIComponent(second)}&started_before=${encodeURIComponent(third)}`,
    );
    expect(at(window)).toEqual([second]);
    expect(
      await list(me, workflowId, `contact_id=${contact.id}&started_after=${encodeURIComponent(second)}`),
    ).toHaveLength(1);
  });

  it('a run of more than 100 steps shows its 100 most recent with steps_truncated, in the read and the event', async () => {
    const { me, connection, writes } = await setUp();
    const blocks = Array.from({ length: 105 }, (_, i): [string, string, Record<string, unknown>] => [
      `nota${i}`,
      'comment',
      { text: `nota ${i}` },
    ]);
    const workflowId = await publish(me, connection.id, chain(blocks), ANY);
    await writes('oi');
    const [run] = await runsOf(me, workflowId);
    const read = await runOf(me, workflowId, run!.id);
    expect(read.status).toBe('completed');
    expect(read.steps_truncated).toBe(true);
    expect(read.steps).toHaveLength(100);
    expect(read.steps[0]!.node_id).toBe('nota5');
    expect(read.steps.at(-1)!.node_id).toBe('nota104');
    const [event] = await h.t.database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'workflow_run.ended')
      .where('resource_id', '=', run!.id)
      .execute();
    expect(event!.data).toMatchObject({ steps_truncated: true, status: 'completed' });
  });

  it('an instagram story reply does not answer a question, which keeps waiting; the next direct message does', async () => {
    const { me, connection, writes } = await setUp('instagram');
    const workflowId = await publish(
      me,
      connection.id,
      chain([['ask', 'question', ask('Qual tamanho?').data], say('ok', 'Anotado: {message.last_contact}')]),
      keyword('equals', 'tamanho'),
      'Tamanho',
      'instagram',
    );
    await writes('tamanho');
    h.t.clock.advance(1000);
    await writes('38 no story', { type: 'story_message', post: { id: '1790009', type: 'story' } });
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('waiting');
    h.t.clock.advance(1000);
    await writes('38');
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
    expect(await sentTexts(me)).toContain('Anotado: 38');
  });

  it('answer_type number runs as any: a text that is no number answers', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(
      me,
      connection.id,
      chain([['ask', 'question', ask('Quantos?', 'number').data], say('ok', 'Recebi {message.last_contact}')]),
      keyword('equals', 'contar'),
    );
    await writes('contar');
    h.t.clock.advance(1000);
    await writes('muitos');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
    expect(await sentTexts(me)).toContain('Recebi muitos');
  });

  it('while buttons wait, a text does not answer them and starts another automation by its keyword', async () => {
    const { me, connection, writes } = await setUp();
    const menu = await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['menu'] } },
          menu: {
            type: 'buttons',
            data: { subtitle: 'Escolha', buttons: [{ id: 'a', title: 'A' }], next: ['chose', null, null, null] },
          },
          chose: { type: 'message', data: { text: 'A!', next: [null] } },
        },
      },
      keyword('equals', 'menu'),
      'Menu',
    );
    const other = await publish(
      me,
      connection.id,
      chain([say('hi', 'Horários: 9h às 18h')]),
      keyword('contains', 'horário'),
      'Horários',
    );
    await writes('menu');
    await writes('A');
    await writes('qual o horário?');
    const [menuRun] = await runsOf(me, menu);
    expect((await runOf(me, menu, menuRun!.id)).status).toBe('waiting');
    expect(await runsOf(me, other)).toHaveLength(1);
    expect(await sentTexts(me)).not.toContain('A!');
    expect(await sentTexts(me)).toContain('Horários: 9h às 18h');
  });

  it('a run whose contact was deleted while it slept ends failed, with workflow_run.ended', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(
      me,
      connection.id,
      chain([['nap', 'sleep', { seconds: 60 }], say('later', 'Voltei')]),
      ANY,
    );
    const { contact } = await writes('oi');
    await json(await admin('DELETE', `/contacts/${contact.id}`));
    h.t.clock.advance(MINUTE);
    await drain();
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('failed');
    const events = await h.t.database.db
      .selectFrom('events')
      .select('data')
      .where('type', '=', 'workflow_run.ended')
      .where('resource_id', '=', run!.id)
      .execute();
    expect(events.map((e) => (e.data as { status: string }).status)).toEqual(['failed']);
    expect(await sentTexts(me)).toEqual([]);
  });
});
