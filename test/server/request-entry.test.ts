// The rules every request meets as it enters (server/http/entry-rules.ts, docs/decisions.md "Request entry"), on
// every engine of the run:
// - ids are UUIDs read in their canonical lower-case form wherever they enter: an upper-case contact id in the
//   contact-holdings routes answers at once (it used to loop for ever), and publish, delivery retry, body ids,
//   query ids, graph ids and Idempotency-Key fingerprints treat the two spellings as one id;
// - other spellings of an id are the 400 envelope;
// - integer query parameters accept only decimal digits;
// - a JSON body nested deeper than 64 levels is the 400 envelope, whatever walks it later;
// - HEAD answers like GET, without a body.
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createConnection } from '../../server/domain/console/connections.js';
import { createCustomField } from '../../server/domain/console/custom-fields.js';
import { MAX_JSON_DEPTH, nestsDeeperThan } from '../../server/http/json-depth.js';
import { engines, startTestApp, type TestApp, type TestCaller } from './harness.js';
import { expectError, json } from './http-helpers.js';
import type {
  SchemaContact,
  SchemaContactCustomFields,
  SchemaContactTags,
  SchemaConversationList,
  SchemaTag,
  SchemaValidationError,
  SchemaWorkflow,
} from '../../generated/api.js';

interface Spec {
  paths: Record<string, Record<string, { operationId?: string; parameters?: unknown[]; requestBody?: unknown }>>;
  components: { parameters: Record<string, { name: string; in: string; schema: { type?: string } }> };
}
const readSpec = (file: string) =>
  JSON.parse(readFileSync(new URL(`../../generated/${file}`, import.meta.url), 'utf8')) as Spec;
/** Both descriptions: the public API and the vendor console's. */
const specs = [readSpec('openapi.json'), readSpec('admin-openapi.json')];

/** Every operation of both descriptions as [method, path template], with the description it is in. */
const allOperations = specs.flatMap((spec) =>
  Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map(([method, operation]) => ({ method: method.toUpperCase(), path, operation, spec })),
  ),
);

/** The GET list operations taking `limit` (an integer query parameter), with no path parameter. */
const limitLists = allOperations.filter(
  ({ method, path, operation, spec }) =>
    method === 'GET' &&
    !path.includes('{') &&
    (operation.parameters ?? []).some((p) => {
      const ref = (p as { $ref?: string }).$ref;
      return ref !== undefined && spec.components.parameters[ref.split('/').pop()!]?.name === 'limit';
    }),
);

/** A trigger for the automations these tests create (a keyword they never receive). */
const trigger = { events: ['message'], match: 'any' };

const upper = (id: string) => id.toUpperCase();
const mixed = (id: string) => [...id].map((c, i) => (i % 2 ? c.toUpperCase() : c)).join('');

/** `{"name": [[[…]]]}` with the array nested so the whole body is `depth` levels deep. */
const nestedBody = (depth: number) => `{"name":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`;

describe.each(engines)('request entry on %s', (engine) => {
  let t: TestApp;
  let c: TestCaller;
  let whatsapp: string;
  let phone = 11_930_000_000;

  beforeAll(async () => {
    t = await startTestApp(engine);
    c = await t.account();
    whatsapp = (
      await createConnection(t.database.db, t.clock, c.accountId, {
        channel: 'whatsapp',
        name: 'Loja',
        phone: '+5511930001234',
      })
    ).id;
  });
  afterAll(async () => t?.close());
  // A new rate-limit window for each test: they share one account.
  beforeEach(() => t.clock.advance(60_000));

  const newContact = async () =>
    json<SchemaContact>(
      await c.call('POST', '/v1/contacts', {
        body: { phone: `+55${(phone += 1)}`, name: 'Ana', connection_id: whatsapp, consent: true },
      }),
      201,
    );
  const newTag = async () =>
    json<SchemaTag>(await c.call('POST', '/v1/tags', { body: { name: `tag ${randomUUID()}` } }), 201);

  /** Fails when the server stops answering its liveness probe. */
  const alive = async () =>
    expect((await fetch(`${t.baseUrl}/healthz`, { signal: AbortSignal.timeout(1000) })).status).toBe(200);

  describe('ids', () => {
    it('an upper-case contact id takes a tag off at once, and the server keeps answering (it used to spin)', async () => {
      const contact = await newContact();
      const tag = await newTag();
      await json(await c.call('PUT', `/v1/contacts/${upper(contact.id)}/tags/${upper(tag.id)}`), 200);
      const started = Date.now();
      const removed = await json<SchemaContactTags>(
        await c.call('DELETE', `/v1/contacts/${upper(contact.id)}/tags/${tag.id}`),
        200,
      );
      // It never answered before; a loaded 2-core CI machine does not promise 1 s, a few seconds it does.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(removed).toEqual({ contact_id: contact.id, tags: [] });
      await alive();
    });

    it('an upper-case contact id clears a custom-field value at once', async () => {
      const contact = await newContact();
      const field = await createCustomField(t.database.db, t.clock, c.accountId, {
        label: `Cidade ${randomUUID()}`,
        type: 'text',
      });
      await json(
        await c.call('PATCH', `/v1/contacts/${mixed(contact.id)}/custom-fields`, {
          body: { custom_fields: [{ field_id: upper(field.id), value: 'Recife' }] },
        }),
        200,
      );
      const started = Date.now();
      const cleared = await json<SchemaContactCustomFields>(
        await c.call('DELETE', `/v1/contacts/${upper(contact.id)}/custom-fields/${upper(field.id)}`),
        200,
      );
      // It never answered before; a loaded 2-core CI machine does not promise 1 s, a few seconds it does.
      expect(Date.now() - started).toBeLessThan(5000);
      expect(cleared).toEqual({ contact_id: contact.id, custom_fields: [] });
      await alive();
    });

    it('publish and delivery retry find the resource under an upper-case id, as every read does', async () => {
      const workflow = await json<SchemaWorkflow>(
        await c.call('POST', '/v1/workflows', {
          body: { title: 'Ids', channel: { type: 'whatsapp', connection_id: upper(whatsapp) }, trigger },
        }),
        201,
      );
      const read = await c.call('GET', `/v1/workflows/${upper(workflow.id)}`);
      const etag = read.headers.get('etag')!;
      expect((await json<SchemaWorkflow>(read)).id).toBe(workflow.id);
      const published = await c.call('POST', `/v1/workflows/${upper(workflow.id)}/publish`, {
        headers: { 'If-Match': etag },
      });
      // Whatever publishing decides about this automation, it is not "no such automation".
      expect(published.status, await published.clone().text()).not.toBe(404);
      expect([200, 422]).toContain(published.status);

      const webhook = randomUUID();
      const retried = await c.call('POST', `/v1/webhooks/${upper(webhook)}/deliveries/${upper(randomUUID())}/retry`);
      await expectError(retried, 404, { code: 'not_found' });
    });

    it('ids in a body and in the query are read in lower case', async () => {
      const created = await json<SchemaContact>(
        await c.call('POST', '/v1/contacts', {
          body: { phone: `+55${(phone += 1)}`, name: 'Bia', connection_id: upper(whatsapp), consent: true },
        }),
        201,
      );
      expect(created.channel.connection_id).toBe(whatsapp);
      const page = await json<SchemaConversationList>(
        await c.call('GET', `/v1/conversations?contact_id=${upper(created.id)}`),
      );
      expect(page.data.map((conversation) => conversation.contact.id)).toEqual([created.id]);
    });

    it('ids in an automation graph are stored in lower case', async () => {
      const target = await json<SchemaWorkflow>(
        await c.call('POST', '/v1/workflows', {
          body: { title: 'Target', channel: { type: 'whatsapp', connection_id: whatsapp }, trigger },
        }),
        201,
      );
      const graph = {
        nodes: {
          root: { type: 'root', data: { next: ['go'] } },
          go: { type: 'start', data: { workflow_id: upper(target.id), parallel: true, next: [null] } },
        },
      };
      const made = await json<{ id: string; graph: { nodes: { go: { data: { workflow_id: string } } } } }>(
        await c.call('POST', '/v1/workflows', {
          body: { title: 'Starter', channel: { type: 'whatsapp', connection_id: whatsapp }, trigger, graph },
        }),
        201,
      );
      expect(made.graph.nodes.go.data.workflow_id).toBe(target.id);
    });

    it('one Idempotency-Key with the id spelt two ways is one request: the second is its replay', async () => {
      const contact = await newContact();
      const tag = await newTag();
      const key = randomUUID();
      const first = await c.call('PUT', `/v1/contacts/${contact.id}/tags/${tag.id}`, {
        headers: { 'Idempotency-Key': key },
      });
      expect(first.status).toBe(200);
      const again = await c.call('PUT', `/v1/contacts/${upper(contact.id)}/tags/${upper(tag.id)}`, {
        headers: { 'Idempotency-Key': key },
      });
      expect(again.status).toBe(200);
      expect(again.headers.get('idempotent-replayed')).toBe('true');
    });

    it.each([
      ['braces', (id: string) => `%7B${id}%7D`],
      ['urn:uuid:', (id: string) => `urn:uuid:${id}`],
      ['no hyphens', (id: string) => id.replaceAll('-', '')],
      ['a space around it', (id: string) => `%20${id}`],
      ['one character more', (id: string) => `${id}0`],
    ])('another spelling of an id (%s) is the 400 envelope naming the parameter', async (_name, spell) => {
      const contact = await newContact();
      const res = await c.call('GET', `/v1/contacts/${spell(contact.id)}`);
      const body = await json<SchemaValidationError>(res, 400);
      expect(body.type).toBe('error');
      expect(body.context.details).toEqual([expect.objectContaining({ location: 'path', path: 'contactId' })]);
    });
  });

  describe('integer query parameters', () => {
    it.each([
      'Infinity',
      '-Infinity',
      '1e400',
      'NaN',
      '0x10',
      '%205',
      '5%20',
      '1e2',
      '1.0',
      '%2B5',
      '05',
      '',
      '99999999999999999999',
    ])('limit=%s is the 400 envelope on every paginated list', async (form) => {
      expect(limitLists.length).toBeGreaterThan(5);
      for (const { path } of limitLists) {
        const res = await c.call('GET', `${path}?limit=${form}`);
        const body = await json<SchemaValidationError>(res, 400);
        expect(body.context.details, path).toEqual([expect.objectContaining({ location: 'query', path: 'limit' })]);
      }
    });

    it('a decimal limit inside the range is a page; outside it, 400', async () => {
      await json(await c.call('GET', '/v1/tags?limit=5'), 200);
      await json(await c.call('GET', '/v1/tags?limit=100'), 200);
      await json(await c.call('GET', '/v1/tags?limit=0'), 400);
      await json(await c.call('GET', '/v1/tags?limit=101'), 400);
    });
  });

  describe('JSON nesting', () => {
    const bodyOperations = allOperations.filter(({ operation }) => operation.requestBody !== undefined);

    it(`a body nested ${MAX_JSON_DEPTH + 1} levels, 5,000 levels or 400 KB of [ is the 400 envelope on every route with a body`, async () => {
      expect(bodyOperations.length).toBeGreaterThan(30);
      for (const body of [nestedBody(MAX_JSON_DEPTH + 1), nestedBody(5000), '['.repeat(400_000)])
        for (const { method, path } of bodyOperations) {
          const url = path.replace(/\{[^{}]+\}/g, randomUUID());
          const res = await c.call(method, url, { body });
          const answer = await json<SchemaValidationError>(res, 400);
          expect(answer.context.details, `${method} ${path}`).toEqual([
            { location: 'body', path: null, message: `The JSON body nests deeper than ${MAX_JSON_DEPTH} levels.` },
          ]);
        }
      await alive();
    });

    it(`a body nested ${MAX_JSON_DEPTH} levels reaches the format check`, async () => {
      const res = await c.call('POST', '/v1/tags', { body: nestedBody(MAX_JSON_DEPTH) });
      const answer = await json<SchemaValidationError>(res, 400);
      expect(answer.context.details[0]).toEqual(expect.objectContaining({ location: 'body', path: '/name' }));
    });

    it('brackets inside strings do not count', () => {
      const text = JSON.stringify({ name: '['.repeat(1000), list: [[['a']]] });
      expect(nestsDeeperThan(Buffer.from(text))).toBe(false);
      expect(nestsDeeperThan(Buffer.from(JSON.stringify({ s: 'x\\"[[' }) + '['.repeat(70)))).toBe(true);
    });
  });

  // With response validation off (production), a request with nothing for the request validator to check (an
  // operation declaring no parameter and no body, no query string, no body) skips it (app.ts publicValidation).
  // Every answer is the same as with the validator run: the same statuses and the same bodies.
  describe('the validator skipped when there is nothing to check', () => {
    let production: TestApp;
    beforeAll(async () => {
      production = await startTestApp(engine, { env: { RESPONSE_VALIDATION: 'false' }, sameDatabaseAs: t });
    });
    afterAll(async () => production?.close());

    it('answers as the validated pipeline does, with or without a query or a body', async () => {
      expect(production.config.responseValidation).toBe(false);
      const requests: [string, string, { body?: unknown; headers?: Record<string, string> }][] = [
        ['GET', '/v1/me', {}],
        ['GET', '/v1/me?', {}],
        ['GET', '/v1/me?unknown=1', {}],
        ['GET', '/v1/me', { body: { unknown: 1 } }],
        ['GET', '/v1/me', { body: 'not json', headers: { 'Content-Type': 'text/plain' } }],
        ['GET', '/v1/webhooks', {}],
        ['GET', '/v1/webhooks?limit=5', {}],
        ['GET', '/v1/workflow-graph-schema?x=1', {}],
        ['HEAD', '/v1/me', {}],
      ];
      // node:http rather than fetch, which sends no body with a GET.
      const answer = ([method, path, init]: (typeof requests)[number], baseUrl: string) =>
        new Promise<{ status: number; body: string }>((ok, fail) => {
          const sent =
            init.body === undefined ? undefined : typeof init.body === 'string' ? init.body : JSON.stringify(init.body);
          const headers: Record<string, string> = { Authorization: `Bearer ${c.apiKey}`, ...init.headers };
          if (sent !== undefined) headers['Content-Type'] ??= 'application/json';
          const req = request(`${baseUrl}${path}`, { method, headers }, (res) => {
            let body = '';
            res.setEncoding('utf8');
            res.on('data', (chunk: string) => (body += chunk));
            res.on('end', () => ok({ status: res.statusCode ?? 0, body }));
          });
          req.on('error', fail);
          req.end(sent);
        });
      for (const request of requests) {
        const validated = await answer(request, t.baseUrl);
        const skipped = await answer(request, production.baseUrl);
        expect(skipped, request.join(' ')).toEqual(validated);
      }
      // The validator did refuse what it had to.
      expect((await answer(requests[2]!, production.baseUrl)).status).toBe(400);
      expect((await answer(requests[6]!, production.baseUrl)).status).toBe(400);
    });
  });

  describe('HEAD', () => {
    it('answers like GET, with its status and headers and no body', async () => {
      const contact = await newContact();
      for (const path of ['/v1/tags', `/v1/contacts/${contact.id}`, `/v1/contacts/${randomUUID()}`, '/v1/me']) {
        const get = await c.call('GET', path);
        const head = await c.call('HEAD', path);
        expect(head.status, path).toBe(get.status);
        expect(head.headers.get('content-type'), path).toBe(get.headers.get('content-type'));
        expect(head.headers.get('ratelimit-limit'), path).toBe(get.headers.get('ratelimit-limit'));
        expect(head.headers.get('content-length'), path).toBe(get.headers.get('content-length'));
        expect(await head.text(), path).toBe('');
      }
    });
  });

  describe('JSON answers (respond.ts sendJsonDirectly)', () => {
    it('carry the JSON type with its charset and the length of the bytes sent', async () => {
      const contact = await newContact();
      // Not ASCII: the length is the UTF-8 bytes', not the string's.
      const named = json<SchemaContact>(
        await c.call('POST', '/v1/contacts', {
          body: { phone: `+55${(phone += 1)}`, name: 'Conceição 🌵', connection_id: whatsapp, consent: true },
        }),
        201,
      );
      for (const path of [
        '/v1/me',
        `/v1/contacts/${contact.id}`,
        `/v1/contacts/${randomUUID()}`,
        `/v1/contacts/${(await named).id}`,
      ]) {
        const answer = await c.call('GET', path);
        const bytes = Buffer.from(await answer.arrayBuffer());
        expect(answer.headers.get('content-type'), path).toBe('application/json; charset=utf-8');
        expect(answer.headers.get('content-length'), path).toBe(String(bytes.length));
        expect(JSON.parse(bytes.toString('utf8')), path).toBeTypeOf('object');
      }
    });

    it('are never a 304: the API sends no validators, so If-None-Match has nothing to match', async () => {
      for (const value of ['*', '"anything"']) {
        const answer = await c.call('GET', '/v1/me', { headers: { 'If-None-Match': value } });
        expect(answer.status, value).toBe(200);
        expect(answer.headers.get('etag'), value).toBeNull();
        expect(((await answer.json()) as { account?: { id?: unknown } }).account?.id, value).toBe(c.accountId);
      }
    });
  });
});
