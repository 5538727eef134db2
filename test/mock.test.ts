// The mock (`npm run mock`: Prism on the bundled spec behind mock/server.ts) starts and answers like the API:
// a list route, a 404 and 400s in the documented envelope. The typed client talks to it.
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, errorCode } from '../client/index.js';
import { startMock, type RunningMock } from '../mock/server.js';
import { repoRoot } from './helpers.js';

let mock: RunningMock;
const auth = { Authorization: 'Bearer epk_test0000000000000000000000000000000000000000000' };
const CONTACT_ID = '3f1c2a9e-5b7d-4c8e-9a6f-1d2e3b4c5a6f';

beforeAll(async () => {
  mock = await startMock({ port: 0 });
});

afterAll(async () => {
  await mock?.close();
});

async function get(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${mock.url}${path}`, { headers: { ...auth, ...headers } });
  return {
    status: response.status,
    headers: response.headers,
    body: (await response.json()) as Record<string, unknown>,
  };
}

function expectValidationEnvelope(body: Record<string, unknown>, location: string, path: string | null) {
  expect(body.type).toBe('error');
  expect(typeof body.message).toBe('string');
  const context = body.context as {
    code?: unknown;
    details: { location: string; path: string | null; message: string }[];
  };
  expect(context.code).toBeUndefined();
  expect(context.details).toEqual(expect.arrayContaining([expect.objectContaining({ location, path })]));
}

describe('mock', () => {
  it('answers GET /openapi.json with the whole public description it serves, without a key', async () => {
    const response = await fetch(`${mock.url}/openapi.json`);
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('public, max-age=300');
    const published: unknown = JSON.parse(readFileSync(join(repoRoot, 'generated/openapi.json'), 'utf8'));
    expect(await response.json()).toEqual(published);
  });

  it('answers a list route with {data, next_cursor} and the success headers', async () => {
    const { status, headers, body } = await get('/v1/contacts');
    expect(status).toBe(200);
    expect(Array.isArray(body.data)).toBe(true);
    expect(body).toHaveProperty('next_cursor');
    expect(headers.get('cache-control')).toBe('no-store');
    expect(headers.get('ratelimit-limit')).toBe('120');
    expect(headers.get('ratelimit-remaining')).not.toBeNull();
    expect(headers.get('ratelimit-reset')).not.toBeNull();
  });

  it('answers a 404 in the envelope with context.code not_found', async () => {
    const { status, body } = await get(`/v1/contacts/${CONTACT_ID}`, { Prefer: 'code=404' });
    expect(status).toBe(404);
    expect(body).toMatchObject({ type: 'error', context: { code: 'not_found' } });
    expect(typeof body.message).toBe('string');
  });

  it('answers 400 in the envelope for a value out of limits (limit=500)', async () => {
    const { status, body } = await get('/v1/contacts?limit=500');
    expect(status).toBe(400);
    expectValidationEnvelope(body, 'query', 'limit');
  });

  it('answers 400 for an unknown query parameter', async () => {
    const { status, body } = await get('/v1/contacts?nickname=ana');
    expect(status).toBe(400);
    expectValidationEnvelope(body, 'query', 'nickname');
  });

  it('answers 400 for a malformed path id', async () => {
    const { status, body } = await get('/v1/contacts/not-a-uuid');
    expect(status).toBe(400);
    expectValidationEnvelope(body, 'path', 'contactId');
  });

  it('answers 400 for an unknown body field and for a missing required Idempotency-Key', async () => {
    const unknownField = await fetch(`${mock.url}/v1/tags`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'VIP', nickname: 'x' }),
    });
    expect(unknownField.status).toBe(400);
    expectValidationEnvelope((await unknownField.json()) as Record<string, unknown>, 'body', '/nickname');

    const noKey = await fetch(`${mock.url}/v1/conversations/${CONTACT_ID}/messages`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ text: 'Hello' }),
    });
    expect(noKey.status).toBe(400);
    expectValidationEnvelope((await noKey.json()) as Record<string, unknown>, 'header', 'Idempotency-Key');
  });

  it('answers the gateway 401 without a key', async () => {
    const response = await fetch(`${mock.url}/v1/me`);
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: expect.any(String) });
  });

  it('serves the typed client', async () => {
    const api = createClient({ baseUrl: mock.url, apiKey: 'epk_test0000000000000000000000000000000000000000000' });
    const me = await api.GET('/v1/me');
    expect(me.response.status).toBe(200);
    expect(me.data?.api_key.scopes.length).toBeGreaterThan(0);

    const page = await api.GET('/v1/contacts', { params: { query: { limit: 10 } } });
    expect(page.response.status).toBe(200);
    expect(Array.isArray(page.data?.data)).toBe(true);

    const missing = await api.GET('/v1/contacts/{contactId}', {
      params: { path: { contactId: CONTACT_ID } },
      headers: { Prefer: 'code=404' },
    });
    expect(missing.response.status).toBe(404);
    expect(errorCode(missing.error)).toBe('not_found');

    // A route that takes an optional Idempotency-Key gets one filled in.
    const created = await api.POST('/v1/tags', { body: { name: 'VIP' } });
    expect(created.response.status).toBe(201);
  });

  it('sends no example header that describes a state the call did not create', async () => {
    // A first create: no replay, no deprecation of a live route, no debugging header of Prism.
    const created = await fetch(`${mock.url}/v1/tags`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'mock-test-key-1' },
      body: JSON.stringify({ name: 'VIP' }),
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('idempotent-replayed')).toBeNull();
    expect(created.headers.get('deprecation')).toBeNull();
    expect(created.headers.get('sunset')).toBeNull();

    const list = await get('/v1/contacts');
    expect(list.headers.get('deprecation')).toBeNull();
    expect(list.headers.get('sunset')).toBeNull();

    // The ETag names the revision of the automation in the body.
    const workflow = await get(`/v1/workflows/${CONTACT_ID}`);
    expect(workflow.status).toBe(200);
    expect(typeof workflow.body.revision).toBe('number');
    expect(workflow.headers.get('etag')).toBe(`"${String(workflow.body.revision)}"`);

    // A refused request carries no sl-violations header (Prism's, several KB).
    const refused = await fetch(`${mock.url}/v1/tags`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'VIP', nickname: 'x' }),
    });
    expect(refused.status).toBe(400);
    expect(refused.headers.get('sl-violations')).toBeNull();
  });

  it("answers malformed JSON with the API's 400 envelope", async () => {
    const response = await fetch(`${mock.url}/v1/tags`, {
      method: 'POST',
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: '{"name": "VIP',
    });
    expect(response.status).toBe(400);
    expectValidationEnvelope((await response.json()) as Record<string, unknown>, 'body', null);
  });

  it('picks Prefer: example=<name> whatever its status, and names the examples for an unknown name', async () => {
    const notFound = await get(`/v1/workflows/${CONTACT_ID}`, { Prefer: 'example=NotFoundError' });
    expect(notFound.status).toBe(404);
    expect(notFound.body).toMatchObject({ type: 'error', context: { code: 'not_found' } });

    const other = await get(`/v1/workflows/${CONTACT_ID}`, { Prefer: 'example=WhatsappMenuAutomation' });
    expect(other.status).toBe(200);
    expect(other.body.channel).toMatchObject({ type: 'whatsapp' });

    const unknown = await get(`/v1/workflows/${CONTACT_ID}`, { Prefer: 'example=NoSuchExample' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.type).toBe('error');
    expect(String(unknown.body.message)).toContain('NoSuchExample');
    expect(String(unknown.body.message)).toContain('InstagramCommentAutomation');
    expect(String(unknown.body.message)).toContain('NotFoundError');
  });

  it("starts with one banner (address, what it is, how to pick examples), Prism's lines only with --verbose", async () => {
    const child = spawn(join(repoRoot, 'node_modules/.bin/tsx'), ['mock/server.ts', '--port', '0'], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()));
      const deadline = Date.now() + 60_000;
      while (!output.includes('Prefer:') && Date.now() < deadline && child.exitCode === null)
        await new Promise((r) => setTimeout(r, 100));
      await new Promise((r) => setTimeout(r, 300));
      const lines = output.trim().split('\n');
      expect(lines.length).toBeLessThanOrEqual(8);
      const address = /Mock of the Engagement Platform API on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)?.[1];
      expect(address).toBeDefined();
      expect(output).toContain('Prefer: example=<ExampleName>');
      expect(output).not.toMatch(/Prism is listening|\[CLI\]|\[HTTP SERVER\]/);
      // The address printed is the wrapper's (Prism's internal port would skip it): it answers in the envelope.
      const answer = await fetch(`${address ?? ''}/v1/nowhere`, { headers: auth });
      expect(((await answer.json()) as { context?: { code?: string } }).context?.code).toBe('not_found');
    } finally {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await exited;
    }
  }, 70_000);

  describe("checks a sent graph with the server's own validation", () => {
    const WORKFLOW_ID = CONTACT_ID;
    const definition = () => ({
      channel: { type: 'instagram', connection_id: null },
      trigger: { events: ['comment'], match: 'contains', keywords: ['preço'] },
      graph: {
        nodes: {
          root: { type: 'root', data: { next: ['hello'] } },
          hello: { type: 'message', data: { text: 'Oi!', next: [null] } },
        },
      },
    });
    const send = async (method: string, path: string, body: unknown, headers: Record<string, string> = {}) => {
      const response = await fetch(`${mock.url}${path}`, {
        method,
        headers: { ...auth, 'Content-Type': 'application/json', 'Idempotency-Key': 'mock-graph-key-1', ...headers },
        body: JSON.stringify(body),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    };
    const issueCodes = (body: Record<string, unknown>, key: 'context' | 'result') => {
      const list = key === 'context' ? (body.context as { errors?: { code: string }[] }).errors : body.errors;
      return (Array.isArray(list) ? list : []).map((e: { code: string }) => e.code);
    };

    it('creates a valid definition (the example answers)', async () => {
      const created = await send('POST', '/v1/workflows', { title: 'Preço', ...definition() });
      expect(created.status).toBe(201);
    });

    it('answers 422 invalid_graph for a misspelled block field, a misspelled type, no root', async () => {
      const field = definition();
      Object.assign(field.graph.nodes.hello.data, { txt: 'typo' });
      const misspelledField = await send('POST', '/v1/workflows', { title: 'x', ...field });
      expect(misspelledField.status).toBe(422);
      expect(misspelledField.body.context).toMatchObject({ code: 'invalid_graph' });
      expect(issueCodes(misspelledField.body, 'context')).toContain('schema_violation');

      const type = definition();
      type.graph.nodes.hello.type = 'mesage';
      const misspelledType = await send(
        'PATCH',
        `/v1/workflows/${WORKFLOW_ID}`,
        { graph: type.graph },
        { 'If-Match': '"7"' },
      );
      expect(misspelledType.status).toBe(422);
      expect(misspelledType.body.context).toMatchObject({ code: 'invalid_graph' });

      const rootless = definition();
      const { root: _root, ...withoutRoot } = rootless.graph.nodes;
      const noRoot = await send('POST', '/v1/workflows', { title: 'x', ...rootless, graph: { nodes: withoutRoot } });
      expect(noRoot.status).toBe(422);
      expect(issueCodes(noRoot.body, 'context')).toContain('root_missing');
    });

    it('answers the validation body on POST /v1/workflows/validate', async () => {
      const valid = await send('POST', '/v1/workflows/validate', definition());
      expect(valid.status).toBe(200);
      expect(valid.body).toMatchObject({ valid: true, errors: [] });

      const arity = definition();
      arity.graph.nodes.root.data.next = ['hello', 'hello'];
      const invalid = await send('POST', '/v1/workflows/validate', arity);
      expect(invalid.status).toBe(200);
      expect(invalid.body.valid).toBe(false);
      expect(issueCodes(invalid.body, 'result')).toContain('next_arity_invalid');
    });

    it('answers 428 precondition_required for a PATCH without If-Match, as the service does', async () => {
      const response = await send('PATCH', `/v1/workflows/${WORKFLOW_ID}`, { title: 'x' });
      expect(response.status).toBe(428);
      expect(response.body.context).toMatchObject({ code: 'precondition_required' });
    });
  });

  it("answers the media download with the API's 302 to Location, not a fake file", async () => {
    const response = await fetch(`${mock.url}/v1/media/${CONTACT_ID}/content`, { headers: auth, redirect: 'manual' });
    expect(response.status).toBe(302);
    expect(response.headers.get('location')).toMatch(/^https:\/\//);
  });
});
