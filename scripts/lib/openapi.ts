// Small helpers over a bundled OpenAPI 3.1 document (generated/openapi.json): resolve local `$ref`s and walk
// the operations of `paths` and `webhooks`. Used by the generator and by the tests.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ADMIN_DESCRIPTION, PUBLIC_DESCRIPTION } from './descriptions.js';

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
export type JsonObject = { [key: string]: Json };

export const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export interface OperationRef {
  /** `paths` for an API route, `webhooks` for an event. */
  section: 'paths' | 'webhooks';
  /** The path (`/v1/contacts`) or the webhook name (`message.received`). */
  key: string;
  method: HttpMethod;
  operation: JsonObject;
  pathItem: JsonObject;
}

export function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The bundled public description (generated/openapi.json). */
export function loadBundledSpec(root: string): JsonObject {
  return JSON.parse(readFileSync(join(root, PUBLIC_DESCRIPTION.json), 'utf8')) as JsonObject;
}

/** The bundled description of the vendor console and the sandbox (generated/admin-openapi.json). */
export function loadAdminSpec(root: string): JsonObject {
  return JSON.parse(readFileSync(join(root, ADMIN_DESCRIPTION.json), 'utf8')) as JsonObject;
}

/** Decodes one JSON Pointer token. */
function unescapeToken(token: string): string {
  return decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Resolves a local reference (`#/components/schemas/Contact`) in `doc`. */
export function resolvePointer(doc: Json, ref: string): Json | undefined {
  if (!ref.startsWith('#')) throw new Error(`only local $refs are supported: ${ref}`);
  let node: Json | undefined = doc;
  for (const token of ref.slice(1).split('/').filter(Boolean).map(unescapeToken)) {
    if (Array.isArray(node)) node = node[Number(token)];
    else if (isObject(node)) node = node[token];
    else return undefined;
  }
  return node;
}

/** Follows `$ref`s until a node without one (throws on a dangling or circular chain). */
export function deref<T extends Json = Json>(doc: Json, node: Json | undefined): T {
  let current = node;
  const seen = new Set<string>();
  while (isObject(current) && typeof current.$ref === 'string') {
    const ref = current.$ref;
    if (seen.has(ref)) throw new Error(`circular $ref ${ref}`);
    seen.add(ref);
    const next = resolvePointer(doc, ref);
    if (next === undefined) throw new Error(`dangling $ref ${ref}`);
    current = next;
  }
  return current as T;
}

/** Every operation of `paths` and `webhooks`, in document order. */
export function listOperations(doc: JsonObject): OperationRef[] {
  const out: OperationRef[] = [];
  for (const section of ['paths', 'webhooks'] as const) {
    const items = doc[section];
    if (!isObject(items)) continue;
    for (const [key, raw] of Object.entries(items)) {
      const pathItem = deref<JsonObject>(doc, raw);
      for (const method of HTTP_METHODS) {
        const operation = pathItem[method];
        if (isObject(operation))
          out.push({ section, key, method, operation: deref<JsonObject>(doc, operation), pathItem });
      }
    }
  }
  return out;
}

/** The operation's parameters, path-level ones included (operation-level ones win), resolved. */
export function operationParameters(doc: JsonObject, op: OperationRef): JsonObject[] {
  const own = (Array.isArray(op.operation.parameters) ? op.operation.parameters : []).map((p) =>
    deref<JsonObject>(doc, p),
  );
  const shared = (Array.isArray(op.pathItem.parameters) ? op.pathItem.parameters : []).map((p) =>
    deref<JsonObject>(doc, p),
  );
  const key = (p: JsonObject) => `${String(p.in)}:${String(p.name).toLowerCase()}`;
  const ownKeys = new Set(own.map(key));
  return [...own, ...shared.filter((p) => !ownKeys.has(key(p)))];
}

/** The ApiKey scopes of an operation (its own `security`, else the document's). */
export function operationScopes(doc: JsonObject, operation: JsonObject): string[] {
  const security = Array.isArray(operation.security)
    ? operation.security
    : Array.isArray(doc.security)
      ? doc.security
      : [];
  const scopes = new Set<string>();
  for (const requirement of security) {
    if (!isObject(requirement)) continue;
    const bearer = requirement.ApiKey;
    if (Array.isArray(bearer)) for (const s of bearer) if (typeof s === 'string') scopes.add(s);
  }
  return [...scopes];
}
