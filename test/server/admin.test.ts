// The admin API (the vendor console) on every engine of the run: the admin token, each route with its
// refusals, the custom-field key rule, keys created here working on /v1 and stopping once revoked, the audit
// log; and the console CLI on a temporary embedded database.
import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { Request } from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN_PREFIX, adminOperations, operations } from '../../generated/operations.js';
import { KEY_PATTERN } from '../../server/domain/accounts/keys.js';
import { deriveFieldKey, nextFreeKey } from '../../server/domain/console/custom-fields.js';
import { parseTemplateBody } from '../../server/domain/console/templates.js';
import { adminTokenCheck } from '../../server/http/admin.js';
import { call, engines, startTestApp, type TestApp } from './harness.js';
import { withMigratedDatabase } from './npm-start.js';
import { expectError as expectErrorEnvelope } from './http-helpers.js';
import { repoRoot } from '../helpers.js';
import type { SchemaCustomField } from '../../generated/api.js';
import type { SchemaAdminAccount, SchemaAdminApiKeyCreated, SchemaAdminApiKeyList } from '../../generated/admin-api.js';

const TOKEN = 'admin-token-for-tests-0123456789';
const uuid = '0b6e1d2c-5f7a-4c1e-9a53-2f1d8f4b7c10';
type Json = Record<string, unknown> & { context?: Record<string, unknown> };

describe('custom-field keys', () => {
  it('derive from the label: lowercase, accents removed, runs of other characters as one hyphen', () => {
    expect(deriveFieldKey('Data de nascimento')).toBe('data-de-nascimento');
    expect(deriveFieldKey('  Ação & Reação!! ')).toBe('acao-reacao');
    expect(deriveFieldKey('Çidade/Estado')).toBe('cidade-estado');
    expect(deriveFieldKey('ÅNGSTRÖM_2')).toBe('angstrom-2');
    expect(deriveFieldKey('Straße')).toBe('strasse');
    expect(deriveFieldKey('E-mail')).toBe('e-mail');
    expect(deriveFieldKey('¿?')).toBe('');
  });

  it('take the smallest numeric suffix from 2 the account never used', () => {
    expect(nextFreeKey('email', [])).toBe('email');
    expect(nextFreeKey('email', ['email'])).toBe('email-2');
    expect(nextFreeKey('email', ['email', 'email-2', 'email-4'])).toBe('email-3');
    expect(nextFreeKey('email-2', ['email', 'email-2'])).toBe('email-2-2');
  });
});

describe('template bodies', () => {
  it('count numbered placeholders, note named ones, and refuse gaps and malformed ones', () => {
    expect(parseTemplateBody('Olá {{1}}, pedido {{2}} ({{1}})')).toEqual({ variableCount: 2, named: false });
    expect(parseTemplateBody('Sem variáveis')).toEqual({ variableCount: 0, named: false });
    expect(parseTemplateBody('Oi {{nome}}, {{1}}')).toEqual({ variableCount: 1, named: true });
    expect(() => parseTemplateBody('{{1}} e {{3}}')).toThrow(
      expect.objectContaining({ code: 'invalid_template_body' }),
    );
    expect(() => parseTemplateBody('{{2}}')).toThrow(expect.objectContaining({ code: 'invalid_template_body' }));
    expect(() => parseTemplateBody('{{a b}}')).toThrow(expect.objectContaining({ code: 'invalid_template_body' }));
  });
});

describe('admin token check', () => {
  const req = (authorization?: string) => ({ headers: { authorization } }) as Request;
  it('accepts only the configured token, and nothing when none is configured', () => {
    const check = adminTokenCheck(TOKEN);
    expect(check(req(`Bearer ${TOKEN}`))).toBe(true);
    expect(check(req(`bearer ${TOKEN}`))).toBe(true);
    expect(check(req(`Bearer ${TOKEN}x`))).toBe(false);
    expect(check(req(TOKEN))).toBe(false);
    expect(check(req())).toBe(false);
    expect(adminTokenCheck(undefined)(req('Bearer '))).toBe(false);
    expect(adminTokenCheck(undefined)(req(`Bearer ${TOKEN}`))).toBe(false);
  });
});

describe('the admin operations table', () => {
  it('holds every admin route and none of them is in the public table', () => {
    const admin = Object.values(adminOperations).map((o) => o.path);
    expect(admin.length).toBeGreaterThanOrEqual(13);
    expect(admin.every((p) => p.startsWith(`${ADMIN_PREFIX}/`))).toBe(true);
    expect(Object.values(operations).filter((o) => o.path.startsWith('/admin'))).toEqual([]);
    expect(Object.keys(adminOperations).filter((id) => id in operations)).toEqual([]);
  });
});

describe.each(engines)('admin API on %s', (engine) => {
  let t: TestApp;
  /** A call to the admin API with the admin token (`null`: without any). */
  const admin = (method: string, path: string, body?: unknown, token: string | null = TOKEN) =>
    call(t.baseUrl, token ?? undefined, method, `${ADMIN_PREFIX}${path}`, { body });
  const json = async (res: Response) => (await res.json()) as Json;
  let n = 0;
  const newAccount = async (extra: Record<string, unknown> = {}) => {
    n += 1;
    const res = await admin('POST', '/accounts', { name: `Conta ${n}`, alias: `conta-${n}-${engine}`, ...extra });
    expect(res.status).toBe(201);
    return (await res.json()) as SchemaAdminAccount;
  };
  /** The error envelope with `status` and this code, or (no code) a 400 of the format check with its details. */
  const expectError = (res: Response, status: number, code?: string) =>
    expectErrorEnvelope(
      res,
      status,
      expect.objectContaining(code ? { code } : { details: expect.arrayContaining([expect.anything()]) }),
    );

  beforeAll(async () => {
    t = await startTestApp(engine, { env: { ADMIN_TOKEN: TOKEN } });
  });
  afterAll(async () => t?.close());

  it('answers 401 with only a message without the token, with a wrong one or with an API key', async () => {
    const caller = await t.account();
    const problems: string[] = [];
    for (const [id, op] of Object.entries(adminOperations)) {
      const path = op.path.replace(/\{[^{}]+\}/g, uuid).slice(ADMIN_PREFIX.length);
      for (const token of [null, 'wrong-token-wrong-token-wrong', caller.apiKey]) {
        const res = await admin(op.method.toUpperCase(), path, op.method === 'get' ? undefined : {}, token);
        const body = (await res.json()) as object;
        if (res.status !== 401 || JSON.stringify(Object.keys(body)) !== '["message"]')
          problems.push(`${id} with ${token ?? 'no token'}: ${res.status} ${JSON.stringify(body)}`);
      }
    }
    expect(problems).toEqual([]);
    // An unknown admin path is not revealed either, and the admin token is no API key on /v1.
    expect((await admin('GET', '/nothing', undefined, null)).status).toBe(401);
    expect((await call(t.baseUrl, TOKEN, 'GET', '/v1/me')).status).toBe(401);
  });

  it('answers an unknown admin route with 404 not_found and bad JSON with 400, never 500', async () => {
    await expectError(await admin('GET', '/nothing'), 404, 'not_found');
    await expectError(await admin('POST', '/accounts', '{"name": '), 400);
    await expectError(await admin('GET', '/accounts/not-a-uuid'), 400);
  });

  it('creates, reads and updates accounts', async () => {
    const res = await admin('POST', '/accounts', {
      name: 'Loja Aurora',
      alias: `aurora-${engine}`,
      time_zone: 'america/sao_paulo',
    });
    expect(res.status).toBe(201);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const created = await json(res);
    expect(created).toMatchObject({
      name: 'Loja Aurora',
      alias: `aurora-${engine}`,
      time_zone: 'America/Sao_Paulo',
      suspended: false,
      api_enabled: true,
    });
    const got = await admin('GET', `/accounts/${String(created.id)}`);
    expect(await got.json()).toEqual(created);

    const taken = await expectError(
      await admin('POST', '/accounts', { name: 'Outra', alias: `aurora-${engine}` }),
      409,
      'alias_taken',
    );
    expect(taken.context?.account_id).toBe(created.id);
    await expectError(await admin('POST', '/accounts', { name: '   ', alias: `blank-${engine}` }), 422, 'invalid_name');
    const nul = await admin('POST', '/accounts', { name: 'A\u0000', alias: `nul-${engine}` });
    expect(nul.status).toBe(400);
    expect(await nul.json()).toMatchObject({ context: { details: [{ location: 'body', path: '/name' }] } });
    await expectError(
      await admin('POST', '/accounts', { name: 'X', alias: `tz-${engine}`, time_zone: 'America/Sao_Paolo' }),
      422,
      'invalid_time_zone',
    );
    await expectError(await admin('POST', '/accounts', { name: 'X', alias: 'Not An Alias' }), 400);
    await expectError(await admin('POST', '/accounts', { name: 'X', alias: `extra-${engine}`, plan: 'pro' }), 400);
    await expectError(await admin('POST', '/accounts', { alias: `noname-${engine}` }), 400);

    const patched = await json(
      await admin('PATCH', `/accounts/${String(created.id)}`, { name: 'Loja Aurora Ltda', time_zone: 'UTC' }),
    );
    expect(patched).toMatchObject({ name: 'Loja Aurora Ltda', time_zone: 'UTC', alias: `aurora-${engine}` });
    await expectError(await admin('PATCH', `/accounts/${String(created.id)}`, {}), 400);
    await expectError(
      await admin('PATCH', `/accounts/${String(created.id)}`, { time_zone: 'Mars/Base' }),
      422,
      'invalid_time_zone',
    );
    await expectError(await admin('PATCH', `/accounts/${uuid}`, { suspended: true }), 404, 'not_found');
    await expectError(await admin('GET', `/accounts/${uuid}`), 404, 'not_found');
  });

  it('creates keys that work on GET /v1/me, lists them without the secret, and revokes them for good', async () => {
    const account = await newAccount();
    const res = await admin('POST', `/accounts/${account.id}/keys`, {
      name: 'CRM sync',
      scopes: ['contacts:read', 'messages:send'],
      validity_days: 90,
    });
    expect(res.status).toBe(201);
    const created = (await res.json()) as SchemaAdminApiKeyCreated;
    expect(created.secret).toMatch(KEY_PATTERN);
    expect(created.api_key).toMatchObject({
      account_id: account.id,
      status: 'active',
      scopes: ['contacts:read', 'messages:send'],
    });
    expect(created.secret.startsWith(created.api_key.hint)).toBe(true);
    expect(JSON.stringify(created.api_key)).not.toContain(created.secret);

    const me = await call(t.baseUrl, created.secret, 'GET', '/v1/me');
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ account: { id: account.id }, api_key: { id: created.api_key.id } });

    const listed = await admin('GET', `/accounts/${account.id}/keys`);
    const listText = await listed.text();
    expect(listed.status).toBe(200);
    expect(listText).not.toContain(created.secret);
    expect(JSON.parse(listText)).toMatchObject({ data: [{ id: created.api_key.id }], next_cursor: null });

    const revoked = await json(await admin('DELETE', `/keys/${created.api_key.id}`));
    expect(revoked).toMatchObject({ id: created.api_key.id, status: 'revoked' });
    expect(revoked.revoked_at).not.toBeNull();
    expect((await call(t.baseUrl, created.secret, 'GET', '/v1/me')).status).toBe(401);
    // Irreversible and safe to retry: the same record, the same moment.
    t.clock.advance(5000);
    expect(await json(await admin('DELETE', `/keys/${created.api_key.id}`))).toEqual(revoked);
    await expectError(await admin('DELETE', `/keys/${uuid}`), 404, 'not_found');

    // Refusals: validity and scopes outside the lists, a blank name, an unknown account.
    for (const body of [
      { name: 'k', scopes: [], validity_days: 45 },
      { name: 'k', scopes: ['contacts:admin'], validity_days: 30 },
      { name: 'k', scopes: ['contacts:read', 'contacts:read'], validity_days: 30 },
      { name: 'k', scopes: [] },
    ])
      await expectError(await admin('POST', `/accounts/${account.id}/keys`, body), 400);
    await expectError(
      await admin('POST', `/accounts/${account.id}/keys`, { name: ' ', scopes: [], validity_days: 30 }),
      422,
      'invalid_name',
    );
    await expectError(
      await admin('POST', `/accounts/${uuid}/keys`, { name: 'k', scopes: [], validity_days: 30 }),
      404,
      'not_found',
    );
    await expectError(await admin('GET', `/accounts/${uuid}/keys`), 404, 'not_found');
  });

  it('reports expired keys as expired and refuses a 26th active key', async () => {
    const account = await newAccount();
    const make = (validity_days: number) =>
      admin('POST', `/accounts/${account.id}/keys`, { name: 'k', scopes: [], validity_days });
    expect((await make(30)).status).toBe(201);
    t.clock.advance(31 * 86_400_000);
    try {
      for (let i = 0; i < 25; i++) expect((await make(365)).status).toBe(201);
      const limit = await expectError(await make(365), 409, 'key_limit_reached');
      expect(limit.context?.limit).toBe(25);
      const list = (await (await admin('GET', `/accounts/${account.id}/keys`)).json()) as SchemaAdminApiKeyList;
      expect(list.data.map((k) => k.status)).toEqual(['expired', ...Array<string>(25).fill('active')]);
    } finally {
      t.clock.advance(-31 * 86_400_000);
    }
  });

  it('suspends an account and withdraws its API access: its keys get the gateway 403 with only a message', async () => {
    const caller = await t.account();
    for (const [change, undo] of [
      [{ suspended: true }, { suspended: false }],
      [{ api_enabled: false }, { api_enabled: true }],
    ]) {
      expect((await admin('PATCH', `/accounts/${caller.accountId}`, change)).status).toBe(200);
      const res = await caller.call('GET', '/v1/me');
      expect(res.status).toBe(403);
      expect(Object.keys((await res.json()) as object)).toEqual(['message']);
      expect((await admin('PATCH', `/accounts/${caller.accountId}`, undo)).status).toBe(200);
      expect((await caller.call('GET', '/v1/me')).status).toBe(200);
    }
  });

  it('writes admin changes to the audit log as actor_type admin, never with the key', async () => {
    const account = await newAccount();
    const created = (await (
      await admin('POST', `/accounts/${account.id}/keys`, {
        name: 'audited',
        scopes: ['contacts:read'],
        validity_days: 30,
      })
    ).json()) as SchemaAdminApiKeyCreated;
    await admin('DELETE', `/keys/${created.api_key.id}`);
    await admin('DELETE', `/keys/${created.api_key.id}`);
    const rows = await t.database.db
      .selectFrom('audit_log')
      .selectAll()
      .where('account_id', '=', account.id)
      .orderBy('id')
      .execute();
    expect(rows.map((r) => [r.actor_type, r.action, r.target_id])).toEqual([
      ['admin', 'account.created', account.id],
      ['admin', 'api_key.created', created.api_key.id],
      ['admin', 'api_key.revoked', created.api_key.id],
    ]);
    expect(JSON.stringify(rows)).not.toContain(created.secret);
  });

  it('adds connections, one per number or username, and changes their status with a reason', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/connections`;
    const wa = await json(await admin('POST', base, { channel: 'whatsapp', name: 'Vendas', phone: '+5511930001234' }));
    expect(wa).toMatchObject({
      channel: 'whatsapp',
      name: 'Vendas',
      status: 'connected',
      disconnect_reason: null,
      instagram: null,
      whatsapp: { phone: '+5511930001234' },
    });
    const ig = await json(await admin('POST', base, { channel: 'instagram', name: 'Loja', username: '@Loja.Aurora' }));
    expect(ig).toMatchObject({ channel: 'instagram', instagram: { username: 'loja.aurora' }, whatsapp: null });

    const dup = await expectError(
      await admin('POST', base, { channel: 'whatsapp', name: 'Outra', phone: '+5511930001234' }),
      409,
      'connection_already_exists',
    );
    expect(dup.context?.connection_id).toBe(wa.id);
    await expectError(
      await admin('POST', base, { channel: 'instagram', name: 'L', username: 'LOJA.aurora' }),
      409,
      'connection_already_exists',
    );
    // Another account may connect the same number.
    const other = await newAccount();
    expect(
      (
        await admin('POST', `/accounts/${other.id}/connections`, {
          channel: 'whatsapp',
          name: 'V',
          phone: '+5511930001234',
        })
      ).status,
    ).toBe(201);

    await expectError(
      await admin('POST', base, { channel: 'instagram', name: 'L', phone: '+5511930001235' }),
      422,
      'invalid_identity',
    );
    await expectError(
      await admin('POST', base, { channel: 'whatsapp', name: 'L', username: 'loja' }),
      422,
      'invalid_identity',
    );
    await expectError(await admin('POST', base, { channel: 'whatsapp', name: 'L' }), 422, 'invalid_identity');
    await expectError(await admin('POST', base, { channel: 'whatsapp', name: 'L', phone: '11930001234' }), 400);
    await expectError(await admin('POST', base, { channel: 'telegram', name: 'L', phone: '+5511930001236' }), 400);
    await expectError(
      await admin('POST', base, { channel: 'whatsapp', name: ' ', phone: '+5511930001236' }),
      422,
      'invalid_name',
    );
    await expectError(
      await admin('POST', base, { channel: 'whatsapp', name: 'L', phone: '+5511930001236', status: 'disconnected' }),
      422,
      'invalid_disconnect_reason',
    );
    await expectError(
      await admin('POST', base, {
        channel: 'whatsapp',
        name: 'L',
        phone: '+5511930001236',
        disconnect_reason: 'authorization_lost',
      }),
      422,
      'invalid_disconnect_reason',
    );
    const setup = await json(
      await admin('POST', base, {
        channel: 'whatsapp',
        name: 'Novo número',
        phone: '+5511930001236',
        status: 'disconnected',
        disconnect_reason: 'setup_incomplete',
      }),
    );
    expect(setup).toMatchObject({ status: 'disconnected', disconnect_reason: 'setup_incomplete' });
    await expectError(
      await admin('POST', `/accounts/${uuid}/connections`, { channel: 'whatsapp', name: 'L', phone: '+5511930001237' }),
      404,
      'not_found',
    );

    const path = `/connections/${String(wa.id)}`;
    await expectError(await admin('PATCH', path, { status: 'disconnected' }), 422, 'invalid_disconnect_reason');
    const off = await json(
      await admin('PATCH', path, { status: 'disconnected', disconnect_reason: 'authorization_lost' }),
    );
    expect(off).toMatchObject({ status: 'disconnected', disconnect_reason: 'authorization_lost' });
    expect(await json(await admin('PATCH', path, { name: 'Vendas SP' }))).toMatchObject({
      name: 'Vendas SP',
      status: 'disconnected',
      disconnect_reason: 'authorization_lost',
    });
    await expectError(
      await admin('PATCH', path, { status: 'connected', disconnect_reason: 'authorization_lost' }),
      422,
      'invalid_disconnect_reason',
    );
    expect(await json(await admin('PATCH', path, { status: 'connected' }))).toMatchObject({
      status: 'connected',
      disconnect_reason: null,
    });
    await expectError(
      await admin('PATCH', path, { disconnect_reason: 'disconnected_by_user' }),
      422,
      'invalid_disconnect_reason',
    );
    await expectError(await admin('PATCH', path, { status: 'paused' }), 400);
    await expectError(await admin('PATCH', path, {}), 400);
    await expectError(await admin('PATCH', `/connections/${uuid}`, { name: 'x' }), 404, 'not_found');
  });

  it('derives custom-field keys, with a numeric suffix after a deletion or a repeat, per account', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/custom-fields`;
    const create = async (body: Record<string, unknown>, id = account.id) => {
      const res = await admin('POST', `/accounts/${id}/custom-fields`, body);
      expect(res.status).toBe(201);
      return (await res.json()) as SchemaCustomField;
    };
    expect(await create({ label: 'Data de nascimento', type: 'text' })).toMatchObject({
      name: 'data-de-nascimento',
      label: 'Data de nascimento',
      type: 'text',
      options: null,
    });
    expect((await create({ label: '  Ação & Reação!! ', type: 'number' })).name).toBe('acao-reacao');

    // A repeat: the key is taken, the next field gets -2, then -3.
    const email = await create({ label: 'Email', type: 'text' });
    expect(email.name).toBe('email');
    expect((await create({ label: 'Email', type: 'text' })).name).toBe('email-2');
    // A deletion: the key stays used.
    const deleted = await json(await admin('DELETE', `/custom-fields/${email.id}`));
    expect(deleted).toEqual({ id: email.id, deleted: true });
    await expectError(await admin('DELETE', `/custom-fields/${email.id}`), 404, 'not_found');
    expect((await create({ label: 'EMAIL', type: 'text' })).name).toBe('email-3');
    // A label whose own key looks like a suffixed one.
    expect((await create({ label: 'Email 2', type: 'text' })).name).toBe('email-2-2');
    // Another account never had `email`.
    const other = await newAccount();
    expect((await create({ label: 'Email', type: 'text' }, other.id)).name).toBe('email');

    const plan = await create({
      label: 'Plano',
      type: 'dropdown',
      options: [
        { value: 'pro', label: 'Profissional' },
        { value: 'basic', label: 'Básico' },
      ],
    });
    expect(plan.options).toEqual([
      { value: 'pro', label: 'Profissional' },
      { value: 'basic', label: 'Básico' },
    ]);

    const refusals: [Record<string, unknown>, number, string?, string?][] = [
      [{ label: 'Plano', type: 'dropdown' }, 422, 'invalid_options', 'options_required'],
      [
        { label: 'Nota', type: 'text', options: [{ value: 'a', label: 'A' }] },
        422,
        'invalid_options',
        'options_not_allowed',
      ],
      [
        {
          label: 'P',
          type: 'dropdown',
          options: [
            { value: 'a', label: 'A' },
            { value: 'a', label: 'B' },
          ],
        },
        422,
        'invalid_options',
        'duplicate_value',
      ],
      [
        {
          label: 'P',
          type: 'dropdown',
          options: [
            { value: 'a', label: 'A' },
            { value: 'b', label: 'A' },
          ],
        },
        422,
        'invalid_options',
        'duplicate_label',
      ],
      [{ label: '¿?!', type: 'text' }, 422, 'invalid_label'],
      [{ label: 'X', type: 'date' }, 400],
      [{ label: 'X', type: 'dropdown', options: [] }, 400],
      [{ label: 'X', type: 'text', name: 'x' }, 400],
    ];
    for (const [body, status, code, reason] of refusals) {
      const error = await expectError(await admin('POST', base, body), status, code);
      if (reason) expect(error.context?.reason).toBe(reason);
    }
    await expectError(
      await admin('POST', `/accounts/${uuid}/custom-fields`, { label: 'X', type: 'text' }),
      404,
      'not_found',
    );
  });

  it('gives concurrent fields with one label distinct keys (x, x-2, x-3…)', async () => {
    const account = await newAccount();
    const answers = await Promise.all(
      Array.from({ length: 6 }, () =>
        admin('POST', `/accounts/${account.id}/custom-fields`, { label: 'Cidade', type: 'text' }),
      ),
    );
    expect(answers.map((r) => r.status)).toEqual(Array<number>(6).fill(201));
    const names = await Promise.all(answers.map(async (r) => ((await r.json()) as SchemaCustomField).name));
    expect(names.sort()).toEqual(['cidade', 'cidade-2', 'cidade-3', 'cidade-4', 'cidade-5', 'cidade-6']);
  });

  it('adds whatsapp templates to a connected number, with their placeholders and unsupported features', async () => {
    const account = await newAccount();
    const connect = async (body: Record<string, unknown>, id = account.id) =>
      json(await admin('POST', `/accounts/${id}/connections`, body));
    const wa = await connect({ channel: 'whatsapp', name: 'Vendas', phone: '+5511940001234' });
    const base = `/accounts/${account.id}/templates`;
    const body = (extra: Record<string, unknown> = {}) => ({
      connection_id: wa.id,
      name: 'order_shipped',
      language: 'pt_BR',
      body: 'Olá {{1}}! Seu pedido #{{2}} foi enviado.',
      ...extra,
    });
    const res = await admin('POST', base, body());
    expect(res.status).toBe(201);
    const template = await json(res);
    expect(template).toMatchObject({
      connection_id: wa.id,
      name: 'order_shipped',
      language: 'pt_BR',
      variable_count: 2,
      status: 'approved',
      unsupported_features: [],
    });
    const dup = await expectError(await admin('POST', base, body()), 409, 'template_already_exists');
    expect(dup.context?.template_id).toBe(template.id);
    // Another language is another template.
    expect((await admin('POST', base, body({ language: 'en_US' }))).status).toBe(201);

    const promo = await json(
      await admin(
        'POST',
        base,
        body({
          name: 'black_friday',
          body: 'Oi {{nome}}, {{1}} de desconto!',
          status: 'pending',
          unsupported_features: ['authentication', 'header_media'],
        }),
      ),
    );
    expect(promo).toMatchObject({
      variable_count: 1,
      status: 'pending',
      unsupported_features: ['header_media', 'named_variables', 'authentication'],
    });

    await expectError(
      await admin('POST', base, body({ name: 'gap', body: '{{1}} e {{3}}' })),
      422,
      'invalid_template_body',
    );
    const ig = await connect({ channel: 'instagram', name: 'Loja', username: 'loja' });
    const off = await connect({
      channel: 'whatsapp',
      name: 'Antigo',
      phone: '+5511940001235',
      status: 'disconnected',
      disconnect_reason: 'authorization_lost',
    });
    const other = await newAccount();
    const foreign = await connect({ channel: 'whatsapp', name: 'Outro', phone: '+5511940001299' }, other.id);
    for (const connection of [ig, off, foreign])
      await expectError(
        await admin('POST', base, body({ connection_id: connection.id, name: 'x' })),
        422,
        'invalid_connection',
      );
    await expectError(await admin('POST', base, body({ name: 'Order Shipped' })), 400);
    await expectError(await admin('POST', base, body({ status: 'live' })), 400);
    await expectError(await admin('POST', base, body({ unsupported_features: ['carousel', 'carousel'] })), 400);
    await expectError(await admin('POST', `/accounts/${uuid}/templates`, body()), 404, 'not_found');

    const approved = await json(await admin('PATCH', `/templates/${String(promo.id)}`, { status: 'approved' }));
    expect(approved).toMatchObject({ id: promo.id, status: 'approved' });
    await expectError(await admin('PATCH', `/templates/${String(promo.id)}`, {}), 400);
    await expectError(await admin('PATCH', `/templates/${uuid}`, { status: 'paused' }), 404, 'not_found');
  });

  it('records console uploads', async () => {
    const account = await newAccount();
    const base = `/accounts/${account.id}/uploads`;
    const res = await admin('POST', base, { name: 'tenis.jpg', content_type: 'image/jpeg', size: 384211 });
    expect(res.status).toBe(201);
    expect(await res.json()).toMatchObject({ name: 'tenis.jpg', content_type: 'image/jpeg', size: 384211 });
    for (const bad of [
      { name: 'x', content_type: 'image/jpeg', size: 0 },
      { name: 'x', content_type: 'image/jpeg', size: 100 * 1024 * 1024 + 1 },
      { name: 'x', content_type: 'jpeg', size: 10 },
      { name: 'x', content_type: 'image/jpeg', size: '10' },
    ])
      await expectError(await admin('POST', base, bad), 400);
    await expectError(
      await admin('POST', base, { name: ' ', content_type: 'image/jpeg', size: 1 }),
      422,
      'invalid_name',
    );
    await expectError(
      await admin('POST', `/accounts/${uuid}/uploads`, { name: 'x', content_type: 'image/png', size: 1 }),
      404,
      'not_found',
    );
  });
});

describe('console CLI', () => {
  const run = promisify(execFile);
  const tsx = join(repoRoot, 'node_modules/.bin/tsx');
  const cli = join(repoRoot, 'server/console/cli.ts');
  let dir: string;
  beforeAll(() => {
    // A copy of the run's migrated embedded database: the CLI opens it without PGlite's initdb and the migrations.
    dir = withMigratedDatabase(mkdtempSync(join(tmpdir(), 'ep-console-')));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const env = () => {
    const e: NodeJS.ProcessEnv = { ...process.env, DATA_DIR: dir, LOG_LEVEL: 'silent' };
    delete e.DATABASE_URL;
    delete e.ADMIN_TOKEN;
    return e;
  };

  it('creates an account and a key on the embedded database and prints JSON', async () => {
    const account = await run(tsx, [cli, 'account', 'create', '--name', 'Loja CLI', '--alias', 'loja-cli'], {
      cwd: repoRoot,
      env: env(),
    });
    const created = JSON.parse(account.stdout) as { id: string; alias: string };
    expect(created.alias).toBe('loja-cli');
    const key = await run(
      tsx,
      [
        cli,
        'key',
        'create',
        '--account',
        created.id,
        '--scopes',
        'contacts:read,messages:send',
        '--validity-days',
        '90',
      ],
      { cwd: repoRoot, env: env() },
    );
    const out = JSON.parse(key.stdout) as { secret: string; api_key: { account_id: string; scopes: string[] } };
    expect(out.secret).toMatch(KEY_PATTERN);
    expect(out.api_key).toMatchObject({ account_id: created.id, scopes: ['contacts:read', 'messages:send'] });
    // A refusal: the error envelope on stderr, exit 1.
    const again = await run(tsx, [cli, 'account', 'create', '--name', 'Outra', '--alias', 'loja-cli'], {
      cwd: repoRoot,
      env: env(),
    }).catch((error: { code: number; stderr: string }) => error);
    expect('code' in again && again.code).toBe(1);
    expect(JSON.parse(again.stderr)).toMatchObject({ status: 409, context: { code: 'alias_taken' } });
  }, 60_000);

  it('says clearly when a running server holds the embedded database', async () => {
    const locked = mkdtempSync(join(tmpdir(), 'ep-console-locked-'));
    try {
      mkdirSync(join(locked, 'pglite'), { recursive: true });
      writeFileSync(join(locked, 'pglite', '.lock'), '1'); // pid 1 always runs
      const result = await run(tsx, [cli, 'account', 'get', '--account', uuid], {
        cwd: repoRoot,
        env: { ...env(), DATA_DIR: locked },
      }).catch((error: { code: number; stderr: string }) => error);
      expect('code' in result && result.code).toBe(2);
      expect(result.stderr).toContain('locked by a running server');
    } finally {
      rmSync(locked, { recursive: true, force: true });
    }
  }, 60_000);
});
