// Renders generated/operations.ts: the typed table the server binds handlers with (operationId → method,
// path, scope, rate kind, idempotency), read from the bundled spec, and the rate-limit table (`x-rate-limits`)
// the server and the mock enforce. A scope and a limit live in the spec only.
// The public table (`operations`) holds the `/v1` routes only, read from the public description; the admin API
// (`/admin/v1`, the vendor console) has its own table (`adminOperations`), read from its own description
// (spec/admin.yaml), so the public pipeline never binds an admin route.
import { deref, isObject, listOperations, operationScopes, type JsonObject } from './openapi.js';

export interface OperationRow {
  operationId: string;
  method: string;
  path: string;
  expressPath: string;
  tag: string | null;
  scope: string | null;
  scopeWhenPublished?: string;
  rateKind: string;
  idempotency: string;
  successStatuses: number[];
}

export interface AdminOperationRow {
  operationId: string;
  method: string;
  path: string;
  /** The path below the admin mount point `/admin/v1`, for Express (`/accounts/:accountId`). */
  expressPath: string;
  tag: string | null;
  successStatuses: number[];
}

export const ADMIN_PREFIX = '/admin/v1';

/** The public tracking addresses of automations' link buttons: no key, served before either API. */
export const LINKS_PREFIX = '/links/';

/** The public description itself (GET /openapi.json): no key, served before either API. */
export const DESCRIPTION_PATH = '/openapi.json';

/** Which API a path belongs to; any other prefix is a mistake in the spec. */
function apiOf(path: string): 'public' | 'admin' | 'links' | 'description' {
  if (path.startsWith('/v1/')) return 'public';
  if (path.startsWith(LINKS_PREFIX)) return 'links';
  if (path === DESCRIPTION_PATH) return 'description';
  if (path.startsWith(`${ADMIN_PREFIX}/`)) return 'admin';
  fail(`path ${path} is neither under /v1 nor under ${ADMIN_PREFIX}`);
}

export interface EventRow {
  type: string;
  operationId: string;
  scope: string | null;
}

function fail(message: string): never {
  throw new Error(`operations table: ${message}`);
}

export interface RateLimitTable {
  windowSeconds: number;
  /** Calls per window, by rate kind. */
  kinds: Record<string, number>;
}

const isCount = (value: unknown): value is number => typeof value === 'number' && Number.isInteger(value) && value > 0;

/** The root `x-rate-limits` of the spec: `{window-seconds, kinds: {<kind>: calls per window}}`. */
export function rateLimitTable(doc: JsonObject): RateLimitTable {
  const table = doc['x-rate-limits'];
  if (!isObject(table)) fail('the spec has no x-rate-limits');
  const windowSeconds = table['window-seconds'];
  if (!isCount(windowSeconds)) fail('x-rate-limits.window-seconds is not a positive integer');
  if (!isObject(table.kinds) || !Object.keys(table.kinds).length) fail('x-rate-limits.kinds is empty');
  const kinds: Record<string, number> = {};
  for (const [kind, limit] of Object.entries(table.kinds)) {
    if (!isCount(limit)) fail(`x-rate-limits.kinds.${kind} is not a positive integer`);
    kinds[kind] = limit;
  }
  return { windowSeconds, kinds };
}

export function operationRows(doc: JsonObject): OperationRow[] {
  const rows: OperationRow[] = [];
  const seen = new Set<string>();
  const rateKinds = Object.keys(rateLimitTable(doc).kinds);
  for (const op of listOperations(doc)) {
    if (op.section !== 'paths') continue;
    // The public description is what partners get: an admin path there is a mistake, not a row to skip.
    if (apiOf(op.key) === 'admin') fail(`${op.key} is in the public description; it belongs in spec/admin.yaml`);
    if (apiOf(op.key) !== 'public') continue;
    const where = `${op.method.toUpperCase()} ${op.key}`;
    const operationId = op.operation.operationId;
    if (typeof operationId !== 'string') fail(`${where} has no operationId`);
    if (seen.has(operationId)) fail(`operationId ${operationId} is used twice`);
    seen.add(operationId);
    const scopes = operationScopes(doc, op.operation);
    if (scopes.length > 1) fail(`${where} lists several scopes (${scopes.join(', ')}); the table holds one`);
    const rateKind = op.operation['x-rate-kind'];
    if (typeof rateKind !== 'string' || !rateKinds.includes(rateKind))
      fail(`${where} has no x-rate-kind of x-rate-limits (${rateKinds.join(', ')})`);
    const idempotency = op.operation['x-idempotency'];
    if (idempotency !== 'none' && idempotency !== 'optional' && idempotency !== 'required')
      fail(`${where} has no valid x-idempotency`);
    const successStatuses = successStatusesOf(op.operation);
    const tags = Array.isArray(op.operation.tags) ? op.operation.tags : [];
    const whenPublished = op.operation['x-scope-when-published'];
    rows.push({
      operationId,
      method: op.method,
      path: op.key,
      expressPath: op.key.replace(/\{([^{}]+)\}/g, ':$1'),
      tag: typeof tags[0] === 'string' ? tags[0] : null,
      scope: scopes[0] ?? null,
      ...(typeof whenPublished === 'string' ? { scopeWhenPublished: whenPublished } : {}),
      rateKind,
      idempotency,
      successStatuses,
    });
  }
  return rows;
}

function successStatusesOf(operation: JsonObject): number[] {
  const responses = isObject(operation.responses) ? operation.responses : {};
  return Object.keys(responses)
    .filter((s) => /^2\d\d$/.test(s))
    .map(Number)
    .sort((a, b) => a - b);
}

export function adminOperationRows(doc: JsonObject): AdminOperationRow[] {
  const rows: AdminOperationRow[] = [];
  const seen = new Set<string>();
  for (const op of listOperations(doc)) {
    if (op.section !== 'paths') continue;
    if (apiOf(op.key) !== 'admin') fail(`${op.key} is in the admin description; it belongs in spec/openapi.yaml`);
    const where = `${op.method.toUpperCase()} ${op.key}`;
    const operationId = op.operation.operationId;
    if (typeof operationId !== 'string') fail(`${where} has no operationId`);
    if (seen.has(operationId)) fail(`operationId ${operationId} is used twice`);
    seen.add(operationId);
    // The admin API is not rate-limited per account and has no key scopes: a public-API marker here is a mistake.
    for (const marker of ['x-rate-kind', 'x-idempotency'])
      if (op.operation[marker] !== undefined) fail(`${where} is an admin route and declares ${marker}`);
    if (operationScopes(doc, op.operation).length) fail(`${where} is an admin route and declares key scopes`);
    const tags = Array.isArray(op.operation.tags) ? op.operation.tags : [];
    rows.push({
      operationId,
      method: op.method,
      path: op.key,
      expressPath: op.key.slice(ADMIN_PREFIX.length).replace(/\{([^{}]+)\}/g, ':$1'),
      tag: typeof tags[0] === 'string' ? tags[0] : null,
      successStatuses: successStatusesOf(op.operation),
    });
  }
  return rows;
}

/** The event's `type` const, read from the body schema of the webhook. */
function eventTypeOf(doc: JsonObject, operation: JsonObject): string | undefined {
  const body = deref<JsonObject>(doc, operation.requestBody);
  const content = isObject(body?.content) ? body.content : {};
  const media = content['application/json'];
  if (!isObject(media)) return undefined;
  const visit = (node: unknown, depth: number): string | undefined => {
    if (depth > 10 || !isObject(node)) return undefined;
    const schema = deref<JsonObject>(doc, node);
    const props = isObject(schema.properties) ? schema.properties : {};
    const type = isObject(props.type) ? deref<JsonObject>(doc, props.type) : undefined;
    if (type && typeof type.const === 'string') return type.const;
    for (const key of ['allOf', 'oneOf', 'anyOf'] as const) {
      const list = schema[key];
      if (Array.isArray(list))
        for (const item of list) {
          const found = visit(item, depth + 1);
          if (found) return found;
        }
    }
    return undefined;
  };
  return visit(media.schema, 0);
}

export function eventRows(doc: JsonObject): EventRow[] {
  const rows: EventRow[] = [];
  for (const op of listOperations(doc)) {
    if (op.section !== 'webhooks') continue;
    const operationId = op.operation.operationId;
    if (typeof operationId !== 'string') fail(`webhook ${op.key} has no operationId`);
    const scope = op.operation['x-event-scope'] ?? op.operation['x-scope'];
    rows.push({
      type: eventTypeOf(doc, op.operation) ?? op.key,
      operationId,
      scope: typeof scope === 'string' ? scope : null,
    });
  }
  return rows;
}

function scopeNames(doc: JsonObject, rows: OperationRow[]): string[] {
  const names = new Set<string>();
  const components = isObject(doc.components) ? doc.components : {};
  const schemas = isObject(components.schemas) ? components.schemas : {};
  const scope = isObject(schemas.Scope) ? schemas.Scope : undefined;
  if (scope && Array.isArray(scope.enum)) for (const s of scope.enum) if (typeof s === 'string') names.add(s);
  for (const r of rows) {
    if (r.scope) names.add(r.scope);
    if (r.scopeWhenPublished) names.add(r.scopeWhenPublished);
  }
  return [...names];
}

// JSON literals; prettier (run on the output) turns them into the project's quote style.
const lit = (value: unknown) => JSON.stringify(value);

/** The table of both APIs: `doc` is the public description, `adminDoc` the vendor console's. */
export function renderOperations(doc: JsonObject, adminDoc: JsonObject): string {
  const rows = operationRows(doc);
  const adminRows = adminOperationRows(adminDoc);
  const ids = new Set(rows.map((r) => r.operationId));
  for (const r of adminRows) if (ids.has(r.operationId)) fail(`operationId ${r.operationId} is used twice`);
  const events = eventRows(doc);
  const scopes = scopeNames(doc, rows);
  const limits = rateLimitTable(doc);
  const union = (values: string[]) => (values.length ? values.map(lit).join(' | ') : 'never');
  const lines: string[] = [
    '// GENERATED by `npm run generate` from the bundled descriptions (generated/openapi.yaml and',
    '// generated/admin-openapi.yaml). Do not edit: change',
    "// spec/ (an operation's `security`, `x-rate-kind`, `x-idempotency`; the root's `x-rate-limits`) and run",
    '// `npm run generate`.',
    '//',
    '// The server binds one handler per operationId of this table; the scope, the rate-limit kind and the',
    '// idempotency rule of a route are read from here, so they live in one place: the spec.',
    '',
    "/** Every scope an API key may hold (the `Scope` schema), in the description's order. */",
    `export const SCOPES = ${lit(scopes)} as const;`,
    'export type Scope = (typeof SCOPES)[number];',
    `export type RateKind = ${union(Object.keys(limits.kinds))};`,
    "export type Idempotency = 'none' | 'optional' | 'required';",
    "export type Method = 'get' | 'put' | 'post' | 'delete' | 'patch';",
    '',
    '/** The per-account rate limits (`x-rate-limits`): calls per window of `windowSeconds`, by rate kind. */',
    `export const rateLimits = ${lit(limits)} as const satisfies {`,
    '  readonly windowSeconds: number;',
    '  readonly kinds: Readonly<Record<RateKind, number>>;',
    '};',
    '',
    'export interface OperationInfo {',
    '  /** HTTP method, lowercase as in the spec. */',
    '  readonly method: Method;',
    '  /** OpenAPI path template (`/v1/contacts/{contactId}`). */',
    '  readonly path: string;',
    '  /** The same path for Express (`/v1/contacts/:contactId`). */',
    '  readonly expressPath: string;',
    '  readonly tag: string | null;',
    '  /** The scope the key needs; null when the route needs none (`GET /v1/me`). */',
    '  readonly scope: Scope | null;',
    '  /** A further scope needed when the target is published (`x-scope-when-published`). */',
    '  readonly scopeWhenPublished?: Scope;',
    '  /** Which rate-limit bucket the call counts against (`x-rate-kind`). */',
    '  readonly rateKind: RateKind;',
    '  /** Whether `Idempotency-Key` applies (`x-idempotency`). */',
    '  readonly idempotency: Idempotency;',
    '  /** The success statuses the spec declares. */',
    '  readonly successStatuses: readonly number[];',
    '}',
    '',
    'export const operations = {',
    ...rows.map((r) => {
      const { operationId, ...info } = r;
      return `  ${operationId}: ${lit(info)},`;
    }),
    '} as const satisfies Record<string, OperationInfo>;',
    '',
    'export type OperationId = keyof typeof operations;',
    '',
    'export const operationIds = Object.keys(operations) as OperationId[];',
    '',
    '/** A route of the admin API (the vendor console), mounted at `/admin/v1`: no key scope, no rate kind. */',
    'export interface AdminOperationInfo {',
    '  readonly method: Method;',
    '  /** OpenAPI path template (`/admin/v1/accounts/{accountId}`). */',
    '  readonly path: string;',
    '  /** The path below `/admin/v1`, for Express (`/accounts/:accountId`). */',
    '  readonly expressPath: string;',
    '  readonly tag: string | null;',
    '  /** The success statuses the spec declares. */',
    '  readonly successStatuses: readonly number[];',
    '}',
    '',
    `export const ADMIN_PREFIX = ${lit(ADMIN_PREFIX)};`,
    '',
    'export const adminOperations = {',
    ...adminRows.map((r) => {
      const { operationId, ...info } = r;
      return `  ${operationId}: ${lit(info)},`;
    }),
    '} as const satisfies Record<string, AdminOperationInfo>;',
    '',
    'export type AdminOperationId = keyof typeof adminOperations;',
    '',
    '/** Webhook event types (the `webhooks` section), with the operationId of their description. */',
    'export const events = {',
    ...events.map((e) => `  ${lit(e.type)}: ${lit({ operationId: e.operationId, scope: e.scope })},`),
    '} as const;',
    '',
    'export type EventType = keyof typeof events;',
    '',
    'export const eventTypes = Object.keys(events) as EventType[];',
    '',
  ];
  return lines.join('\n');
}
