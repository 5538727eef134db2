// The sheets block (Part B, "Block catalog"; issue 22) on every engine, driven through the sandbox: a contact's
// message runs an automation whose sheets block writes the sandbox spreadsheet, read back through the admin API.
// append, update (the whole row), upsert (empty values keep their cells, or an append), delete, the first data
// row without a match, unknown columns ignored, a number failing the step (the run ends stopped, nothing
// written), variables, `$input`, `$timestamp`, `{contact.tag.<slug>}`, formula-like text, a disconnected or
// unknown spreadsheet account, another account's spreadsheet, `POST …/runs` (422 integration_disconnected or
// 202), and two runs writing one tab at once. docs/decisions.md, "sheets (issue 22)".
import { describe, expect, it } from 'vitest';
import type { SchemaTag, SchemaWorkflowRun } from '../../generated/api.js';
import type { SchemaAdminSpreadsheetAccount, SchemaSandboxSpreadsheet } from '../../generated/admin-api.js';
import { tagSlugs } from '../../server/domain/tags/slugs.js';
import { SandboxSpreadsheets } from '../../server/spreadsheets/sandbox.js';
import type { SheetAddress } from '../../server/spreadsheets/provider.js';
import { ANY, engineHarness, keyword } from './engine-harness.js';
import { engines, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';

const HEADER = ['Nome', 'Telefone', 'Interesse', 'Status'];

describe.each(engines)('the sheets block on %s', (engine) => {
  const { h, admin, setUp, publish, runsOf, runOf, startByApi, field, sentTexts, drain } = engineHarness(engine);

  /** A spreadsheet account of the account and a spreadsheet under it with one tab `Leads`. */
  async function spreadsheet(me: TestCaller, rows: string[][] = [HEADER]) {
    const owner = await json<SchemaAdminSpreadsheetAccount>(
      await admin('POST', `/accounts/${me.accountId}/spreadsheet-accounts`, { name: 'Planilhas' }),
      201,
    );
    const sheet = await json<SchemaSandboxSpreadsheet>(
      await admin('POST', '/sandbox/spreadsheets', {
        spreadsheet_account_id: owner.id,
        name: 'Leads',
        tabs: [
          { title: 'Leads', rows },
          { title: 'Outra', rows: [['Nome']] },
        ],
      }),
      201,
    );
    return { owner, sheet };
  }
  const rowsOf = async (sheetId: string, tab = 'Leads') =>
    (await json<SchemaSandboxSpreadsheet>(await admin('GET', `/sandbox/spreadsheets/${sheetId}`))).tabs.find(
      (t) => t.title === tab,
    )?.rows;

  /** root → sheets → (message `after`). */
  function sheetsGraph(target: { owner: { id: string }; sheet: { id: string } }, data: Record<string, unknown>) {
    return {
      nodes: {
        root: { type: 'root', data: { next: ['row'] } },
        row: {
          type: 'sheets',
          data: {
            sheets_external_id: target.owner.id,
            spreadsheet_id: target.sheet.id,
            tab_title: 'Leads',
            ...data,
            next: ['after'],
          },
        },
        after: { type: 'message', data: { text: 'gravado', next: [null] } },
      },
    };
  }

  /** Publishes the graph, the contact writes `text`, and the run is read back. */
  async function runWith(
    env: Awaited<ReturnType<typeof setUp>>,
    graph: unknown,
    text = 'quero',
  ): Promise<SchemaWorkflowRun> {
    const workflowId = await publish(env.me, env.connection.id, graph, keyword('equals', text));
    await env.writes(text);
    const runs = await runsOf(env.me, workflowId);
    expect(runs).toHaveLength(1);
    return runOf(env.me, workflowId, runs[0]!.id);
  }
  const stepOf = (run: SchemaWorkflowRun) => run.steps.find((s) => s.node_id === 'row');

  it('append writes a row as wide as the header; a column the tab lacks is ignored; formula-like values are text', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me);
    const values = { Nome: '{contact.name}', Interesse: '=SUM(A1:A9)', Status: '+55 -1 @x', Cor: 'azul' };
    const run = await runWith(env, sheetsGraph(target, { operation: 'append', values }));
    expect(run.status).toBe('completed');
    expect(stepOf(run)).toMatchObject({ status: 'completed', output: 0, error: null });
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER, ['Ana Souza', '', '=SUM(A1:A9)', '+55 -1 @x']]);
    expect(await sentTexts(env.me)).toEqual(['gravado']);
    // Values starting with -, @ as the whole cell, too.
    await runWith(env, sheetsGraph(target, { operation: 'append', values: { Nome: '-1', Telefone: '@ana' } }), 'mais');
    expect((await rowsOf(target.sheet.id))?.[2]).toEqual(['-1', '@ana', '', '']);
  });

  it('update rewrites the whole first matching row: missing columns and empty results end up empty', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me, [
      HEADER,
      ['Bia', '111', 'Tênis', 'novo'],
      ['Ana Souza', '222', 'Bolsa', 'novo'],
      ['Ana Souza', '333', 'Meia', 'novo'],
    ]);
    const data = {
      operation: 'update',
      match: [{ column: 'Nome', value: '{contact.name}' }],
      values: { Nome: '{contact.name}', Status: 'cliente', Interesse: '{sem_valor_desconhecido}' },
    };
    const run = await runWith(env, sheetsGraph(target, data));
    expect(run.status).toBe('completed');
    expect(await rowsOf(target.sheet.id)).toEqual([
      HEADER,
      ['Bia', '111', 'Tênis', 'novo'],
      ['Ana Souza', '', '', 'cliente'],
      ['Ana Souza', '333', 'Meia', 'novo'],
    ]);
  });

  it('update or delete with no matching row changes nothing and the run goes on', async () => {
    const env = await setUp();
    const rows = [HEADER, ['Bia', '111', 'Tênis', 'novo']];
    const target = await spreadsheet(env.me, rows);
    const match = [{ column: 'Nome', value: 'Ninguém' }];
    const update = await runWith(env, sheetsGraph(target, { operation: 'update', match, values: { Nome: 'x' } }));
    expect(update.status).toBe('completed');
    const remove = await runWith(env, sheetsGraph(target, { operation: 'delete', match }), 'apaga');
    expect(remove.status).toBe('completed');
    // A match column the tab lacks matches no row.
    const lacking = [{ column: 'Cor', value: '' }];
    await runWith(env, sheetsGraph(target, { operation: 'delete', match: lacking }), 'cor');
    expect(await rowsOf(target.sheet.id)).toEqual(rows);
  });

  it('upsert keeps the cells of empty values, matching on every listed column; appends when nothing matches', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me, [
      HEADER,
      ['Ana Souza', '111', 'Tênis', 'novo'],
      ['Ana Souza', '222', 'Bolsa', 'novo'],
    ]);
    const data = (phone: string) => ({
      operation: 'upsert',
      match: [
        { column: 'Nome', value: '{contact.name}' },
        { column: 'Telefone', value: phone },
      ],
      values: { Nome: '{contact.name}', Telefone: phone, Interesse: '', Status: '$input' },
    });
    await runWith(env, sheetsGraph(target, data('222')), 'cliente');
    await runWith(env, sheetsGraph(target, data('999')), 'lead');
    expect(await rowsOf(target.sheet.id)).toEqual([
      HEADER,
      ['Ana Souza', '111', 'Tênis', 'novo'],
      ['Ana Souza', '222', 'Bolsa', 'cliente'],
      ['Ana Souza', '999', '', 'lead'],
    ]);
  });

  it('delete removes the first match; without a match (or an empty one) update, upsert and delete act on the first data row', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me, [
      HEADER,
      ['Bia', '1', 'a', 'x'],
      ['Ana Souza', '2', 'b', 'x'],
      ['Ana Souza', '3', 'c', 'x'],
      ['Caio', '4', 'd', 'x'],
    ]);
    await runWith(env, sheetsGraph(target, { operation: 'delete', match: [{ column: 'Nome', value: 'Ana Souza' }] }));
    expect((await rowsOf(target.sheet.id))?.map((r) => r[1])).toEqual(['Telefone', '1', '3', '4']);
    await runWith(env, sheetsGraph(target, { operation: 'update', values: { Nome: 'Primeira' } }), 'um');
    expect((await rowsOf(target.sheet.id))?.[1]).toEqual(['Primeira', '', '', '']);
    await runWith(env, sheetsGraph(target, { operation: 'upsert', match: [], values: { Status: 'y' } }), 'dois');
    expect((await rowsOf(target.sheet.id))?.[1]).toEqual(['Primeira', '', '', 'y']);
    await runWith(env, sheetsGraph(target, { operation: 'delete', match: [] }), 'tres');
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER, ['Ana Souza', '3', 'c', 'x'], ['Caio', '4', 'd', 'x']]);
  });

  it('a number in values fails the step (invalid_value), the run ends stopped and nothing is written', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me);
    const data = { operation: 'append', values: { Nome: '{contact.name}', Telefone: 5511999 } };
    const run = await runWith(env, sheetsGraph(target, data));
    expect(run.status).toBe('stopped');
    expect(stepOf(run)).toMatchObject({ status: 'failed', output: null, error: { code: 'invalid_value' } });
    expect(run.steps.map((s) => s.node_id)).not.toContain('after');
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER]);
    expect(await sentTexts(env.me)).toEqual([]);
  });

  it('values take $input, $timestamp (the clock), variables, custom fields and known-without-value null', async () => {
    const env = await setUp();
    await field(env.me, 'Cidade');
    const target = await spreadsheet(env.me);
    const values = {
      Nome: '{contact.first_name} ({cidade})',
      Telefone: '{contact.alias}',
      Interesse: '$input',
      Status: '$timestamp',
    };
    h.t.clock.advance(98_765);
    const nowMs = h.t.clock.now().getTime();
    const run = await runWith(env, sheetsGraph(target, { operation: 'append', values }), 'Quero tênis');
    expect(run.status).toBe('completed');
    const [, row] = (await rowsOf(target.sheet.id)) ?? [];
    expect(row?.[0]).toBe('Ana (null)');
    expect(row?.[1]).toMatch(/^55119\d{8}$/);
    expect(row?.slice(2)).toEqual(['Quero tênis', String(nowMs)]);
    // A match value takes variables too: the row of the contact's alias gets updated.
    const match = [{ column: 'Telefone', value: '{contact.alias}' }];
    await runWith(env, sheetsGraph(target, { operation: 'upsert', match, values: { Interesse: '$input' } }), 'Mudei');
    expect((await rowsOf(target.sheet.id))?.slice(1).map((r) => r[2])).toEqual(['Mudei']);
  });

  it('{contact.tag.<slug>} is true or false by the tag; accents and spaces slugged, later twins suffixed; unknown elsewhere', async () => {
    const env = await setUp();
    const tag = async (name: string) => {
      const created = await json<SchemaTag>(await env.me.call('POST', '/v1/tags', { body: { name } }), 201);
      h.t.clock.advance(1000); // the suffix follows the tags' age
      return created;
    };
    await tag('Promoção Verão');
    await tag('promocao  verao!');
    await tag('Cliente Fiel');
    const target = await spreadsheet(env.me);
    const graph = sheetsGraph(target, {
      operation: 'append',
      values: {
        Nome: '{contact.tag.promocao-verao}',
        Telefone: '{contact.tag.promocao-verao-2}',
        Interesse: '{contact.tag.cliente-fiel}',
        Status: '{contact.tag.nao-existe}',
      },
    });
    graph.nodes.root.data.next = ['add'];
    Object.assign(graph.nodes, {
      add: { type: 'tags', data: { operation: 'add', tags: ['promocao  verao!'], next: ['row'] } },
    });
    graph.nodes.after.data.text = 'fora: [{contact.tag.promocao-verao-2}]';
    const run = await runWith(env, graph);
    expect(run.status).toBe('completed');
    expect((await rowsOf(target.sheet.id))?.[1]).toEqual(['false', 'true', 'false', 'false']);
    expect(await sentTexts(env.me)).toEqual(['fora: []']);
  });

  it('a disconnected or unknown spreadsheet account, another account’s spreadsheet, a missing tab: the step fails, nothing written', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me);
    const append = { operation: 'append', values: { Nome: 'x' } };
    await json(await admin('PATCH', `/spreadsheet-accounts/${target.owner.id}`, { status: 'disconnected' }), 200);
    const off = await runWith(env, sheetsGraph(target, append), 'um');
    expect(off.status).toBe('stopped');
    expect(stepOf(off)?.error?.code).toBe('integration_disconnected');
    await json(await admin('PATCH', `/spreadsheet-accounts/${target.owner.id}`, { status: 'connected' }), 200);

    const unknown = { owner: { id: '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10' }, sheet: target.sheet };
    expect(stepOf(await runWith(env, sheetsGraph(unknown, append), 'dois'))?.error?.code).toBe(
      'spreadsheet_account_not_found',
    );
    const noSheet = { owner: target.owner, sheet: { id: 'planilha-1' } };
    expect(stepOf(await runWith(env, sheetsGraph(noSheet, append), 'tres'))?.error?.code).toBe('spreadsheet_not_found');
    const noTab = sheetsGraph(target, append);
    noTab.nodes.row.data.tab_title = 'leads';
    expect(stepOf(await runWith(env, noTab, 'quatro'))?.error?.code).toBe('tab_not_found');

    // Another account's spreadsheet account and spreadsheet: neither is this account's to write.
    const other = await setUp();
    const theirs = await spreadsheet(other.me);
    expect(stepOf(await runWith(env, sheetsGraph(theirs, append), 'cinco'))?.error?.code).toBe(
      'spreadsheet_account_not_found',
    );
    const mixed = { owner: target.owner, sheet: theirs.sheet };
    expect(stepOf(await runWith(env, sheetsGraph(mixed, append), 'seis'))?.error?.code).toBe('spreadsheet_not_found');
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER]);
    expect(await rowsOf(theirs.sheet.id)).toEqual([HEADER]);
  });

  it('POST …/runs: 422 integration_disconnected while the spreadsheet account is disconnected or unknown; 202 when connected', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me);
    const { contact } = await env.writes('oi');
    const workflowId = await publish(
      env.me,
      env.connection.id,
      sheetsGraph(target, { operation: 'append', values: { Nome: '{contact.name}' } }),
      keyword('equals', 'nunca'),
    );
    const unknownId = await publish(
      env.me,
      env.connection.id,
      sheetsGraph(
        { owner: { id: '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10' }, sheet: target.sheet },
        { operation: 'delete' },
      ),
      keyword('equals', 'nunca'),
      'Desconhecida',
    );
    await expectError(await startByApi(env.me, unknownId, contact.id), 422, {
      code: 'integration_disconnected',
      integration_type: 'sheets',
    });
    await json(await admin('PATCH', `/spreadsheet-accounts/${target.owner.id}`, { status: 'disconnected' }), 200);
    await expectError(await startByApi(env.me, workflowId, contact.id), 422, {
      code: 'integration_disconnected',
      integration_type: 'sheets',
    });
    expect(await runsOf(env.me, workflowId)).toEqual([]);
    await json(await admin('PATCH', `/spreadsheet-accounts/${target.owner.id}`, { status: 'connected' }), 200);
    expect((await startByApi(env.me, workflowId, contact.id)).status).toBe(202);
    await drain();
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER, ['Ana Souza', '', '', '']]);
  });

  it('two runs appending to one tab at once both write their row', async () => {
    const env = await setUp();
    const other = await setUp();
    const target = await spreadsheet(env.me);
    const graph = sheetsGraph(target, { operation: 'append', values: { Nome: '{contact.name}', Interesse: '$input' } });
    await publish(env.me, env.connection.id, graph, ANY);
    // Many contacts of the account write at once; their runs advance in parallel jobs.
    const writers = Array.from({ length: 6 }, (_, i) => ({
      i,
      from: { phone: `+5511977${String(100000 + i)}`, name: `C${i}` },
    }));
    await Promise.all(
      writers.map(({ i, from }) =>
        admin('POST', `/sandbox/connections/${env.connection.id}/inbound`, { from, text: `msg ${i}` }),
      ),
    );
    await Promise.all([h.worker.runOnce(50), h.worker.runOnce(50), h.worker.runOnce(50)]);
    await drain();
    const rows = (await rowsOf(target.sheet.id)) ?? [];
    expect(
      rows
        .slice(1)
        .map((r) => r[2])
        .sort(),
    ).toEqual(writers.map(({ i }) => `msg ${i}`).sort());
    expect(other.me.accountId).not.toBe(env.me.accountId);
  });

  it('the provider locks the spreadsheet: a second writer waits for the first to commit and loses nothing; a rolled-back write leaves nothing', async () => {
    const env = await setUp();
    const target = await spreadsheet(env.me);
    const provider = new SandboxSpreadsheets();
    const db = h.t.database.db;
    const address: SheetAddress = {
      accountId: env.me.accountId,
      spreadsheetAccountId: target.owner.id,
      spreadsheetId: target.sheet.id,
      tabTitle: 'Leads',
    };
    const append = (name: string) => ({ operation: 'append', values: new Map([['Nome', { text: name }]]) }) as const;
    let release = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    let firstWrote = () => {};
    const wrote = new Promise<void>((resolve) => (firstWrote = resolve));
    const first = db.transaction().execute(async (tx) => {
      await provider.write(tx, address, append('primeiro'), new Date());
      firstWrote();
      await held; // the first transaction keeps its lock while the second one starts
    });
    await wrote;
    const second = db.transaction().execute((tx) => provider.write(tx, address, append('segundo'), new Date()));
    setTimeout(release, 150);
    await Promise.all([first, second]);
    expect(await rowsOf(target.sheet.id)).toEqual([HEADER, ['primeiro', '', '', ''], ['segundo', '', '', '']]);

    // A stretch that fails after the write (a crash before its commit) leaves no row behind.
    await expect(
      db.transaction().execute(async (tx) => {
        await provider.write(tx, address, append('nunca'), new Date());
        throw new Error('crash before commit');
      }),
    ).rejects.toThrow('crash before commit');
    expect(await rowsOf(target.sheet.id)).toHaveLength(3);
  });
});

describe('tag slugs ({contact.tag.<slug>})', () => {
  it('slugs as custom-field keys do, cut to 50 characters; later tags of one slug take -2, -3, skipping taken slugs', () => {
    const long = `${'Á'.repeat(49)} b c`;
    const slugs = tagSlugs(['VIP', 'Promoção Verão', 'vip!', 'VIP 2', 'v.i.p', '🔥', long, ' Vip ']);
    expect([...slugs]).toEqual([
      ['vip', 'VIP'],
      ['promocao-verao', 'Promoção Verão'],
      ['vip-2', 'vip!'],
      ['vip-2-2', 'VIP 2'],
      ['v-i-p', 'v.i.p'],
      [`${'a'.repeat(49)}`, long],
      ['vip-3', ' Vip '],
    ]);
  });
});
