// The sandbox spreadsheets (issue 22) through the admin API on every engine of the run: create (201), read (the
// rows as stored), reset (PUT), the 400 format faults, 401 without the admin token, 404 for an unknown
// spreadsheet or spreadsheet account, 422 for two tabs of one title, and 404 on every route while the sandbox is
// off. A spreadsheet survives the app (it lives in the database). docs/decisions.md, "sheets (issue 22)".
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type {
  SchemaAdminAccount,
  SchemaAdminSpreadsheetAccount,
  SchemaSandboxSpreadsheet,
} from '../../generated/admin-api.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { expectError, json } from './http-helpers.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const uuid = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
const formatFault = { details: expect.arrayContaining([expect.anything()]) };
const HEADER = ['Nome', 'Telefone', 'Interesse'];

describe.each(engines)('sandbox spreadsheets on %s', (engine) => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown, token: string | null = TOKEN) =>
    call(t.baseUrl, token ?? undefined, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
  let n = 0;
  async function spreadsheetAccount(): Promise<SchemaAdminSpreadsheetAccount> {
    n += 1;
    const account = await json<SchemaAdminAccount>(
      await admin('POST', '/accounts', { name: `Conta ${n}`, alias: `sheets-${n}-${engine}` }),
      201,
    );
    return json(await admin('POST', `/accounts/${account.id}/spreadsheet-accounts`, { name: 'Planilhas' }), 201);
  }

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'true' } });
  });
  afterAll(async () => t?.close());

  it('creates a spreadsheet (201), reads it back and resets it, keeping its id and account', async () => {
    const owner = await spreadsheetAccount();
    const tabs = [
      { title: 'Leads', rows: [HEADER, ['Bia', '5511', 'Tênis'], ['=1+1', '@x', '']] },
      { title: 'Vazia', rows: [['A']] },
    ];
    const created = await json<SchemaSandboxSpreadsheet>(
      await admin('POST', '/sandbox/spreadsheets', { spreadsheet_account_id: owner.id, name: 'Leads', tabs }),
      201,
    );
    expect(created).toMatchObject({ spreadsheet_account_id: owner.id, name: 'Leads', tabs });
    expect(created.created_at).toBe(created.updated_at);
    const read = await json<SchemaSandboxSpreadsheet>(await admin('GET', `/sandbox/spreadsheets/${created.id}`));
    expect(read).toEqual(created);

    const reset = await json<SchemaSandboxSpreadsheet>(
      await admin('PUT', `/sandbox/spreadsheets/${created.id}`, {
        name: 'Novo',
        tabs: [{ title: 'Leads', rows: [HEADER] }],
      }),
    );
    expect(reset).toMatchObject({
      id: created.id,
      spreadsheet_account_id: owner.id,
      name: 'Novo',
      tabs: [{ title: 'Leads', rows: [HEADER] }],
      created_at: created.created_at,
    });
    expect(await json(await admin('GET', `/sandbox/spreadsheets/${created.id}`))).toEqual(reset);
  });

  it('refuses what does not follow the format (400), changing nothing', async () => {
    const owner = await spreadsheetAccount();
    const good = { spreadsheet_account_id: owner.id, name: 'Leads', tabs: [{ title: 'Leads', rows: [HEADER] }] };
    const bad: unknown[] = [
      {},
      { ...good, name: '' },
      { ...good, name: 'x'.repeat(101) },
      { ...good, tabs: [] },
      { ...good, tabs: [{ title: 'Leads', rows: [] }] },
      { ...good, tabs: [{ title: '', rows: [HEADER] }] },
      { ...good, tabs: [{ title: 'Leads', rows: [[1, 2]] }] },
      { ...good, tabs: [{ title: 'Leads', rows: [HEADER], extra: true }] },
      { ...good, spreadsheet_account_id: 'not-a-uuid' },
      { ...good, unknown: 1 },
    ];
    for (const body of bad) await expectError(await admin('POST', '/sandbox/spreadsheets', body), 400, formatFault);
    const created = await json<SchemaSandboxSpreadsheet>(await admin('POST', '/sandbox/spreadsheets', good), 201);
    const path = `/sandbox/spreadsheets/${created.id}`;
    for (const body of [{}, { name: 'x' }, { name: 'x', tabs: [] }, { ...good }])
      await expectError(await admin('PUT', path, body), 400, formatFault);
    await expectError(await admin('GET', '/sandbox/spreadsheets/not-a-uuid'), 400, formatFault);
    expect(await json(await admin('GET', path))).toEqual(created);
  });

  it('answers 422 for two tabs of one title, 404 for an unknown spreadsheet or spreadsheet account', async () => {
    const owner = await spreadsheetAccount();
    const twice = [
      { title: 'Leads', rows: [HEADER] },
      { title: 'Leads', rows: [['B']] },
    ];
    await expectError(
      await admin('POST', '/sandbox/spreadsheets', { spreadsheet_account_id: owner.id, name: 'x', tabs: twice }),
      422,
      { code: 'invalid_sandbox_action', reason: 'duplicate_tab_title' },
    );
    const one = [{ title: 'Leads', rows: [HEADER] }];
    await expectError(
      await admin('POST', '/sandbox/spreadsheets', { spreadsheet_account_id: uuid, name: 'x', tabs: one }),
      404,
      { code: 'not_found' },
    );
    await expectError(await admin('GET', `/sandbox/spreadsheets/${uuid}`), 404, { code: 'not_found' });
    await expectError(await admin('PUT', `/sandbox/spreadsheets/${uuid}`, { name: 'x', tabs: one }), 404, {
      code: 'not_found',
    });
    const created = await json<SchemaSandboxSpreadsheet>(
      await admin('POST', '/sandbox/spreadsheets', { spreadsheet_account_id: owner.id, name: 'x', tabs: one }),
      201,
    );
    await expectError(await admin('PUT', `/sandbox/spreadsheets/${created.id}`, { name: 'x', tabs: twice }), 422, {
      code: 'invalid_sandbox_action',
      reason: 'duplicate_tab_title',
    });
    expect(
      (await json<SchemaSandboxSpreadsheet>(await admin('GET', `/sandbox/spreadsheets/${created.id}`))).tabs,
    ).toEqual(one);
  });

  it('answers 401 with only a message without the admin token', async () => {
    for (const [method, path] of [
      ['POST', '/sandbox/spreadsheets'],
      ['GET', `/sandbox/spreadsheets/${uuid}`],
      ['PUT', `/sandbox/spreadsheets/${uuid}`],
    ] as const) {
      const res = await admin(method, path, method === 'GET' ? undefined : {}, null);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(Object.keys((await res.json()) as object)).toEqual(['message']);
    }
  });
});

describe.each(engines)('sandbox spreadsheets with the sandbox off on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN, SANDBOX_ENABLED: 'false' } });
  });
  afterAll(async () => t?.close());

  it('answers 404 not_found on every route', async () => {
    const admin = (method: string, path: string, body?: unknown) =>
      call(t.baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
    const body = { name: 'x', tabs: [{ title: 'Leads', rows: [HEADER] }] };
    await expectError(await admin('POST', '/sandbox/spreadsheets', { ...body, spreadsheet_account_id: uuid }), 404, {
      code: 'not_found',
    });
    await expectError(await admin('GET', `/sandbox/spreadsheets/${uuid}`), 404, { code: 'not_found' });
    await expectError(await admin('PUT', `/sandbox/spreadsheets/${uuid}`, body), 404, { code: 'not_found' });
  });
});
