// Query values as standard clients encode them (Part A: "Query parameter values must be URL-encoded"):
// `URLSearchParams` writes a space as `+`, `encodeURIComponent` leaves `!'()*` as they are, and openapi-fetch, the
// typed client of client/, uses `encodeURIComponent`. Whatever a standard encoder wrote, the server reads the
// decoded text — on every string query parameter of the spec, public and admin, so a new one is covered by
// itself — and `+` is a space and `%2B` a plus, as URLSearchParams means them.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient } from '../../client/index.js';
import { ADMIN_PREFIX } from '../../generated/operations.js';
import { createConnection } from '../../server/domain/console/connections.js';
import { ApiError } from '../../server/errors.js';
import { adminHandlers } from '../../server/http/admin.js';
import type { AdminHandlers, Handlers, UntypedAdminHandler, UntypedHandler } from '../../server/http/context.js';
import { handlers as realHandlers } from '../../server/http/routes/index.js';
import { deref, isObject, listOperations, operationParameters, type JsonObject } from '../../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec } from '../helpers.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import type { SchemaContactList } from '../../generated/api.js';

const TOKEN = 'admin-token-for-tests-0123456789';

/** Free text with what standard encoders leave as it is (`!'()*~`), a space, `+`, and the other reserved ones. */
const FREE_TEXT = "+55 (21) 9630-0197 !*'~&=,;:/?@$";

interface StringQueryParameter {
  /** `GET /v1/contacts phone`, for the test names. */
  label: string;
  operationId: string;
  admin: boolean;
  method: string;
  path: string;
  name: string;
  value: string;
  /** The path parameters (every one a UUID here). */
  pathParams: Record<string, string>;
}

/** A value the parameter's schema accepts, with as many characters encoders treat specially as it allows. */
function sampleFor(schema: JsonObject, label: string): string {
  const sample = Array.isArray(schema.enum)
    ? String(schema.enum[0])
    : typeof schema.const === 'string'
      ? schema.const
      : schema.format === 'date-time'
        ? '2024-05-01T10:00:00.5+03:00'
        : schema.format === 'uuid'
          ? randomUUID()
          : FREE_TEXT;
  const fits =
    (typeof schema.maxLength !== 'number' || sample.length <= schema.maxLength) &&
    (typeof schema.minLength !== 'number' || sample.length >= schema.minLength) &&
    (typeof schema.pattern !== 'string' || new RegExp(schema.pattern, 'u').test(sample)) &&
    (schema.format === undefined || ['date-time', 'uuid'].includes(String(schema.format)));
  if (!fits) throw new Error(`${label}: give this test a sample value that the parameter's schema accepts`);
  return sample;
}

/** Whether the operation answers a server-sent event stream. */
function streams(doc: JsonObject, operation: JsonObject): boolean {
  const responses = isObject(operation.responses) ? operation.responses : {};
  return Object.values(responses).some((raw) => {
    const response = deref<JsonObject>(doc, raw);
    return isObject(response.content) && 'text/event-stream' in response.content;
  });
}

/** Every string query parameter of every route of the spec, with a value its schema accepts. */
function stringQueryParameters(doc: JsonObject): StringQueryParameter[] {
  const out: StringQueryParameter[] = [];
  for (const op of listOperations(doc)) {
    if (op.section !== 'paths') continue;
    // A stream never ends its answer: its `after` is read in event-stream.test.ts.
    if (streams(doc, op.operation)) continue;
    const label = `${op.method.toUpperCase()} ${op.key}`;
    const parameters = operationParameters(doc, op);
    const strings = parameters.filter((p) => p.in === 'query' && deref<JsonObject>(doc, p.schema).type === 'string');
    if (strings.length === 0) continue;
    if (isObject(op.operation.requestBody) && deref<JsonObject>(doc, op.operation.requestBody).required === true)
      throw new Error(`${label}: a route with a required body and query parameters needs a sample body here`);
    const pathParams: Record<string, string> = {};
    for (const p of parameters) {
      if (p.in === 'path') pathParams[String(p.name)] = randomUUID();
      else if (p.required === true)
        throw new Error(`${label}: a required ${String(p.in)} parameter needs a sample here`);
    }
    for (const p of strings) {
      const name = String(p.name);
      out.push({
        label: `${label} ${name}`,
        operationId: String(op.operation.operationId),
        admin: op.key.startsWith(`${ADMIN_PREFIX}/`),
        method: op.method,
        path: op.key,
        name,
        value: sampleFor(deref<JsonObject>(doc, p.schema), `${label} ${name}`),
        pathParams,
      });
    }
  }
  return out;
}

// Both descriptions: the public API's and the vendor console's.
const parameters = [...stringQueryParameters(bundledSpec()), ...stringQueryParameters(adminBundledSpec())];

/** The path of a route with its parameters filled in. */
const pathOf = (p: StringQueryParameter) =>
  p.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(p.pathParams[name]!));

/** The three ways of writing `name=value` that the server must read as `value`. */
const encoders: Record<string, (name: string, value: string) => string> = {
  URLSearchParams: (name, value) => new URLSearchParams({ [name]: value }).toString(),
  encodeURIComponent: (name, value) => `${encodeURIComponent(name)}=${encodeURIComponent(value)}`,
};

describe('the sample of string query parameters', () => {
  it('covers the public and the admin routes', () => {
    expect(parameters.some((p) => p.label === 'GET /v1/contacts phone')).toBe(true);
    expect(parameters.some((p) => p.admin)).toBe(true);
    // The free text needs encoding by both encoders in different ways: the case the validator refused.
    expect(encoders.URLSearchParams!('q', FREE_TEXT)).toContain('+');
    expect(encoders.encodeURIComponent!('q', FREE_TEXT)).toMatch(/[()!*']/);
  });
});

describe.each(engines)('query values as standard clients encode them, on %s', (engine) => {
  let t: TestApp;
  /** The query each operation's handler last received. */
  const received = new Map<string, Record<string, unknown>>();
  const seen = (id: string, query: Record<string, unknown>) => {
    received.set(id, { ...query });
    // What the route answers is not under test: only what its handler was given.
    throw new ApiError(501, 'not_implemented', 'Echo only.');
  };

  beforeAll(async () => {
    const echo = Object.fromEntries(
      parameters.map((p) => [p.operationId, (async ({ query }) => seen(p.operationId, query)) as UntypedHandler]),
    ) as Handlers;
    const adminEcho = Object.fromEntries(
      parameters
        .filter((p) => p.admin)
        .map((p) => [p.operationId, (async ({ req }) => seen(p.operationId, req.query)) as UntypedAdminHandler]),
    ) as Partial<AdminHandlers>;
    t = await startTestApp(engine, {
      env: { ADMIN_TOKEN: TOKEN },
      handlers: { ...realHandlers, ...echo },
      adminHandlers: { ...adminHandlers, ...adminEcho },
      // Many reads in one minute: the limit is not under test.
      rateLimiter: { hit: async () => ({ allowed: true, limit: 1000, remaining: 999, resetSeconds: 60 }) },
    });
  });
  afterAll(async () => t?.close());

  let caller: TestCaller;
  const me = async () => (caller ??= await t.account());
  const authorization = async (p: StringQueryParameter) => `Bearer ${p.admin ? TOKEN : (await me()).apiKey}`;

  /** The parameter reached its handler as the text sent; `answer` tells what happened otherwise. */
  const expectRead = (p: StringQueryParameter, answer: string) =>
    expect(received.get(p.operationId)?.[p.name], answer).toBe(p.value);

  for (const [encoder, encode] of Object.entries(encoders)) {
    it.each(parameters.map((p) => [p.label, p] as const))(`reads %s as ${encoder} writes it`, async (_label, p) => {
      received.delete(p.operationId);
      const res = await fetch(`${t.baseUrl}${pathOf(p)}?${encode(p.name, p.value)}`, {
        method: p.method.toUpperCase(),
        headers: { Authorization: await authorization(p) },
      });
      expectRead(p, `${res.status} ${await res.text()}`);
    });
  }

  it.each(parameters.map((p) => [p.label, p] as const))('reads %s as the typed client sends it', async (_label, p) => {
    received.delete(p.operationId);
    const api = createClient({ baseUrl: t.baseUrl, apiKey: p.admin ? TOKEN : (await me()).apiKey });
    const send = api[p.method.toUpperCase() as 'GET'] as unknown as (
      path: string,
      init: { params: { path: Record<string, string>; query: Record<string, string> } },
    ) => Promise<{ response: Response; error?: unknown }>;
    const { response, error } = await send(p.path, { params: { path: p.pathParams, query: { [p.name]: p.value } } });
    expectRead(p, `${response.status} ${JSON.stringify(error)}`);
  });

  it('reads `+` as a space and `%2B` as a plus', async () => {
    const p = parameters.find((q) => q.label === 'GET /v1/contacts instagram_id')!;
    const res = await fetch(`${t.baseUrl}${pathOf(p)}?instagram_id=a+b%2Bc%20d`, {
      headers: { Authorization: await authorization(p) },
    });
    expect(received.get(p.operationId)?.instagram_id, `${res.status} ${await res.text()}`).toBe('a b+c d');
  });
});

describe.each(engines)('a formatted phone in the contact list filter, on %s', (engine) => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startTestApp(engine);
  });
  afterAll(async () => t?.close());

  it('finds the contact as the typed client and URLSearchParams send it, and a phone no one can have is 422', async () => {
    const me = await t.account();
    const connection = await createConnection(t.database.db, t.clock, me.accountId, {
      channel: 'whatsapp',
      name: 'Loja',
      phone: '+5511930001234',
    });
    const api = createClient({ baseUrl: t.baseUrl, apiKey: me.apiKey });
    const created = await api.POST('/v1/contacts', {
      body: { phone: '+5521963080197', name: 'Ana', connection_id: connection.id, consent: true },
    });
    expect(created.response.status, JSON.stringify(created.error)).toBe(201);
    const id = created.data!.id;

    const phone = '+55 (21) 96308-0197';
    const typed = await api.GET('/v1/contacts', { params: { query: { phone } } });
    expect(typed.response.status, JSON.stringify(typed.error)).toBe(200);
    expect(typed.data!.data.map((c) => c.id)).toEqual([id]);

    const form = await me.call('GET', `/v1/contacts?${new URLSearchParams({ phone }).toString()}`);
    const page = (await form.json()) as SchemaContactList;
    expect(form.status, JSON.stringify(page)).toBe(200);
    expect(page.data.map((c) => c.id)).toEqual([id]);

    const impossible = await api.GET('/v1/contacts', { params: { query: { phone: '+55 (00) 96308-0197' } } });
    expect(impossible.response.status).toBe(422);
    expect((impossible.error as { context?: { code?: string } }).context?.code).toBe('invalid_phone');
  });
});
