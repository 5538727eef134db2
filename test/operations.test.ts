// Every route follows the shared rules of the seeds (Part A "Endpoints", "Limits", "Idempotency"; Part B and C
// endpoint tables): success headers, the common error answers, the scope, the rate-limit kind and the
// idempotency rule; every event declares its delivery headers and read scope. The tables below are copied
// from the seeds' endpoint tables and are the authority here.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { adminOperations, rateLimits, operations as table } from '../generated/operations.js';
import { RATE_LIMITS, RATE_WINDOW_MS } from '../server/http/rate-limit.js';
import {
  deref,
  isObject,
  listOperations,
  operationParameters,
  operationScopes,
  type JsonObject,
  type OperationRef,
} from '../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec, repoRoot } from './helpers.js';

const doc = bundledSpec();
// The public API: every rule below is about the `/v1` routes. The admin API (`/admin/v1`, the vendor console)
// has its own description, no key scopes, no rate limits and no Idempotency-Key; its own rules are at the end.
const adminDoc = adminBundledSpec();
const paths = listOperations(doc).filter((op) => op.section === 'paths');
const routes = paths.filter((op) => op.key.startsWith('/v1/'));
const adminRoutes = listOperations(adminDoc).filter((op) => op.section === 'paths');
const events = listOperations(doc).filter((op) => op.section === 'webhooks');
const name = (op: OperationRef) => `${op.method.toUpperCase()} ${op.key}`;

/** Scope of each route (Part A, B and C endpoint tables); null: no scope (`GET /v1/me`). */
const SCOPES: Record<string, string | null> = {
  'GET /v1/me': null,
  'GET /v1/contacts': 'contacts:read',
  'POST /v1/contacts': 'contacts:write',
  'GET /v1/contacts/{contactId}': 'contacts:read',
  'PUT /v1/contacts/{contactId}/tags/{tagId}': 'contacts:write',
  'DELETE /v1/contacts/{contactId}/tags/{tagId}': 'contacts:write',
  'PATCH /v1/contacts/{contactId}/custom-fields': 'contacts:write',
  'DELETE /v1/contacts/{contactId}/custom-fields/{fieldId}': 'contacts:write',
  'GET /v1/tags': 'contacts:read',
  'POST /v1/tags': 'contacts:write',
  'GET /v1/tags/{tagId}': 'contacts:read',
  'PATCH /v1/tags/{tagId}': 'contacts:write',
  'DELETE /v1/tags/{tagId}': 'contacts:write',
  'GET /v1/tags/{tagId}/contacts': 'contacts:read',
  'GET /v1/custom-fields': 'contacts:read',
  'GET /v1/connections': 'contacts:read',
  'GET /v1/conversations': 'conversations:read',
  'GET /v1/conversations/{conversationId}': 'conversations:read',
  'GET /v1/conversations/{conversationId}/messages': 'conversations:read',
  'POST /v1/conversations/{conversationId}/messages': 'messages:send',
  'GET /v1/messages/{messageId}': 'conversations:read',
  'POST /v1/media': 'messages:send',
  // The media download link of attachment `url` ("not shown" in the seeds; reading media is conversations:read).
  'GET /v1/media/{mediaId}/content': 'conversations:read',
  'GET /v1/workflow-graph-schema': 'workflows:read',
  'GET /v1/workflows': 'workflows:read',
  'POST /v1/workflows': 'workflows:write',
  'POST /v1/workflows/validate': 'workflows:read',
  'GET /v1/workflows/{workflowId}': 'workflows:read',
  'PATCH /v1/workflows/{workflowId}': 'workflows:write',
  'DELETE /v1/workflows/{workflowId}': 'workflows:write',
  'POST /v1/workflows/{workflowId}/validate': 'workflows:read',
  'POST /v1/workflows/{workflowId}/publish': 'workflows:publish',
  'POST /v1/workflows/{workflowId}/unpublish': 'workflows:publish',
  'GET /v1/workflows/{workflowId}/versions': 'workflows:read',
  'GET /v1/workflows/{workflowId}/versions/{versionId}': 'workflows:read',
  'GET /v1/workflows/{workflowId}/runs': 'workflows:read',
  'POST /v1/workflows/{workflowId}/runs': 'messages:send',
  'GET /v1/workflows/{workflowId}/runs/{runId}': 'workflows:read',
  'GET /v1/folders': 'workflows:read',
  'POST /v1/folders': 'workflows:write',
  'PATCH /v1/folders/{folderId}': 'workflows:write',
  'DELETE /v1/folders/{folderId}': 'workflows:write',
  'GET /v1/replies-lists': 'workflows:read',
  'POST /v1/replies-lists': 'workflows:write',
  'GET /v1/replies-lists/{repliesListId}': 'workflows:read',
  'PATCH /v1/replies-lists/{repliesListId}': 'workflows:write',
  'DELETE /v1/replies-lists/{repliesListId}': 'workflows:write',
  'GET /v1/webhooks': 'webhooks:read',
  'POST /v1/webhooks': 'webhooks:write',
  'GET /v1/webhooks/{webhookId}': 'webhooks:read',
  'PATCH /v1/webhooks/{webhookId}': 'webhooks:write',
  'DELETE /v1/webhooks/{webhookId}': 'webhooks:write',
  'POST /v1/webhooks/{webhookId}/rotate-secret': 'webhooks:write',
  'POST /v1/webhooks/{webhookId}/test': 'webhooks:write',
  'GET /v1/webhooks/{webhookId}/deliveries': 'webhooks:read',
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry': 'webhooks:write',
};

/** Rate kinds (Part A "Limits"): every GET and the validations are reads; send, start run, test, resend are sends. */
const SENDS = new Set([
  'POST /v1/conversations/{conversationId}/messages',
  'POST /v1/workflows/{workflowId}/runs',
  'POST /v1/webhooks/{webhookId}/test',
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
]);
const READ_POSTS = new Set(['POST /v1/workflows/validate', 'POST /v1/workflows/{workflowId}/validate']);
function expectedRateKind(route: string): string {
  if (route.startsWith('GET ') || READ_POSTS.has(route)) return 'read';
  return SENDS.has(route) ? 'send' : 'write';
}

/** Idempotency-Key: required on send and run start; not on test and resend (Part C); optional on other writes. */
const IDEMPOTENCY_REQUIRED = new Set([
  'POST /v1/conversations/{conversationId}/messages',
  'POST /v1/workflows/{workflowId}/runs',
]);
const IDEMPOTENCY_NONE = new Set([
  'POST /v1/webhooks/{webhookId}/test',
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry',
]);
function expectedIdempotency(route: string): string[] {
  if (route.startsWith('GET ')) return ['none'];
  if (IDEMPOTENCY_REQUIRED.has(route)) return ['required'];
  if (IDEMPOTENCY_NONE.has(route)) return ['none'];
  if (READ_POSTS.has(route)) return ['none', 'optional']; // validation saves nothing
  return ['optional'];
}

/** Success statuses where the seeds give them ("delete" without a status shown is left to the spec). */
const SUCCESS: Record<string, number[]> = {
  'POST /v1/contacts': [200, 201],
  'POST /v1/tags': [201],
  'DELETE /v1/tags/{tagId}': [204],
  'POST /v1/conversations/{conversationId}/messages': [201],
  'POST /v1/workflows': [201],
  'POST /v1/workflows/{workflowId}/runs': [202],
  'POST /v1/folders': [201],
  'POST /v1/replies-lists': [201],
  'POST /v1/webhooks': [201],
  'POST /v1/webhooks/{webhookId}/deliveries/{deliveryId}/retry': [202],
  'POST /v1/workflows/{workflowId}/publish': [200],
  'POST /v1/workflows/{workflowId}/unpublish': [200],
  'POST /v1/webhooks/{webhookId}/rotate-secret': [200],
  'POST /v1/webhooks/{webhookId}/test': [200],
};
function expectedSuccess(route: string): number[] | undefined {
  if (SUCCESS[route]) return SUCCESS[route];
  // The redirect, and the file a client that follows it gets (from the media storage).
  if (route === 'GET /v1/media/{mediaId}/content') return [200, 302];
  if (route.startsWith('GET ') || route.startsWith('PATCH ') || route.startsWith('PUT ')) return [200];
  return undefined;
}

/** Part C: the scope that reads each event's data. */
function expectedEventScope(type: string): string | undefined {
  if (/^(message\.|comment\.|live_comment\.)/.test(type)) return 'conversations:read';
  if (/^(contact\.|connection\.)/.test(type)) return 'contacts:read';
  if (type === 'workflow_run.ended' || type === 'link.clicked') return 'workflows:read';
  return undefined;
}

const SUCCESS_HEADERS = ['Cache-Control', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];
const COMMON_STATUSES = ['400', '401', '403', '429', 'default'];
const DELIVERY_HEADERS = [
  'Service-Signature',
  'Service-Event-Id',
  'Service-Event-Type',
  'Service-Delivery-Attempt',
  'User-Agent',
];

function responsesOf(op: OperationRef, from: JsonObject = doc): [string, JsonObject][] {
  const responses = isObject(op.operation.responses) ? op.operation.responses : {};
  return Object.entries(responses).map(([status, raw]) => [status, deref<JsonObject>(from, raw)]);
}

describe('routes', () => {
  it('are exactly the routes of the endpoint tables, plus the media download', () => {
    expect(routes.map(name).sort()).toEqual(Object.keys(SCOPES).sort());
  });

  it.each(routes.map((op) => [name(op), op] as const))('%s follows the shared rules', (route, op) => {
    const problems: string[] = [];
    const responses = responsesOf(op);
    const statuses = responses.map(([s]) => s);

    for (const status of COMMON_STATUSES) if (!statuses.includes(status)) problems.push(`declares no ${status}`);
    for (const [status, response] of responses) {
      if (route === 'GET /v1/media/{mediaId}/content' && status === '200') {
        // The file, answered by the storage link after the 302: a binary body, no API headers.
        const content = isObject(response.content) ? response.content : {};
        const binary = content['application/octet-stream'];
        if (!isObject(binary) || !isObject(binary.schema) || binary.schema.format !== 'binary')
          problems.push('200 is not a binary body');
        continue;
      }
      if (/^[23]\d\d$/.test(status)) {
        const headers = isObject(response.headers) ? Object.keys(response.headers) : [];
        for (const h of SUCCESS_HEADERS) if (!headers.includes(h)) problems.push(`${status} lacks header ${h}`);
      }
      if (status === '429') {
        const headers = isObject(response.headers) ? Object.keys(response.headers) : [];
        if (!headers.includes('Retry-After')) problems.push('429 lacks Retry-After');
      }
    }

    const scopes = operationScopes(doc, op.operation);
    const expectedScope = SCOPES[route];
    expect(expectedScope, `${route} is not in the seeds' tables`).not.toBeUndefined();
    if (JSON.stringify(scopes) !== JSON.stringify(expectedScope ? [expectedScope] : []))
      problems.push(`scope ${JSON.stringify(scopes)}, expected ${expectedScope ?? 'none'}`);
    if (route === 'DELETE /v1/workflows/{workflowId}') {
      const extra = op.operation['x-scope-when-published'];
      const description = String(op.operation.description ?? '');
      if (extra !== 'workflows:publish' && !description.includes('workflows:publish'))
        problems.push('does not say that deleting a published automation needs workflows:publish');
    }

    if (op.operation['x-rate-kind'] !== expectedRateKind(route))
      problems.push(`x-rate-kind ${String(op.operation['x-rate-kind'])}, expected ${expectedRateKind(route)}`);

    const idempotency = String(op.operation['x-idempotency']);
    if (!expectedIdempotency(route).includes(idempotency))
      problems.push(`x-idempotency ${idempotency}, expected ${expectedIdempotency(route).join(' or ')}`);
    const key = operationParameters(doc, op).find(
      (p) => p.in === 'header' && String(p.name).toLowerCase() === 'idempotency-key',
    );
    if (idempotency === 'required' && key?.required !== true)
      problems.push('Idempotency-Key must be a required header');
    if (idempotency === 'optional' && (!key || key.required === true))
      problems.push('Idempotency-Key must be an optional header');
    if (idempotency === 'none' && key) problems.push('declares Idempotency-Key but x-idempotency is none');
    if (idempotency !== 'none') {
      for (const [status, code] of [
        ['409', 'idempotency_in_progress'],
        ['422', 'idempotency_key_reused'],
      ] as const)
        if (!statuses.includes(status)) problems.push(`takes Idempotency-Key but declares no ${status} (${code})`);
    }

    const success = statuses.filter((s) => /^[23]\d\d$/.test(s)).map(Number);
    const expectedStatuses = expectedSuccess(route);
    if (expectedStatuses && JSON.stringify(success) !== JSON.stringify(expectedStatuses))
      problems.push(`success statuses ${JSON.stringify(success)}, expected ${JSON.stringify(expectedStatuses)}`);

    // Every response carrying a workflow declares its revision in ETag.
    for (const [status, response] of responses) {
      if (!/^2\d\d$/.test(status)) continue;
      const content = isObject(response.content) ? response.content : {};
      const media = content['application/json'];
      const schema = isObject(media) ? media.schema : undefined;
      if (isObject(schema) && schema.$ref === '#/components/schemas/Workflow') {
        const headers = isObject(response.headers) ? Object.keys(response.headers) : [];
        if (!headers.includes('ETag')) problems.push(`${status} carries a workflow without ETag`);
      }
    }

    expect(problems).toEqual([]);
  });

  it('declare the idempotency errors of Part A wherever they take an Idempotency-Key', () => {
    const codesOf = (schema: unknown): string[] => {
      if (!isObject(schema)) return [];
      const node = deref<JsonObject>(doc, schema);
      const nested = (['oneOf', 'anyOf'] as const).flatMap((k) => {
        const list = node[k];
        return Array.isArray(list) ? list.flatMap(codesOf) : [];
      });
      const context = isObject(node.properties) ? deref<JsonObject>(doc, node.properties.context) : undefined;
      const code = context && isObject(context.properties) ? deref<JsonObject>(doc, context.properties.code) : {};
      return typeof code.const === 'string' ? [...nested, code.const] : nested;
    };
    const problems: string[] = [];
    for (const op of routes) {
      if (op.operation['x-idempotency'] === 'none') continue;
      const responses = new Map(responsesOf(op));
      const codesAt = (status: string) => {
        const content = responses.get(status)?.content;
        return isObject(content) && isObject(content['application/json'])
          ? codesOf(content['application/json'].schema)
          : [];
      };
      // Rules 2, 3, 4 (a replay of a request that stopped before answering) and 5.
      for (const [status, code] of [
        ['422', 'idempotency_key_reused'],
        ['409', 'idempotency_in_progress'],
        ['409', 'outcome_unknown'],
        ['503', 'service_unavailable'],
      ] as const) {
        if (!codesAt(status).includes(code)) problems.push(`${name(op)}: no ${status} ${code}`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('are in the generated operations table with the spec values', () => {
    for (const op of routes) {
      const id = String(op.operation.operationId) as keyof typeof table;
      const row = table[id];
      expect(row, `${name(op)} (${id})`).toBeDefined();
      expect([row.method, row.path, row.rateKind, row.idempotency]).toEqual([
        op.method,
        op.key,
        op.operation['x-rate-kind'],
        op.operation['x-idempotency'],
      ]);
    }
  });

  it("count against one rate-limit table: the spec's x-rate-limits, generated as rateLimits, enforced by the server", () => {
    expect(doc['x-rate-limits']).toEqual({ 'window-seconds': rateLimits.windowSeconds, kinds: rateLimits.kinds });
    expect(RATE_LIMITS).toEqual(rateLimits.kinds);
    expect(RATE_WINDOW_MS).toBe(rateLimits.windowSeconds * 1000);
    const kinds = Object.keys(rateLimits.kinds);
    expect(routes.filter((op) => !kinds.includes(String(op.operation['x-rate-kind']))).map(name)).toEqual([]);
  });

  it('are the values the RateLimit-Limit header and the rate_limited error declare', () => {
    const components = doc.components as JsonObject;
    const header = (components.headers as Record<string, JsonObject>).RateLimitLimit!;
    const stated = [...String(header.description).matchAll(/\b([a-z]+) (\d+)\b/g)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(stated)).toEqual(rateLimits.kinds);
    const limits = Object.values(rateLimits.kinds).sort((a, b) => a - b);
    expect((header.schema as JsonObject).enum).toEqual(limits);
    const error = (components.schemas as Record<string, JsonObject>).RateLimitedError!;
    const context = (error.properties as Record<string, JsonObject>).context!;
    expect((context.properties as Record<string, JsonObject>).kind!.enum).toEqual(Object.keys(rateLimits.kinds));
  });

  it("are stated in the getting-started guide's table as in x-rate-limits", () => {
    const guide = readFileSync(join(repoRoot, 'docs/getting-started.md'), 'utf8');
    const rows = [...guide.matchAll(/^\| `([a-z]+)` +\| (\d+) +\|/gm)].map((m) => [m[1], Number(m[2])]);
    expect(Object.fromEntries(rows)).toEqual(rateLimits.kinds);
    // The guide speaks of minutes ("Calls per minute").
    expect(guide).toContain('in one-minute windows');
    expect(rateLimits.windowSeconds).toBe(60);
  });
});

describe('admin routes', () => {
  it('are every path of the admin description, all under /admin/v1; the public one has /v1, links and itself', () => {
    expect(adminRoutes.length).toBeGreaterThan(0);
    expect(adminRoutes.filter((op) => !op.key.startsWith('/admin/v1/')).map(name)).toEqual([]);
    expect(paths.filter((op) => !routes.includes(op)).map(name)).toEqual(['GET /openapi.json', 'GET /links/{token}']);
  });
});

describe('tracked links', () => {
  it('GET /links/{token} takes no credential at all: contacts open it in a browser', () => {
    const [link] = paths.filter((op) => op.key.startsWith('/links/'));
    expect(link?.operation.security).toEqual([]);
    expect(Object.keys(isObject(link?.operation.responses) ? link.operation.responses : {})).toEqual(
      expect.arrayContaining(['302', '404', '410']),
    );
  });

  it.each(adminRoutes.map((op) => [name(op), op] as const))('%s follows the admin rules', (_route, op) => {
    const problems: string[] = [];
    const responses = responsesOf(op, adminDoc);
    const statuses = responses.map(([s]) => s);
    for (const status of ['400', '401', 'default'])
      if (!statuses.includes(status)) problems.push(`declares no ${status}`);
    if (statuses.includes('403')) problems.push('declares a public-API 403');
    // No per-account rate limit on admin routes: a 429 there is only the event stream's too_many_streams.
    const tooMany = responses.find(([s]) => s === '429');
    if (tooMany && !JSON.stringify(tooMany[1]).includes('too_many_streams'))
      problems.push('declares a 429 other than too_many_streams');
    for (const [status, response] of responses)
      if (/^2\d\d$/.test(status)) {
        const headers = isObject(response.headers) ? Object.keys(response.headers) : [];
        if (!headers.includes('Cache-Control')) problems.push(`${status} lacks header Cache-Control`);
      }
    if (JSON.stringify(op.operation.security) !== JSON.stringify([{ AdminToken: [] }]))
      problems.push(`security ${JSON.stringify(op.operation.security)}, expected [{AdminToken: []}]`);
    for (const marker of ['x-rate-kind', 'x-idempotency'])
      if (op.operation[marker] !== undefined) problems.push(`declares ${marker}`);
    if (operationParameters(adminDoc, op).some((p) => p.in === 'header' && /^idempotency-key$/i.test(String(p.name))))
      problems.push('declares Idempotency-Key');
    expect(problems).toEqual([]);
  });

  it('are in the admin operations table, never in the public one', () => {
    for (const op of adminRoutes) {
      const id = String(op.operation.operationId);
      expect(id in table, `${name(op)} (${id}) in the public table`).toBe(false);
      const row = adminOperations[id as keyof typeof adminOperations];
      expect(row, `${name(op)} (${id})`).toBeDefined();
      expect([row.method, row.path]).toEqual([op.method, op.key]);
    }
    expect(Object.keys(adminOperations).length).toBe(adminRoutes.length);
  });
});

describe('webhook events', () => {
  it.each(events.map((op) => [op.key, op] as const))('%s declares its delivery headers and read scope', (type, op) => {
    const problems: string[] = [];
    const headers = operationParameters(doc, op)
      .filter((p) => p.in === 'header')
      .map((p) => String(p.name).toLowerCase());
    for (const h of DELIVERY_HEADERS) if (!headers.includes(h.toLowerCase())) problems.push(`lacks header ${h}`);
    const scope = expectedEventScope(type);
    if (scope && op.operation['x-event-scope'] !== scope)
      problems.push(`x-event-scope ${String(op.operation['x-event-scope'])}, expected ${scope}`);
    expect(problems).toEqual([]);
  });
});
