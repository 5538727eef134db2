// The automation engine's blocks and start rules (Part B: block catalog, triggers, POST …/runs errors) on every
// engine of the run, driven as a partner would: publish through the API, a sandbox contact writes and answers,
// the clock moves past waits, the job worker runs what is due; runs, messages, contacts and tags are read back
// through the API.
import { describe, expect, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import { startRunFromApi } from '../../server/engine/api-start.js';
import { triggerMatches } from '../../server/engine/triggers.js';
import { ANY, DAY, engineHarness, keyword, MINUTE } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type { SchemaCustomField, SchemaTag, SchemaTagList } from '../../generated/api.js';

describe.each(engines)('the automation engine blocks on %s', (engine) => {
  const {
    h,
    admin,
    drain,
    connect,
    contactOn,
    setUp,
    create,
    publishById,
    publish,
    runsOf,
    runOf,
    sentTexts,
    contactOf,
    fieldOf,
    field,
    startByApi,
    chain,
    say,
  } = engineHarness(engine);

  /** The randomizer output of each run, in the order of the writes. */
  async function randomizerOutputs(percentages: number[], runs: number, manyContacts = false): Promise<number[]> {
    const { me, connection, writes } = await setUp();
    const options = percentages.map((percentage) => ({ percentage }));
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['split'] } },
        split: { type: 'randomizer', data: { options, next: options.map((_, i) => `opt${i}`) } },
        ...Object.fromEntries(
          options.map((_, i) => [`opt${i}`, { type: 'message', data: { text: `opção ${i}`, next: [null] } }]),
        ),
      },
    };
    const workflowId = await publish(me, connection.id, graph, ANY);
    const seen = new Set<string>();
    const outputs: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      await (manyContacts ? contactOn(connection.id) : writes)(`oi ${i}`);
      const fresh = (await runsOf(me, workflowId)).filter((r) => !seen.has(r.id));
      expect(fresh).toHaveLength(1);
      seen.add(fresh[0]!.id);
      const run = await runOf(me, workflowId, fresh[0]!.id);
      expect(run.status).toBe('completed');
      outputs.push(run.steps.find((s) => s.node_id === 'split')!.output!);
    }
    return outputs;
  }

  it('randomizer 50/50 alternates across runs of one contact, the first run taking option 0', async () => {
    expect(await randomizerOutputs([50, 50], 4)).toEqual([0, 1, 0, 1]);
  });

  it('randomizer 70/30 over 10 runs of several contacts gives exactly 7 and 3', async () => {
    // Counted per automation and block, whoever runs it: ten contacts.
    const outputs = await randomizerOutputs([70, 30], 10, true);
    expect(outputs[0]).toBe(0);
    expect(outputs.filter((o) => o === 0)).toHaveLength(7);
    expect(outputs.filter((o) => o === 1)).toHaveLength(3);
  });

  it('data writes $input, a literal with variables, clears without value, and $timestamp is the clock', async () => {
    const { me, connection, writes } = await setUp();
    for (const label of ['entrada', 'saudacao', 'apagar', 'quando']) await field(me, label);
    const graph = chain([
      ['d_input', 'data', { name: 'entrada', value: '$input' }],
      ['d_text', 'data', { name: 'saudacao', value: 'Olá {contact.first_name}!' }],
      ['d_set', 'data', { name: 'apagar', value: 'algo' }],
      say('m1', 'antes: {apagar}'),
      ['d_clear', 'data', { name: 'apagar' }],
      say('m2', 'depois: {apagar}'),
      ['d_time', 'data', { name: 'quando', value: '$timestamp' }],
    ]);
    const workflowId = await publish(me, connection.id, graph, ANY);
    h.t.clock.advance(1234);
    const nowMs = h.t.clock.now().getTime();
    const { contact } = await writes('Quero os dados');
    const [run] = await runsOf(me, workflowId);
    expect((await runOf(me, workflowId, run!.id)).status).toBe('completed');
    const read = await contactOf(me, contact.id);
    expect(fieldOf(read, 'entrada')).toBe('Quero os dados');
    expect(fieldOf(read, 'saudacao')).toBe('Olá Ana!');
    expect(fieldOf(read, 'apagar')).toBeNull();
    expect(fieldOf(read, 'quando')).toBe(String(nowMs));
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['antes: algo', 'depois: null']));
  });

  it('a graph of plain messages still reads a field by its key and contact.tags (written by the API before)', async () => {
    const { me, connection, writes } = await setUp();
    const created = await json<SchemaCustomField>(
      await admin('POST', `/accounts/${me.accountId}/custom-fields`, { label: 'cidade', type: 'text' }),
      201,
    );
    const tag = await json<SchemaTag>(await me.call('POST', '/v1/tags', { body: { name: 'VIP' } }), 201);
    const { contact } = await writes('primeira mensagem');
    await json(
      await me.call('PATCH', `/v1/contacts/${contact.id}/custom-fields`, {
        body: { custom_fields: [{ field_id: created.id, value: 'Recife' }] },
      }),
    );
    await json(await me.call('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`));
    const workflowId = await publish(
      me,
      connection.id,
      chain([say('m1', 'Cidade: {cidade}'), say('m2', 'Tags: {contact.tags}')]),
      keyword('equals', 'ver'),
    );
    await writes('ver');
    expect((await runsOf(me, workflowId))[0]!.status).toBe('completed');
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['Cidade: Recife', 'Tags: VIP']));
  });

  it('a field of the account the contact holds no value in is known: it reads as the text null; an unknown name as nothing', async () => {
    const { me, connection, writes } = await setUp();
    await field(me, 'cidade');
    const workflowId = await publish(
      me,
      connection.id,
      chain([say('m1', 'Cidade: {cidade}.'), say('m2', 'Bairro: {bairro}.'), say('m3', 'Post: {message.post_id}.')]),
      keyword('equals', 'onde'),
    );
    await writes('onde');
    expect((await runsOf(me, workflowId))[0]?.status).toBe('completed');
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['Cidade: null.', 'Bairro: .', 'Post: null.']));

    // A custom_field condition reads a field without value as ''.
    const differs = (field_name: string) => ({
      type: 'conditional',
      data: {
        conditions: [{ field_type: 'custom_field', field_name, operator: 'field_not_equals', value: 'Recife' }],
        next: [`${field_name}_yes`, `${field_name}_no`],
      },
    });
    const says = (text: string, next: string | null) => ({ type: 'message', data: { text, next: [next] } });
    await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['cidade'] } },
          cidade: differs('cidade'),
          cidade_yes: says('cidade ≠ Recife', null),
          cidade_no: says('cidade = Recife', null),
        },
      },
      keyword('equals', 'compara'),
    );
    await writes('compara');
    expect(await sentTexts(me)).toEqual(expect.arrayContaining(['cidade ≠ Recife']));
  });

  it('math adds a field and a constant as a plain number, division by zero gives 0, and later blocks see it', async () => {
    const { me, connection, writes } = await setUp();
    await field(me, 'pontos');
    await field(me, 'razao');
    const graph = chain([
      ['d_start', 'data', { name: 'pontos', value: '1.5' }],
      [
        'add',
        'math',
        {
          result_field: 'pontos',
          operator: 'add',
          operand_a: { type: 'field', value: 'pontos' },
          operand_b: { type: 'constant', value: '2' },
        },
      ],
      [
        'div',
        'math',
        {
          result_field: 'razao',
          operator: 'div',
          operand_a: { type: 'field', value: 'pontos' },
          operand_b: { type: 'constant', value: '0' },
        },
      ],
      say('show', 'Pontos: {pontos}; razão: {razao}'),
    ]);
    await publish(me, connection.id, graph, ANY);
    const { contact } = await writes('oi');
    const read = await contactOf(me, contact.id);
    expect(fieldOf(read, 'pontos')).toBe('3.5');
    expect(fieldOf(read, 'razao')).toBe('0');
    expect(await sentTexts(me)).toEqual(['Pontos: 3.5; razão: 0']);
  });

  it('conditional custom_field field_equals follows true and false', async () => {
    const { me, connection, writes } = await setUp();
    await field(me, 'plano');
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['save'] } },
        save: { type: 'data', data: { name: 'plano', value: '$input', next: ['check'] } },
        check: {
          type: 'conditional',
          data: {
            conditions: [{ field_type: 'custom_field', field_name: 'plano', operator: 'field_equals', value: 'ouro' }],
            next: ['yes', 'no'],
          },
        },
        yes: { type: 'message', data: { text: 'é ouro', next: [null] } },
        no: { type: 'message', data: { text: 'não é ouro', next: [null] } },
      },
    };
    await publish(me, connection.id, graph, ANY);
    await writes('ouro');
    expect(await sentTexts(me)).toEqual(['é ouro']);
    await writes('prata');
    expect((await sentTexts(me)).sort()).toEqual(['é ouro', 'não é ouro'].sort());
  });

  it('conditional `or` holds when one condition does; `and` does not', async () => {
    const { me, connection, writes } = await setUp();
    await json(await me.call('POST', '/v1/tags', { body: { name: 'Nada' } }), 201);
    await field(me, 'plano');
    const conditions = [
      { field_type: 'tag', field_name: 'Nada', operator: 'has_tag' },
      { field_type: 'custom_field', field_name: 'plano', operator: 'field_equals', value: 'ouro' },
    ];
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['save'] } },
        save: { type: 'data', data: { name: 'plano', value: 'ouro', next: ['either'] } },
        either: { type: 'conditional', data: { conditions, combinator: 'or', next: ['or_yes', 'or_no'] } },
        or_yes: { type: 'message', data: { text: 'ou: sim', next: ['both'] } },
        or_no: { type: 'message', data: { text: 'ou: não', next: ['both'] } },
        both: { type: 'conditional', data: { conditions, combinator: 'and', next: ['and_yes', 'and_no'] } },
        and_yes: { type: 'message', data: { text: 'e: sim', next: [null] } },
        and_no: { type: 'message', data: { text: 'e: não', next: [null] } },
      },
    };
    await publish(me, connection.id, graph, ANY);
    await writes('oi');
    expect((await sentTexts(me)).sort()).toEqual(['e: não', 'ou: sim'].sort());
  });

  it('conditional variable field_contains ignores letter case', async () => {
    const { me, connection, writes } = await setUp();
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['check'] } },
        check: {
          type: 'conditional',
          data: {
            conditions: [
              { field_type: 'variable', field_name: 'message.trigger', operator: 'field_contains', value: 'PROMO' },
            ],
            next: ['yes', 'no'],
          },
        },
        yes: { type: 'message', data: { text: 'tem promo', next: [null] } },
        no: { type: 'message', data: { text: 'sem promo', next: [null] } },
      },
    };
    await publish(me, connection.id, graph, ANY);
    await writes('quero a Promoção');
    expect(await sentTexts(me)).toEqual(['tem promo']);
    await writes('quero outra coisa');
    expect((await sentTexts(me)).sort()).toEqual(['sem promo', 'tem promo']);
  });

  it('conditional time_between on system.current_time reads the moved clock in the account time zone (UTC default)', async () => {
    const { me, connection, writes } = await setUp();
    const hhmm = (minuteOfDay: number) => {
      const m = ((minuteOfDay % 1440) + 1440) % 1440;
      return `${String(Math.floor(m / 60)).padStart(2, '0')}:${String(m % 60).padStart(2, '0')}`;
    };
    const now = h.t.clock.now();
    const minute = now.getUTCHours() * 60 + now.getUTCMinutes();
    // From one to two hours ahead of now in UTC (may cross midnight).
    const value = `${hhmm(minute + 60)},${hhmm(minute + 120)}`;
    const graph = {
      nodes: {
        root: { type: 'root', data: { next: ['check'] } },
        check: {
          type: 'conditional',
          data: {
            conditions: [
              { field_type: 'variable', field_name: 'system.current_time', operator: 'time_between', value },
            ],
            next: ['yes', 'no'],
          },
        },
        yes: { type: 'message', data: { text: 'dentro', next: [null] } },
        no: { type: 'message', data: { text: 'fora', next: [null] } },
      },
    };
    await publish(me, connection.id, graph, ANY);
    await writes('agora');
    expect(await sentTexts(me)).toEqual(['fora']);
    h.t.clock.advance(90 * MINUTE);
    await drain();
    await writes('mais tarde');
    expect((await sentTexts(me)).sort()).toEqual(['dentro', 'fora']);
    // Three hours behind UTC, the same instant is outside the window again.
    await json(await admin('PATCH', `/accounts/${me.accountId}`, { time_zone: 'America/Sao_Paulo' }));
    await writes('em São Paulo');
    expect((await sentTexts(me)).sort()).toEqual(['dentro', 'fora', 'fora']);
  });

  /**
   * A tag of the account created as `created`, renamed to `renamed` once the automations are published. Validation
   * refuses a tag name in another spelling, and the API refuses renaming a tag automations name (tag_in_use), so
   * the rename is written in the database: the block then holds another spelling of the account's tag.
   */
  async function tagRenamedLater(me: TestCaller, created: string) {
    const tag = await json<SchemaTag>(await me.call('POST', '/v1/tags', { body: { name: created } }), 201);
    return async (renamed: string) => {
      await h.t.database.db.updateTable('tags').set({ name: renamed }).where('id', '=', tag.id).execute();
    };
  }

  it('tags remove by exact name only; another spelling removes nothing', async () => {
    const { me, connection, writes } = await setUp();
    const rename = await tagRenamedLater(me, 'cliente vip');
    await publish(me, connection.id, chain([['t', 'tags', { operation: 'remove', tags: ['cliente vip'] }]]), {
      ...keyword('equals', 'sair errado'),
    });
    await rename('Cliente VIP');
    await publish(me, connection.id, chain([['t', 'tags', { operation: 'add', tags: ['Cliente VIP'] }]]), {
      ...keyword('equals', 'entrar'),
    });
    await publish(me, connection.id, chain([['t', 'tags', { operation: 'remove', tags: ['Cliente VIP'] }]]), {
      ...keyword('equals', 'sair'),
    });
    const { contact } = await writes('entrar');
    expect((await contactOf(me, contact.id)).tags.map((t) => t.name)).toEqual(['Cliente VIP']);
    await writes('sair errado');
    expect((await contactOf(me, contact.id)).tags.map((t) => t.name)).toEqual(['Cliente VIP']);
    await writes('sair');
    expect((await contactOf(me, contact.id)).tags).toEqual([]);
  });

  it('tags add with another spelling renames the account tag to the block spelling', async () => {
    const { me, connection, writes } = await setUp();
    const rename = await tagRenamedLater(me, 'promo verão');
    await publish(me, connection.id, chain([['t', 'tags', { operation: 'add', tags: ['promo verão'] }]]), ANY);
    await rename('Promo Verão');
    const before = await json<SchemaTagList>(await me.call('GET', '/v1/tags'));
    expect(before.data.map((t) => t.name)).toEqual(['Promo Verão']);
    const { contact } = await writes('oi');
    const tags = await json<SchemaTagList>(await me.call('GET', '/v1/tags'));
    expect(tags.data.map((t) => t.name)).toEqual(['promo verão']);
    expect((await contactOf(me, contact.id)).tags.map((t) => t.name)).toEqual(['promo verão']);
  });

  /** A child automation started only by others: it asks, then says goodbye. */
  const childGraph = {
    nodes: {
      root: { type: 'root', data: { next: ['ask'] } },
      ask: {
        type: 'question',
        data: { text: 'Pergunta do filho?', answer_type: 'any', answer_field: '', next: ['bye'] },
      },
      bye: { type: 'message', data: { text: 'fim do filho', next: [null] } },
    },
  };
  const NO_EVENTS = { events: [], match: 'any' };

  it('start with parallel true continues at once while the child runs', async () => {
    const { me, connection, writes } = await setUp();
    const childId = await publish(me, connection.id, childGraph, NO_EVENTS, 'Filho');
    const parentId = await publish(
      me,
      connection.id,
      chain([['go', 'start', { workflow_id: childId, parallel: true }], say('after', 'pai continua')]),
      keyword('equals', 'pai'),
    );
    await writes('pai');
    const [parent] = await runsOf(me, parentId);
    expect(parent?.status).toBe('completed');
    const [child] = await runsOf(me, childId);
    expect(child).toMatchObject({ status: 'waiting', source: 'workflow' });
    expect((await sentTexts(me)).sort()).toEqual(['Pergunta do filho?', 'pai continua'].sort());
  });

  it('start with parallel false waits for the child to end, then continues', async () => {
    const { me, connection, writes } = await setUp();
    const childId = await publish(me, connection.id, childGraph, NO_EVENTS, 'Filho');
    const parentId = await publish(
      me,
      connection.id,
      chain([['go', 'start', { workflow_id: childId, parallel: false }], say('after', 'pai continua')]),
      keyword('equals', 'pai'),
    );
    await writes('pai');
    const [parent] = await runsOf(me, parentId);
    expect(parent?.status).not.toBe('completed');
    expect((await runsOf(me, childId))[0]?.status).toBe('waiting');
    expect(await sentTexts(me)).toEqual(['Pergunta do filho?']);
    await writes('resposta');
    expect((await runsOf(me, childId))[0]?.status).toBe('completed');
    const done = await runOf(me, parentId, parent!.id);
    expect(done.status).toBe('completed');
    expect(done.steps.map((s) => [s.node_id, s.status])).toEqual([
      ['root', 'completed'],
      ['go', 'completed'],
      ['after', 'completed'],
    ]);
    expect((await sentTexts(me)).sort()).toEqual(['Pergunta do filho?', 'fim do filho', 'pai continua'].sort());
  });

  it('start with delay_seconds starts the child only when the clock moves', async () => {
    const { me, connection, writes } = await setUp();
    const childId = await publish(me, connection.id, chain([say('hi', 'filho chegou')]), NO_EVENTS, 'Filho');
    const parentId = await publish(
      me,
      connection.id,
      chain([['go', 'start', { workflow_id: childId, parallel: true, delay_seconds: 60 }]]),
      keyword('equals', 'pai'),
    );
    await writes('pai');
    expect((await runsOf(me, parentId))[0]?.status).toBe('completed');
    expect(await sentTexts(me)).toEqual([]);
    h.t.clock.advance(59_000);
    await drain();
    expect(await sentTexts(me)).toEqual([]);
    h.t.clock.advance(1_000);
    await drain();
    expect(await sentTexts(me)).toEqual(['filho chegou']);
    expect((await runsOf(me, childId))[0]?.status).toBe('completed');
  });

  it('start of an automation not published on the channel ends the run at the block (stopped)', async () => {
    const { me, connection, writes } = await setUp();
    const childId = await publish(me, connection.id, chain([say('hi', 'filho')]), NO_EVENTS, 'Filho');
    const parentId = await publish(
      me,
      connection.id,
      chain([['go', 'start', { workflow_id: childId, parallel: true }], say('after', 'pai continua')]),
      keyword('equals', 'pai'),
    );
    await json(await me.call('POST', `/v1/workflows/${childId}/unpublish`));
    await writes('pai');
    const [run] = await runsOf(me, parentId);
    const stopped = await runOf(me, parentId, run!.id);
    expect(stopped.status).toBe('stopped');
    expect(stopped.steps.at(-1)).toMatchObject({
      node_id: 'go',
      status: 'failed',
      error: { code: 'start_target_unavailable' },
    });
    expect(await runsOf(me, childId)).toEqual([]);
    expect(await sentTexts(me)).toEqual([]);
  });

  it('start with parallel false of an automation on another connection, or deleted, also ends the run at the block', async () => {
    const { me, connection, writes } = await setUp();
    const other = await connect(me);
    const elsewhere = await publish(me, other.id, chain([say('hi', 'outro número')]), NO_EVENTS, 'Outro');
    const trashed = await publish(me, connection.id, chain([say('hi', 'apagada')]), NO_EVENTS, 'Apagada');
    await json(await me.call('DELETE', `/v1/workflows/${trashed}`));
    const parents = [];
    for (const [i, target] of [elsewhere, trashed].entries())
      parents.push(
        await publish(
          me,
          connection.id,
          chain([['go', 'start', { workflow_id: target, parallel: false }], say('after', 'pai continua')]),
          keyword('equals', `pai ${i}`),
          `Pai ${i}`,
        ),
      );
    await writes('pai 0');
    await writes('pai 1');
    for (const parentId of parents) {
      const [run] = await runsOf(me, parentId);
      const stopped = await runOf(me, parentId, run!.id);
      expect(stopped.status).toBe('stopped');
      expect(stopped.steps.at(-1)).toMatchObject({ node_id: 'go', error: { code: 'start_target_unavailable' } });
    }
    expect(await runsOf(me, elsewhere)).toEqual([]);
    expect(await sentTexts(me)).toEqual([]);
  });

  it('pause-automations completes the run; while paused nothing starts (409 by the API); afterwards it does', async () => {
    const { me, connection, writes } = await setUp();
    const pauseId = await publish(
      me,
      connection.id,
      {
        nodes: {
          root: { type: 'root', data: { next: ['pause'] } },
          pause: { type: 'pause-automations', data: { minutes: 30, next: [null] } },
        },
      },
      keyword('equals', 'pausar'),
      'Pausa',
    );
    const helloId = await publish(me, connection.id, chain([say('hi', 'olá')]), keyword('equals', 'oi'));
    const { contact } = await writes('pausar');
    const [paused] = await runsOf(me, pauseId);
    const ended = await runOf(me, pauseId, paused!.id);
    expect(ended.status).toBe('completed');
    // The run ends at the block: its output is never followed.
    expect(ended.steps.map((s) => [s.node_id, s.status, s.output])).toEqual([
      ['root', 'completed', 0],
      ['pause', 'completed', null],
    ]);
    await writes('oi');
    expect(await runsOf(me, helloId)).toEqual([]);
    await expectError(await startByApi(me, helloId, contact.id), 409, { code: 'contact_automations_paused' });
    h.t.clock.advance(29 * MINUTE);
    await drain();
    await writes('oi');
    expect(await runsOf(me, helloId)).toEqual([]);
    h.t.clock.advance(MINUTE);
    await drain();
    await writes('oi');
    expect((await runsOf(me, helloId)).map((r) => r.status)).toEqual(['completed']);
    expect(await sentTexts(me)).toEqual(['olá']);
  });

  it('POST …/runs: contact_not_on_channel for a contact of another connection', async () => {
    const { me, connection } = await setUp();
    const other = await connect(me);
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), NO_EVENTS);
    const { contact } = await contactOn(other.id)('oi');
    await expectError(await startByApi(me, workflowId, contact.id), 422, {
      code: 'contact_not_on_channel',
      connection_id: connection.id,
    });
  });

  it('POST …/runs: channel_disconnected once the connection is disconnected', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), NO_EVENTS);
    const { contact } = await writes('oi');
    await json(
      await admin('PATCH', `/connections/${connection.id}`, {
        status: 'disconnected',
        disconnect_reason: 'disconnected_by_user',
      }),
    );
    await expectError(await startByApi(me, workflowId, contact.id), 422, {
      code: 'channel_disconnected',
      connection_id: connection.id,
    });
  });

  it('POST …/runs: integration_disconnected for a reachable spreadsheet block, nothing started; an unreachable one needs nothing', async () => {
    const { me, connection, writes } = await setUp();
    const sheet = {
      sheets_external_id: 'acct_1',
      spreadsheet_id: 'sheet_1',
      tab_title: 'Leads',
      operation: 'upsert',
      match: [{ column: 'Nome', value: '{contact.name}' }],
      values: { Nome: '{contact.name}' },
    };
    const uses = await publish(me, connection.id, chain([say('hi', 'olá'), ['row', 'sheets', sheet]]), NO_EVENTS);
    const { contact } = await writes('oi');
    await expectError(await startByApi(me, uses, contact.id), 422, {
      code: 'integration_disconnected',
      integration_type: 'sheets',
    });
    expect(await runsOf(me, uses)).toEqual([]);
    const graph = chain([say('hi', 'olá')]) as { nodes: Record<string, unknown> };
    graph.nodes.orphan = { type: 'sheets', data: { ...sheet, next: [null] } };
    const ignores = await publish(me, connection.id, graph, NO_EVENTS, 'Sem planilha');
    expect((await startByApi(me, ignores, contact.id)).status).toBe(202);
  });

  it('POST …/runs: a start whose commit fails is 502 outcome_unknown, and no run exists; a refusal before it keeps its own error', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), NO_EVENTS);
    const { contact } = await writes('oi');
    const db = h.t.database.db;
    // The transaction runs its body, then its commit is lost (the connection dropped): the database rolls back.
    const lostCommit = new Proxy(db, {
      get(target, property, receiver) {
        if (property !== 'transaction') return Reflect.get(target, property, receiver) as unknown;
        return () => ({
          execute: <T>(body: (tx: unknown) => Promise<T>) =>
            target.transaction().execute(async (tx) => {
              await body(tx);
              throw new Error('Connection terminated unexpectedly');
            }),
        });
      },
    });
    const deps = { clock: h.t.clock, runsPerContactPerHour: 20 };
    const start = (id: string) => startRunFromApi(lostCommit, deps, me.accountId, id, contact.id);
    await expect(start(workflowId)).rejects.toMatchObject({ status: 502, code: 'outcome_unknown' });
    expect(await runsOf(me, workflowId)).toEqual([]);
    await expect(start(randomUUID())).rejects.toMatchObject({ status: 404, code: 'not_found' });
  });

  it.each([
    [
      'equals compares the text as received: no trimming, letter case ignored',
      'equals',
      'promo',
      ['promo ', 'promo!'],
      'PROMO',
    ],
    ['starts_with matches only at the start', 'starts_with', 'quero', ['eu quero', ' quero'], 'Quero isso'],
    [
      'keywords ignore letter case but not accents',
      'contains',
      'preço',
      ['qual o preco?', 'QUAL O PRECO?'],
      'QUAL O PREÇO?',
    ],
  ])('trigger %s', async (_rule, match, word, misses, hit) => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), keyword(match, word));
    for (const text of misses) await writes(text);
    expect(await runsOf(me, workflowId)).toEqual([]);
    await writes(hit);
    expect(await runsOf(me, workflowId)).toHaveLength(1);
  });

  it('on whatsapp an event other than message never fires', async () => {
    const { me, connection, writes } = await setUp();
    const trigger: Parameters<typeof triggerMatches>[0] = {
      events: ['comment', 'live_comment', 'story_message', 'story_mention', 'message_sent'],
      match: 'any',
      keywords: [],
      posts: null,
      next_post: false,
      replies_list_id: null,
    };
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), trigger);
    // The sandbox delivers only direct messages on a whatsapp number.
    const comment = await admin('POST', `/sandbox/connections/${connection.id}/inbound`, {
      from: { phone: '+5511988887777', name: 'Bia' },
      type: 'comment',
      text: 'oi',
      post: { type: 'feed', id: 'post-1' },
    });
    await expectError(comment, 422, expect.objectContaining({ code: 'invalid_sandbox_action' }));
    await drain();
    await writes('oi');
    expect(await runsOf(me, workflowId)).toEqual([]);
    expect(await sentTexts(me)).toEqual([]);
    // So the engine's own rule is checked on the message types whatsapp could never deliver here.
    for (const type of ['comment', 'live_comment', 'story_message', 'story_mention'] as const)
      expect(triggerMatches(trigger, 'whatsapp', { type, text: 'oi', post: null })).toBe(false);
    expect(triggerMatches(trigger, 'instagram', { type: 'comment', text: 'oi', post: null })).toBe(true);
  });

  it('an unpublished or deleted automation starts nothing', async () => {
    const { me, connection, writes } = await setUp();
    const unpublished = await publish(me, connection.id, chain([say('hi', 'não publicada')]), ANY, 'A');
    const deleted = await publish(me, connection.id, chain([say('hi', 'apagada')]), ANY, 'B');
    const draft = await create(me, connection.id, chain([say('hi', 'rascunho')]), ANY, 'C');
    await json(await me.call('POST', `/v1/workflows/${unpublished}/unpublish`));
    await json(await me.call('DELETE', `/v1/workflows/${deleted}`));
    await writes('oi');
    expect(await runsOf(me, unpublished)).toEqual([]);
    expect(await runsOf(me, draft)).toEqual([]);
    expect(await sentTexts(me)).toEqual([]);
    // Published again, it starts.
    await publishById(me, unpublished);
    await writes('oi de novo');
    expect(await sentTexts(me)).toEqual(['não publicada']);
  });

  it("a waiting question takes the contact's next text even with another automation's keyword, which does not start", async () => {
    const { me, connection, writes } = await setUp();
    await field(me, 'resposta');
    const askId = await publish(
      me,
      connection.id,
      chain([
        ['ask', 'question', { text: 'Qual?', answer_type: 'any', answer_field: 'resposta' }],
        say('thanks', 'Anotei {resposta}'),
      ]),
      keyword('equals', 'pergunta'),
      'Pergunta',
    );
    const promoId = await publish(me, connection.id, chain([say('hi', 'promo!')]), keyword('equals', 'promo'));
    await writes('pergunta');
    expect((await runsOf(me, askId))[0]?.status).toBe('waiting');
    await writes('promo');
    expect((await runsOf(me, askId))[0]?.status).toBe('completed');
    expect(await runsOf(me, promoId)).toEqual([]);
    expect((await sentTexts(me)).sort()).toEqual(['Anotei promo', 'Qual?']);
  });

  it('a message without text does not answer a question, which keeps waiting', async () => {
    const { me, connection, writes } = await setUp();
    const askId = await publish(
      me,
      connection.id,
      chain([['ask', 'question', { text: 'Qual?', answer_type: 'any', answer_field: '' }], say('thanks', 'Obrigado')]),
      keyword('equals', 'pergunta'),
    );
    await writes('pergunta');
    await writes(null, { attachment: { type: 'audio', content_type: 'audio/ogg', size: 2048 } });
    await writes(null, { attachment: { type: 'sticker', content_type: 'image/webp', size: 1024 } });
    expect((await runsOf(me, askId))[0]?.status).toBe('waiting');
    expect(await sentTexts(me)).toEqual(['Qual?']);
    // On whatsapp an image caption is text: it answers.
    await writes('minha foto', { attachment: { type: 'image', content_type: 'image/jpeg', size: 4096 } });
    expect((await runsOf(me, askId))[0]?.status).toBe('completed');
  });

  it('a question left unanswered for 90 days ends: run completed, step failed with wait_expired', async () => {
    const me = await h.t.account({ validityDays: 365 });
    const connection = await connect(me);
    const writes = contactOn(connection.id);
    const workflowId = await publish(
      me,
      connection.id,
      chain([['ask', 'question', { text: 'Qual?', answer_type: 'any', answer_field: '' }], say('thanks', 'Obrigado')]),
      keyword('equals', 'pergunta'),
    );
    await writes('pergunta');
    const [run] = await runsOf(me, workflowId);
    h.t.clock.advance(90 * DAY - MINUTE);
    await drain();
    expect((await runOf(me, workflowId, run!.id)).status).toBe('waiting');
    h.t.clock.advance(MINUTE);
    await drain();
    const ended = await runOf(me, workflowId, run!.id);
    expect(ended.status).toBe('completed');
    expect(ended.steps.map((s) => [s.node_id, s.status, s.error?.code ?? null])).toEqual([
      ['root', 'completed', null],
      ['ask', 'failed', 'wait_expired'],
    ]);
    expect(await sentTexts(me)).toEqual(['Qual?']);
  });
});

describe.each(engines)('the hourly run limit of a contact on %s', (engine) => {
  const { h, drain, setUp, publish, runsOf, sentTexts, startByApi, chain, say } = engineHarness(engine, {
    RUNS_PER_CONTACT_PER_HOUR: '2',
  });

  it('a third start within the hour: 429 run_limit_reached by the API, the trigger starts nothing; an hour later it works', async () => {
    const { me, connection, writes } = await setUp();
    const workflowId = await publish(me, connection.id, chain([say('hi', 'olá')]), keyword('equals', 'oi'));
    const { contact } = await writes('oi');
    h.t.clock.advance(10 * MINUTE);
    await drain();
    await writes('oi');
    expect(await runsOf(me, workflowId)).toHaveLength(2);
    await expectError(await startByApi(me, workflowId, contact.id), 429, { code: 'run_limit_reached' });
    await writes('oi');
    expect(await runsOf(me, workflowId)).toHaveLength(2);
    expect(await sentTexts(me)).toEqual(['olá', 'olá']);
    // The first run leaves the hour; one start is allowed again.
    h.t.clock.advance(50 * MINUTE + 1_000);
    await drain();
    await writes('oi');
    expect(await runsOf(me, workflowId)).toHaveLength(3);
    await expectError(await startByApi(me, workflowId, contact.id), 429, { code: 'run_limit_reached' });
  });

  it('one message matching two automations counts the run the first started: the second is refused at the limit', async () => {
    const { me, connection, writes } = await setUp();
    const first = await publish(me, connection.id, chain([say('hi', 'um')]), keyword('equals', 'oi'));
    await writes('oi');
    await drain();
    expect(await runsOf(me, first)).toHaveLength(1);
    const second = await publish(me, connection.id, chain([say('hi', 'dois')]), keyword('equals', 'oi'));
    const third = await publish(me, connection.id, chain([say('hi', 'três')]), keyword('equals', 'oi'));
    h.t.clock.advance(10 * MINUTE);
    await writes('oi');
    await drain();
    // One run within the hour, a limit of two: the message starts one more (the first live trigger that may
    // start), and the next trigger it matches sees that run.
    const started = [...(await runsOf(me, first)), ...(await runsOf(me, second)), ...(await runsOf(me, third))];
    expect(started).toHaveLength(2);
  });
});
