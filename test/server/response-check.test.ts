// The response check of development and tests (server/http/response-check.ts): a body the description does not
// allow for the operation and status is the server's defect, answered 500 internal_error, whether a handler
// returned it or threw it; production (RESPONSE_VALIDATION=false) sends what the handler gave. One engine: the
// check reads no database.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ApiError } from '../../server/errors.js';
import { adminHandlers } from '../../server/http/admin.js';
import type { Handlers } from '../../server/http/context.js';
import { ResponseChecks, responseProblem } from '../../server/http/response-check.js';
import { startTestApp, type TestApp, type TestCaller } from './harness.js';

const ADMIN_TOKEN = 'response-check-admin-token-0123456789abcdef';

/** listTags answers what the test's request asks for (`X-Test-Answer`: an unknown query parameter is a 400). */
const handlers: Handlers = {
  listTags: async ({ req }) => {
    switch (req.headers['x-test-answer']) {
      case 'page':
        return { status: 200, body: { data: [], next_cursor: null } };
      case 'wrong-item':
        // What the types allow and the description does not: an id that is no uuid, a time that is no time.
        return {
          status: 200,
          body: { data: [{ id: 'tag-1', name: 'vip', created_at: 'yesterday' }], next_cursor: null },
        };
      case 'described-error':
        throw new ApiError(503, 'service_unavailable', 'A status listTags describes, with its envelope.');
      case 'undescribed-code':
        // A status listTags does not describe: its `default` is the internal_error envelope only.
        throw new ApiError(404, 'no_such_thing', 'An envelope with a code the description does not allow.');
      default:
        throw new Error(`no answer ${String(req.headers['x-test-answer'])}`);
    }
  },
};

describe('the response check', () => {
  let checked: TestApp;
  let unchecked: TestApp;
  let c: TestCaller;
  let u: TestCaller;

  beforeAll(async () => {
    const env = { ADMIN_TOKEN, SANDBOX_ENABLED: 'true' };
    checked = await startTestApp('pglite', {
      handlers,
      env,
      adminHandlers: {
        ...adminHandlers,
        adminGetAccount: async (input) => {
          const answered = await adminHandlers.adminGetAccount(input);
          return { ...answered, body: { ...answered.body, created_at: 'not a time' } };
        },
      },
    });
    unchecked = await startTestApp('pglite', {
      handlers,
      env: { ...env, RESPONSE_VALIDATION: 'false' },
      sameDatabaseAs: checked,
    });
    c = await checked.account();
    u = await unchecked.account();
  });
  afterAll(async () => {
    await unchecked?.close();
    await checked?.close();
  });

  const listTags = async (caller: TestCaller, answer: string) => {
    const response = await caller.call('GET', '/v1/tags', { headers: { 'X-Test-Answer': answer } });
    return { status: response.status, body: (await response.json()) as Record<string, unknown> };
  };

  it('sends a body the description allows, and an error envelope of a described status', async () => {
    expect(await listTags(c, 'page')).toEqual({ status: 200, body: { data: [], next_cursor: null } });
    const thrown = await listTags(c, 'described-error');
    expect(thrown.status).toBe(503);
    expect(thrown.body).toMatchObject({ type: 'error', context: { code: 'service_unavailable' } });
  });

  it.each(['wrong-item', 'undescribed-code'])(
    'answers 500 internal_error for a handler that returns %s',
    async (answer) => {
      const answered = await listTags(c, answer);
      expect(answered.status).toBe(500);
      expect(answered.body).toMatchObject({ type: 'error', context: { code: 'internal_error' } });
      // Production does not check: the same handler's body goes out as it was given.
      expect((await listTags(u, answer)).status).toBe(
        { 'undescribed-status': 202, 'undescribed-code': 404 }[answer] ?? 200,
      );
    },
  );

  it('checks the admin API against its own description', async () => {
    const response = await fetch(`${checked.baseUrl}/admin/v1/accounts/${c.accountId}`, {
      headers: { Authorization: `Bearer ${ADMIN_TOKEN}` },
    });
    expect(response.status).toBe(500);
    expect(await response.json()).toMatchObject({ context: { code: 'internal_error' } });
  });

  it('says what is wrong: the field, the status not described, a body where none is described', () => {
    const listTagsOperation = { method: 'get', path: '/v1/tags' };
    expect(responseProblem('public', listTagsOperation, 200, { data: [], next_cursor: null })).toBeUndefined();
    expect(responseProblem('public', listTagsOperation, 200, { data: [{ name: 'x' }], next_cursor: null })).toMatch(
      /GET \/v1\/tags 200: response\/data\/0 must have required property 'id'/,
    );
    // Every public operation describes a `default` answer, the error envelope: any other status must be one.
    expect(responseProblem('public', listTagsOperation, 299, {})).toBe(
      "GET /v1/tags 299: response must have required property 'type'",
    );
    expect(responseProblem('public', { method: 'get', path: '/v1/nothing' }, 200, {})).toBe(
      'GET /v1/nothing describes no response 200',
    );
    // A 5xx is the server's own failure answer (a test's 501 not_implemented among them): not checked.
    expect(responseProblem('public', listTagsOperation, 501, { anything: true })).toBeUndefined();
    // What is checked is the body as JSON: a property left undefined is not sent.
    expect(responseProblem('public', listTagsOperation, 200, { data: [], next_cursor: null, gone: undefined })).toBe(
      undefined,
    );
  });
});

describe('the response check on a description of its own', () => {
  // No response of the API's descriptions holds a write-only property today: this one does, as a secret would.
  const description = {
    openapi: '3.1.0',
    info: { title: 'a test', version: '1' },
    paths: {
      '/things/{id}': {
        get: {
          responses: {
            '200': {
              description: 'A thing.',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Thing' } } },
            },
            '204': { description: 'Nothing.' },
          },
        },
      },
    },
    components: {
      schemas: {
        Thing: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'string', format: 'uuid' }, secret: { type: 'string', writeOnly: true } },
        },
      },
    },
  };
  const checks = new ResponseChecks(description);
  const get = { method: 'get', path: '/things/{id}' };
  const id = '0b6f3a52-8d3c-4c1e-9a43-3c1f7f1f0c11';

  it('never lets a write-only property come back, and follows $ref into the components', () => {
    expect(checks.problem(get, 200, { id })).toBeUndefined();
    expect(checks.problem(get, 200, { id, secret: 'whsec_x' })).toMatch(/GET \/things\/\{id\} 200: response\/secret/);
    expect(checks.problem(get, 200, { id: 'not-a-uuid' })).toMatch(/must match format "uuid"/);
  });

  it('refuses a body where the status describes none, and a status not described', () => {
    expect(checks.problem(get, 204, undefined)).toBeUndefined();
    expect(checks.problem(get, 204, { id })).toBe('GET /things/{id} 204 is described without a body');
    expect(checks.problem(get, 404, {})).toBe('GET /things/{id} describes no response 404');
  });
});
