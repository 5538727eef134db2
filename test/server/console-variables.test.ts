// The console's account variables, secrets and spreadsheet accounts (issue 22) on every engine of the run: each
// admin route with its refusals (401, 400, 404, 409), a secret's value absent from every answer, log line and
// audit entry, and the console CLI's commands.
import { execFile } from 'node:child_process';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import type {
  SchemaAdminAccount,
  SchemaAdminAccountVariable,
  SchemaAdminAccountVariableList,
  SchemaAdminAuditLog,
  SchemaAdminSecret,
  SchemaAdminSecretList,
  SchemaAdminSpreadsheetAccount,
} from '../../generated/admin-api.js';
import { ManualClock } from '../../server/clock.js';
import { loadConfig } from '../../server/config.js';
import { adminHandlers } from '../../server/http/admin.js';
import type { AdminHandlers } from '../../server/http/context.js';
import { createApp } from '../../server/http/app.js';
import { MemoryRateLimiter } from '../../server/http/rate-limit.js';
import { createLogger } from '../../server/logger.js';
import { createServices } from '../../server/services.js';
import { repoRoot } from '../helpers.js';
import { appRoutes, call, engines, openTestDatabase, startTestApp, type TestApp } from './harness.js';
import { withMigratedDatabase } from './npm-start.js';
import { expectError, json } from './http-helpers.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const uuid = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
const SECRET_VALUE = 'sk_live_TOP-SECRET-9f8e7d6c';
/** A 400 of the format check: no code, the faults in `details`. */
const formatFault = { details: expect.arrayContaining([expect.anything()]) };

describe.each(engines)('console variables, secrets and spreadsheet accounts on %s', (engine) => {
  let t: TestApp;
  const admin = (method: string, path: string, body?: unknown, token: string | null = TOKEN) =>
    call(t.baseUrl, token ?? undefined, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
  let n = 0;
  const newAccount = async () => {
    n += 1;
    return json<SchemaAdminAccount>(
      await admin('POST', '/accounts', { name: `Conta ${n}`, alias: `vars-${n}-${engine}` }),
      201,
    );
  };
  const variables = async (accountId: string) =>
    (await json<SchemaAdminAccountVariableList>(await admin('GET', `/accounts/${accountId}/variables`))).data;

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => t?.close());

  it('answers 401 with only a message on every route without the admin token', async () => {
    const routes: [string, string][] = [
      ['GET', `/accounts/${uuid}/variables`],
      ['PUT', `/accounts/${uuid}/variables/plano`],
      ['DELETE', `/accounts/${uuid}/variables/plano`],
      ['POST', `/accounts/${uuid}/secrets`],
      ['GET', `/accounts/${uuid}/secrets`],
      ['DELETE', `/secrets/${uuid}`],
      ['POST', `/accounts/${uuid}/spreadsheet-accounts`],
      ['PATCH', `/spreadsheet-accounts/${uuid}`],
    ];
    for (const [method, path] of routes) {
      const res = await admin(method, path, method === 'GET' || method === 'DELETE' ? undefined : {}, null);
      expect(res.status, `${method} ${path}`).toBe(401);
      expect(Object.keys((await res.json()) as object)).toEqual(['message']);
    }
  });

  it('sets, lists, replaces and deletes account variables; a value may be null or empty; case matters', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/variables`;
    expect(await json(await admin('PUT', `${base}/plano`, { value: 'Premium' }))).toEqual({
      name: 'plano',
      value: 'Premium',
    });
    expect(await json(await admin('PUT', `${base}/Plano`, { value: null }))).toEqual({ name: 'Plano', value: null });
    expect(await json(await admin('PUT', `${base}/cupom.de_volta-2`, { value: '' }))).toEqual({
      name: 'cupom.de_volta-2',
      value: '',
    });
    const long = 'x'.repeat(1000);
    await json(await admin('PUT', `${base}/${'n'.repeat(50)}`, { value: long }));
    expect(await variables(account.id)).toEqual<SchemaAdminAccountVariable[]>([
      { name: 'Plano', value: null },
      { name: 'cupom.de_volta-2', value: '' },
      { name: 'n'.repeat(50), value: long },
      { name: 'plano', value: 'Premium' },
    ]);
    // A second PUT replaces the value.
    await json(await admin('PUT', `${base}/plano`, { value: 'Básico' }));
    expect((await variables(account.id)).find((v) => v.name === 'plano')?.value).toBe('Básico');

    const res = await admin('DELETE', `${base}/plano`);
    expect(res.status).toBe(204);
    expect(await res.text()).toBe('');
    await expectError(await admin('DELETE', `${base}/plano`), 404, { code: 'not_found' });
    expect((await variables(account.id)).map((v) => v.name)).toEqual(['Plano', 'cupom.de_volta-2', 'n'.repeat(50)]);
    // Another account does not see them.
    expect(await variables((await newAccount()).id)).toEqual([]);
  });

  it('refuses bad names and bodies with 400 and unknown accounts with 404, changing nothing', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/variables`;
    for (const name of ['com%20espaco', 'caf%C3%A9', 'a%7Bb%7D', 'n'.repeat(51), 'a%2Fb'])
      await expectError(await admin('PUT', `${base}/${name}`, { value: 'x' }), 400, formatFault);
    for (const body of [{}, { value: 7 }, { value: 'x'.repeat(1001) }, { value: 'x', extra: true }, ['x']])
      await expectError(await admin('PUT', `${base}/plano`, body), 400, formatFault);
    expect(await variables(account.id)).toEqual([]);

    await expectError(await admin('PUT', `/accounts/${uuid}/variables/plano`, { value: 'x' }), 404, {
      code: 'not_found',
    });
    await expectError(await admin('GET', `/accounts/${uuid}/variables`), 404, { code: 'not_found' });
    await expectError(await admin('DELETE', `/accounts/${uuid}/variables/plano`), 404, { code: 'not_found' });
    await expectError(await admin('GET', '/accounts/not-a-uuid/variables'), 400, formatFault);
  });

  it('adds secrets without ever answering their value, refuses a repeated name with 409 and deletes them', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/secrets`;
    const answers: string[] = [];
    const keep = async (res: Response) => {
      const text = await res.clone().text();
      answers.push(text);
      return res;
    };
    const created = await json<SchemaAdminSecret>(
      await keep(await admin('POST', base, { name: 'token', value: SECRET_VALUE, domain: 'api.example.com' })),
      201,
    );
    expect(created).toEqual({
      id: expect.any(String),
      name: 'token',
      domain: 'api.example.com',
      created_at: expect.any(String),
    });
    const repeat = await expectError(
      await keep(await admin('POST', base, { name: 'token', value: 'other', domain: 'crm.example.com' })),
      409,
      { code: 'secret_already_exists', secret_id: created.id },
    );
    expect(repeat.message).not.toContain(SECRET_VALUE);
    // The same name in another account is free.
    const other = await newAccount();
    await json(
      await admin('POST', `/accounts/${other.id}/secrets`, { name: 'token', value: 'v', domain: 'x.io' }),
      201,
    );

    const list = await json<SchemaAdminSecretList>(await keep(await admin('GET', base)));
    expect(list).toEqual({ data: [created], next_cursor: null });
    const log = await json<SchemaAdminAuditLog>(await keep(await admin('GET', `/accounts/${account.id}/audit-log`)));
    expect(log.data.map((e) => [e.action, e.resource_type])).toContainEqual(['secret.created', 'secret']);

    const deleted = await keep(await admin('DELETE', `/secrets/${created.id}`));
    expect(deleted.status).toBe(204);
    await expectError(await admin('DELETE', `/secrets/${created.id}`), 404, { code: 'not_found' });
    await expectError(await admin('DELETE', `/secrets/${uuid}`), 404, { code: 'not_found' });
    // The name is free again.
    await json(await admin('POST', base, { name: 'token', value: SECRET_VALUE, domain: 'api.example.com' }), 201);

    for (const text of answers) expect(text).not.toContain(SECRET_VALUE);
    // Neither the audit log rows (details included) hold the value.
    const rows = await t.database.db.selectFrom('audit_log').selectAll().where('account_id', '=', account.id).execute();
    expect(rows.map((r) => r.action)).toEqual(
      expect.arrayContaining(['secret.created', 'secret.deleted', 'secret.created']),
    );
    expect(JSON.stringify(rows)).not.toContain(SECRET_VALUE);
  });

  it('refuses bad secrets with 400 and unknown accounts with 404', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/secrets`;
    const good = { name: 'token', value: SECRET_VALUE, domain: 'api.example.com' };
    const bad = [
      { ...good, name: 'com espaço' },
      { ...good, name: 'n'.repeat(51) },
      { ...good, value: '' },
      { ...good, domain: 'API.example.com' },
      { ...good, domain: 'https://api.example.com' },
      { ...good, domain: 'api.example.com:8443' },
      { ...good, domain: 'api.example.com/v1' },
      { ...good, domain: '-api.example.com' },
      { ...good, domain: '' },
      { name: 'token', value: SECRET_VALUE },
      { ...good, extra: 1 },
    ];
    for (const body of bad) {
      const res = await admin('POST', base, body);
      expect(await res.clone().text()).not.toContain(SECRET_VALUE);
      await expectError(res, 400, formatFault);
    }
    expect((await json<SchemaAdminSecretList>(await admin('GET', base))).data).toEqual([]);
    await expectError(await admin('POST', `/accounts/${uuid}/secrets`, good), 404, { code: 'not_found' });
    await expectError(await admin('GET', `/accounts/${uuid}/secrets`), 404, { code: 'not_found' });
    await expectError(await admin('DELETE', '/secrets/not-a-uuid'), 400, formatFault);
  });

  it('connects spreadsheet accounts and changes their status', async () => {
    const account = await newAccount();
    const created = await json<SchemaAdminSpreadsheetAccount>(
      await admin('POST', `/accounts/${account.id}/spreadsheet-accounts`, { name: 'Planilhas da loja' }),
      201,
    );
    expect(created).toMatchObject({ id: expect.any(String), name: 'Planilhas da loja', status: 'connected' });
    const path = `/spreadsheet-accounts/${created.id}`;
    expect(await json(await admin('PATCH', path, { status: 'disconnected' }))).toMatchObject({
      id: created.id,
      status: 'disconnected',
    });
    expect(await json(await admin('PATCH', path, { status: 'connected' }))).toMatchObject({ status: 'connected' });

    for (const body of [{}, { status: 'paused' }, { status: 'connected', name: 'x' }])
      await expectError(await admin('PATCH', path, body), 400, formatFault);
    for (const body of [{}, { name: '' }, { name: 'x'.repeat(101) }, { name: 'x', status: 'connected' }])
      await expectError(await admin('POST', `/accounts/${account.id}/spreadsheet-accounts`, body), 400, formatFault);
    await expectError(await admin('PATCH', `/spreadsheet-accounts/${uuid}`, { status: 'connected' }), 404, {
      code: 'not_found',
    });
    await expectError(await admin('POST', `/accounts/${uuid}/spreadsheet-accounts`, { name: 'x' }), 404, {
      code: 'not_found',
    });
    const log = await json<SchemaAdminAuditLog>(await admin('GET', `/accounts/${account.id}/audit-log`));
    expect(log.data.map((e) => e.action)).toEqual(
      expect.arrayContaining(['spreadsheet_account.created', 'spreadsheet_account.updated']),
    );
  });
});

describe.each(engines)("a secret's value in the logs on %s", (engine) => {
  it('never appears in a log line, even when a fault carries the request body', async () => {
    const lines: string[] = [];
    const testDb = await openTestDatabase(engine);
    const config = loadConfig({ APP_ENV: 'test', KEY_CACHE_SECONDS: '0', ADMIN_TOKEN: TOKEN });
    // An unexpected fault whose error object holds the body, as a careless driver error might.
    const failing: AdminHandlers = {
      ...adminHandlers,
      adminCreateAccountSecret: async (input) => {
        if (input.body.name === 'boom') throw Object.assign(new Error('insert failed'), { value: input.body.value });
        return adminHandlers.adminCreateAccountSecret(input);
      },
    };
    const app = createApp(
      {
        config,
        database: testDb.database,
        clock: new ManualClock(new Date()),
        logger: createLogger('debug', { write: (chunk: string) => void lines.push(chunk) }),
        rateLimiter: new MemoryRateLimiter(),
        ...createServices(config),
      },
      { ...appRoutes(), adminHandlers: failing },
    );
    const server: Server = await new Promise((ok) => {
      const s = app.listen(0, '127.0.0.1', () => ok(s));
    });
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const admin = (method: string, path: string, body?: unknown) =>
        call(baseUrl, TOKEN, method, `${ADMIN_PREFIX}${path}`, body === undefined ? {} : { body });
      const account = await json<SchemaAdminAccount>(
        await admin('POST', '/accounts', { name: 'Logs', alias: `logs-${engine}` }),
        201,
      );
      const base = `/accounts/${account.id}/secrets`;
      const body = { name: 'token', value: SECRET_VALUE, domain: 'api.example.com' };
      await json(await admin('POST', base, body), 201);
      await expectError(
        await admin('POST', base, body),
        409,
        expect.objectContaining({ code: 'secret_already_exists' }),
      );
      await expectError(await admin('POST', base, { ...body, domain: 'BAD' }), 400, formatFault);
      expect((await admin('POST', base, { ...body, name: 'boom' })).status).toBe(500);
      expect(lines.length).toBeGreaterThan(3);
      expect(lines.some((l) => l.includes('insert failed'))).toBe(true);
      for (const line of lines) expect(line).not.toContain(SECRET_VALUE);
    } finally {
      await new Promise<void>((ok) => server.close(() => ok()));
      await testDb.drop();
    }
  });
});

describe('console CLI: variables, secrets and spreadsheet accounts', () => {
  const run = promisify(execFile);
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');
  const cli = join(repoRoot, 'server/console/cli.ts');
  let dir: string;
  beforeAll(() => {
    // A copy of the run's migrated embedded database: the CLI opens it without PGlite's initdb and the migrations.
    dir = withMigratedDatabase(mkdtempSync(join(tmpdir(), 'ep-console-vars-')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const runCli = async (...args: string[]) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' };
    delete env.DATABASE_URL;
    const out = await run(tsx, [cli, ...args], { cwd: repoRoot, env }).catch(
      (error: { code: number; stdout: string; stderr: string }) => error,
    );
    return { stdout: out.stdout, stderr: out.stderr, code: 'code' in out ? out.code : 0 };
  };

  it('sets a variable without value and adds a secret, printing JSON without the value', async () => {
    const account = JSON.parse((await runCli('account', 'create', '--name', 'CLI', '--alias', 'cli-vars')).stdout) as {
      id: string;
    };
    const variable = await runCli('variable', 'set', '--account', account.id, '--name', 'plano', '--null');
    expect(JSON.parse(variable.stdout)).toEqual({ name: 'plano', value: null });
    const secret = await runCli(
      'secret',
      'create',
      '--account',
      account.id,
      '--name',
      'token',
      '--value',
      SECRET_VALUE,
      '--domain',
      'api.example.com',
    );
    expect(JSON.parse(secret.stdout)).toMatchObject({ name: 'token', domain: 'api.example.com' });
    expect(secret.stdout).not.toContain(SECRET_VALUE);
    // A bad name reaches the service without the API's schema: still refused, exit 1.
    const bad = await runCli('variable', 'set', '--account', account.id, '--name', 'com espaço', '--value', 'x');
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.stderr)).toMatchObject({ status: 400, context: { code: 'invalid_request' } });
  }, 90_000);
});
