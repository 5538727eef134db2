// The rules every request meets as it enters, before the OpenAPI validator (docs/decisions.md, "Request entry"):
// - ids: a UUID is case-insensitive (RFC 9562) and read in its canonical lower-case form, wherever the spec
//   says `format: uuid` (path, query and body); the handlers, the services and the store only ever see that
//   form, so an id is compared one way everywhere. Other spellings (braces, urn:uuid:, no hyphens) stay as sent
//   and the validator refuses them (400).
// - integers in the query: only the decimal form (`-?digits`, at most 15 digits) is a number; `Infinity`,
//   `1e2`, `0x10`, ` 5` are 400 (the validator's coercion would read them as numbers).
// - JSON bodies nested deeper than MAX_JSON_DEPTH are 400, found on the raw bytes before anything parses or
//   walks them (./json-depth.ts).
// - HEAD is GET without a body, on every route.
// What the rules need from each operation (its uuid and integer parameters, where its body holds uuids) is read
// from the bundled spec once, at start.
import type { NextFunction, Request, Response } from 'express';
import { canonicalId, canonicalizeAt, isObject, resolveRef, uuidPlaces, type Json, type Place } from '../ids.js';

/** HEAD is a GET whose answer has no body: the response already knows it answers a HEAD and sends none. */
export function headAsGet(req: Request, res: Response, next: NextFunction): void {
  if (req.method === 'HEAD') {
    req.method = 'GET';
    // A stream (the admin event stream) must end at once on HEAD: it reads this, as req.method says GET now.
    res.locals.head = true;
  }
  next();
}

/** A decimal integer as the query may spell it; 15 digits at most, so the number is exact. */
const DECIMAL_INTEGER = /^-?(0|[1-9][0-9]{0,14})$/;

/** The path parameters with their ids canonical: every path parameter of this API is an id. */
export function canonicalParams(params: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(params).map(([name, value]) => [name, canonicalId(value)]));
}

interface OperationRules {
  /** Query parameters of type integer. */
  integers: Set<string>;
  /** Query parameters of format uuid. */
  uuidQuery: Set<string>;
  /** Places of the JSON body that hold uuids. */
  body: Place[];
}

/** A refusal in the shape of the validator's errors, so the error middleware answers the same 400 envelope. */
export interface EntryRefusal {
  status: 400;
  errors: { path: string; message: string }[];
}

/** The entry rules of every operation of `spec` (the bundled spec), by operationId. */
export function entryRules(spec: Json): (operationId: string, req: Request) => void {
  const byOperation = new Map<string, OperationRules>();
  const paths = isObject(spec.paths) ? spec.paths : {};
  for (const item of Object.values(paths)) {
    if (!isObject(item)) continue;
    const shared = Array.isArray(item.parameters) ? item.parameters : [];
    for (const operation of Object.values(item)) {
      if (!isObject(operation) || typeof operation.operationId !== 'string') continue;
      const rules: OperationRules = { integers: new Set(), uuidQuery: new Set(), body: [] };
      const own = Array.isArray(operation.parameters) ? operation.parameters : [];
      for (const declared of [...shared, ...own]) {
        const parameter =
          isObject(declared) && typeof declared.$ref === 'string' ? resolveRef(spec, declared.$ref) : declared;
        if (!isObject(parameter) || parameter.in !== 'query' || typeof parameter.name !== 'string') continue;
        const schema = isObject(parameter.schema) ? parameter.schema : {};
        if (schema.type === 'integer') rules.integers.add(parameter.name);
        if (schema.format === 'uuid') rules.uuidQuery.add(parameter.name);
      }
      const body = isObject(operation.requestBody) ? operation.requestBody : {};
      const json = isObject(body.content) ? body.content['application/json'] : undefined;
      if (isObject(json)) rules.body = uuidPlaces(json.schema, spec);
      // An operation with nothing to check is left out: its requests skip the rules (GET /v1/me).
      if (rules.integers.size > 0 || rules.uuidQuery.size > 0 || rules.body.length > 0)
        byOperation.set(operation.operationId, rules);
    }
  }

  return (operationId, req) => {
    const rules = byOperation.get(operationId);
    if (!rules) return;
    const query = ownQuery(req);
    const refused: EntryRefusal['errors'] = [];
    for (const name of rules.integers) {
      const value = query[name];
      if (value === undefined) continue;
      if (typeof value !== 'string' || !DECIMAL_INTEGER.test(value))
        refused.push({ path: `/query/${name}`, message: 'must be an integer written in decimal digits' });
    }
    if (refused.length > 0) throw { status: 400, errors: refused } satisfies EntryRefusal;
    for (const name of rules.uuidQuery) {
      const value = query[name];
      if (typeof value === 'string') query[name] = canonicalId(value);
    }
    if (rules.body.length > 0) canonicalizeAt(req.body, rules.body);
  };
}

/**
 * The parsed query as a property of the request. Express 5 parses `req.query` afresh at each read, so a change
 * would be lost (and each read costs a parse); the validator makes it an own property the same way, and keeps it.
 */
export function ownQuery(req: Request): Json {
  const query: unknown = req.query;
  const parsed = isObject(query) ? query : {};
  Object.defineProperty(req, 'query', { value: parsed, writable: true, configurable: true, enumerable: true });
  return parsed;
}
