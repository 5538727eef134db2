// The code samples of the reference (`x-codeSamples`, shown by Redoc): for every operation of a bundled
// description, a curl command and a TypeScript call with openapi-fetch's `createClient<paths>`, built from the
// operation's first named request example. `npm run generate` adds them to the bundled files only (the source
// spec stays readable); test/server/code-samples.test.ts runs the curl ones against the server and type-checks
// the TypeScript ones against generated/api.ts.
//
// Conventions a sample follows (the test reads them):
// - `$BASE_URL` and `$API_KEY` (`process.env.BASE_URL`, `process.env.API_KEY`); path ids are variables named
//   after the parameter (`$CONTACT_ID` / `contactId` from `process.env.CONTACT_ID`), the example's id in a comment.
// - A required `Idempotency-Key` is `$IDEMPOTENCY_KEY` in curl (a new UUID per request, reused for its retry) and
//   `randomUUID()` in TypeScript; a required `If-Match` is `$IF_MATCH` / `process.env.IF_MATCH` (the ETag read).
// - The first line of the curl sample is `# → <status>`: the success the operation documents for this call.
// - Ids inside a body are the example's (its account's connection, tags, fields…): a partner puts theirs.
import { deref, isObject, listOperations, operationParameters, type Json, type JsonObject } from './openapi.js';

export interface CodeSample {
  lang: 'Shell' | 'TypeScript';
  label: string;
  source: string;
}

export interface SampleOptions {
  /** The environment variable holding the bearer token (`API_KEY`, `ADMIN_TOKEN`). */
  tokenVar: string;
  /** Where the TypeScript sample imports `paths` from (the description's openapi-typescript output). */
  typesModule: string;
  /** The command that makes that file, shown in a comment. */
  typesCommand: string;
}

export const PUBLIC_SAMPLES: SampleOptions = {
  tokenVar: 'API_KEY',
  typesModule: './api.js',
  typesCommand: 'npx openapi-typescript "$BASE_URL/openapi.json" -o api.ts',
};

export const ADMIN_SAMPLES: SampleOptions = {
  tokenVar: 'ADMIN_TOKEN',
  typesModule: './admin-api.js',
  typesCommand: 'npx openapi-typescript admin-openapi.json -o admin-api.ts',
};

/** `contactId` → `CONTACT_ID`. */
export function envName(param: string): string {
  return param
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .replace(/[^A-Za-z0-9]+/g, '_')
    .toUpperCase();
}

/** `contactId` → `contact_id` (the field that carries it in an example body). */
function snakeName(param: string): string {
  return envName(param).toLowerCase();
}

/** Walks `keys` down from `node`, following `$ref`s in `doc` on the way. */
function get(doc: JsonObject, node: Json | undefined, ...keys: string[]): Json | undefined {
  let current = node === undefined ? undefined : deref(doc, node);
  for (const key of keys) {
    const next: Json | undefined = isObject(current) ? current[key] : undefined;
    current = next === undefined ? undefined : deref(doc, next);
  }
  return current;
}

/** The value of the first named example of a media type (`examples` by name, else `example`). */
function firstExample(doc: JsonObject, media: Json | undefined): { name?: string; value: Json } | undefined {
  const examples = get(doc, media, 'examples');
  if (isObject(examples)) {
    const [name, example] = Object.entries(examples)[0] ?? [];
    const value = get(doc, example, 'value');
    if (name && value !== undefined) return { name, value };
  }
  const value = get(doc, media, 'example');
  return value === undefined ? undefined : { value };
}

/**
 * The status a plain call of the operation answers on success: `304` needs `If-None-Match`, so never; otherwise
 * the highest declared (a create's 201 over its 200 for a known phone, the media download's 302 over the 200
 * that follows it).
 */
export function expectedStatus(operation: JsonObject): number {
  const statuses = Object.keys(isObject(operation.responses) ? operation.responses : {})
    .filter((s) => /^[23]\d\d$/.test(s) && s !== '304')
    .map(Number);
  const status = Math.max(...statuses);
  if (!Number.isFinite(status)) throw new Error(`${String(operation.operationId)}: no success status`);
  return status;
}

/** The first string under `key` anywhere in `value`. */
function findKey(value: Json | undefined, key: string): string | undefined {
  if (Array.isArray(value)) {
    for (const item of value) {
      const found = findKey(item, key);
      if (found) return found;
    }
  } else if (isObject(value)) {
    if (typeof value[key] === 'string') return value[key];
    for (const item of Object.values(value)) {
      const found = findKey(item, key);
      if (found) return found;
    }
  }
  return undefined;
}

/**
 * An id the examples show for each path parameter name: the `id` of a success example of an operation whose
 * last path parameter it is (`GET /v1/contacts/{contactId}`), else any example's `<name>_id` (`field_id`).
 */
function exampleIds(doc: JsonObject): Map<string, string> {
  const own = new Map<string, string>();
  const mentioned = new Map<string, string>();
  const ops = listOperations(doc).filter((op) => op.section === 'paths');
  const names = new Set(ops.flatMap((op) => [...op.key.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!)));
  for (const op of ops) {
    const last = [...op.key.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!).pop();
    const examples: Json[] = [];
    const body = firstExample(doc, get(doc, op.operation.requestBody, 'content', 'application/json'));
    if (body) examples.push(body.value);
    for (const [status, response] of Object.entries(isObject(op.operation.responses) ? op.operation.responses : {})) {
      const value = firstExample(doc, get(doc, response, 'content', 'application/json'))?.value;
      if (value === undefined || !/^2/.test(status)) continue;
      examples.push(value);
      if (last && isObject(value) && typeof value.id === 'string' && !own.has(last)) own.set(last, value.id);
    }
    for (const name of names)
      for (const value of examples) {
        const found = mentioned.has(name) ? undefined : findKey(value, snakeName(name));
        if (found) mentioned.set(name, found);
      }
  }
  return new Map(
    [...names].flatMap((n) => {
      const id = own.get(n) ?? mentioned.get(n);
      return id ? [[n, id] as const] : [];
    }),
  );
}

/** Single-quotes for the shell. */
function shellQuote(text: string): string {
  return `'${text.replace(/'/g, `'\\''`)}'`;
}

interface Call {
  method: string;
  path: string;
  operationId: string;
  pathParams: string[];
  authenticated: boolean;
  idempotencyRequired: boolean;
  ifMatchRequired: boolean;
  body?: { name?: string; value: Json; contentType: string };
  status: number;
}

function describeCall(doc: JsonObject, op: ReturnType<typeof listOperations>[number]): Call {
  const params = operationParameters(doc, op);
  const header = (name: string) =>
    params.some((p) => p.in === 'header' && String(p.name).toLowerCase() === name && p.required === true);
  const security = Array.isArray(op.operation.security) ? op.operation.security : doc.security;
  const authenticated = Array.isArray(security) && security.some((r) => isObject(r) && Object.keys(r).length > 0);
  const content = get(doc, op.operation.requestBody, 'content');
  let body: Call['body'];
  if (isObject(content)) {
    const [contentType, media] = Object.entries(content)[0] ?? [];
    const example = firstExample(doc, media);
    if (contentType && example) body = { ...example, contentType };
  }
  return {
    method: op.method.toUpperCase(),
    path: op.key,
    operationId: String(op.operation.operationId),
    pathParams: [...op.key.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!),
    authenticated,
    idempotencyRequired: header('idempotency-key'),
    ifMatchRequired: header('if-match'),
    body,
    status: expectedStatus(op.operation),
  };
}

/** Where a path id comes from: set it first; the example's value in the comment. */
function idComment(param: string, ids: Map<string, string>): string {
  const id = ids.get(param);
  return id ? `yours (the example's: ${id})` : 'yours';
}

function curlSample(call: Call, ids: Map<string, string>, options: SampleOptions): string {
  const lines = [`# → ${call.status}`];
  for (const param of call.pathParams) lines.push(`# ${envName(param)}=${idComment(param, ids)}`);
  if (call.idempotencyRequired)
    lines.push('# IDEMPOTENCY_KEY=a new UUID for each request (uuidgen), the same one to retry it');
  if (call.ifMatchRequired) lines.push('# IF_MATCH=the ETag header of your last read of it (e.g. "3")');
  const url = call.path.replace(/\{(\w+)\}/g, (_, p: string) => `$${envName(p)}`);
  const args = [`curl -sS${call.method === 'GET' ? '' : ` -X ${call.method}`} "$BASE_URL${url}"`];
  if (call.authenticated) args.push(`-H "Authorization: Bearer $${options.tokenVar}"`);
  if (call.idempotencyRequired) args.push('-H "Idempotency-Key: $IDEMPOTENCY_KEY"');
  if (call.ifMatchRequired) args.push('-H "If-Match: $IF_MATCH"');
  if (call.body) {
    args.push(`-H "Content-Type: ${call.body.contentType}"`);
    args.push(`-d ${shellQuote(JSON.stringify(call.body.value, null, 2))}`);
  }
  return [...lines, args.join(' \\\n  ')].join('\n') + '\n';
}

/** A JavaScript literal of a JSON value, indented like the surrounding code. */
function literal(value: Json, indent: string): string {
  return JSON.stringify(value, null, 2)
    .replace(/"([A-Za-z_$][\w$]*)":/g, '$1:')
    .split('\n')
    .join(`\n${indent}`);
}

function typescriptSample(call: Call, ids: Map<string, string>, options: SampleOptions): string {
  const lines: string[] = [];
  if (call.idempotencyRequired) lines.push("import { randomUUID } from 'node:crypto';");
  lines.push(
    "import createClient from 'openapi-fetch';",
    `import type { paths } from '${options.typesModule}'; // ${options.typesCommand}`,
    '',
    'const api = createClient<paths>({',
    '  baseUrl: process.env.BASE_URL,',
    ...(call.authenticated ? [`  headers: { Authorization: \`Bearer \${process.env.${options.tokenVar}}\` },`] : []),
    '});',
  );
  for (const param of call.pathParams)
    lines.push(`const ${param} = process.env.${envName(param)}!; // ${idComment(param, ids)}`);
  const init: string[] = [];
  const params: string[] = [];
  if (call.pathParams.length) params.push(`path: { ${call.pathParams.join(', ')} }`);
  const headers: string[] = [];
  if (call.idempotencyRequired) headers.push("'Idempotency-Key': randomUUID()");
  if (call.ifMatchRequired) headers.push("'If-Match': process.env.IF_MATCH!");
  if (headers.length) params.push(`header: { ${headers.join(', ')} }`);
  if (params.length) init.push(`  params: { ${params.join(', ')} },`);
  if (call.body) init.push(`  body: ${literal(call.body.value, '  ')},`);
  const args = init.length ? `, {\n${init.join('\n')}\n}` : '';
  if (call.idempotencyRequired)
    lines.push('// Keep the Idempotency-Key to retry this request safely (a new one for another request).');
  lines.push(`const { data, error, response } = await api.${call.method}('${call.path}'${args});`);
  lines.push('console.log(response.status, error ?? data);');
  return lines.join('\n') + '\n';
}

/** The samples of one operation: curl, then the typed client. */
export function operationSamples(
  doc: JsonObject,
  op: ReturnType<typeof listOperations>[number],
  options: SampleOptions,
  ids = exampleIds(doc),
): CodeSample[] {
  const call = describeCall(doc, op);
  // Redoc keys a sample by its label, so the labels are the languages' own; the example's name is a comment.
  const named = call.body?.name;
  const curl = curlSample(call, ids, options);
  const typescript = typescriptSample(call, ids, options);
  return [
    {
      lang: 'Shell',
      label: 'curl',
      source: named ? curl.replace('\n', `\n# The body is the example “${named}”.\n`) : curl,
    },
    {
      lang: 'TypeScript',
      label: 'TypeScript',
      source: named ? `// The body is the example “${named}”.\n${typescript}` : typescript,
    },
  ];
}

/** Every operation of `paths` with its samples, keyed `METHOD path`. */
export function codeSamples(doc: JsonObject, options: SampleOptions): Map<string, CodeSample[]> {
  const ids = exampleIds(doc);
  const out = new Map<string, CodeSample[]>();
  for (const op of listOperations(doc))
    if (op.section === 'paths') out.set(`${op.method} ${op.key}`, operationSamples(doc, op, options, ids));
  return out;
}
