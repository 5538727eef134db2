// The bundled spec covers the seed documents: every route, every error code with its status, every event
// type, every validation code and every block type of the lists extracted from the seeds
// (../shared/seed-lists/).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { deref, isObject, listOperations, type Json, type JsonObject } from '../scripts/lib/openapi.js';
import { bundledSpec, repoRoot, seedList } from './helpers.js';

const doc = bundledSpec();

/** `context.code` consts (or enums) of an error body schema, following $ref, oneOf, anyOf and allOf. */
function errorCodesOf(schema: Json | undefined, depth = 0): string[] {
  if (depth > 12 || !isObject(schema)) return [];
  const node = deref<JsonObject>(doc, schema);
  const codes: string[] = [];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const item of list) codes.push(...errorCodesOf(item, depth + 1));
  }
  const props = isObject(node.properties) ? node.properties : {};
  if (props.context !== undefined) codes.push(...codeConsts(props.context, 0));
  return codes;
}

/** The `code` const / enum of a `context` schema. */
function codeConsts(schema: Json | undefined, depth: number): string[] {
  if (depth > 12 || !isObject(schema)) return [];
  const node = deref<JsonObject>(doc, schema);
  const codes: string[] = [];
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const list = node[key];
    if (Array.isArray(list)) for (const item of list) codes.push(...codeConsts(item, depth + 1));
  }
  const props = isObject(node.properties) ? node.properties : {};
  if (props.code !== undefined) {
    const code = deref<JsonObject>(doc, props.code);
    if (typeof code.const === 'string') codes.push(code.const);
    if (Array.isArray(code.enum)) for (const v of code.enum) if (typeof v === 'string') codes.push(v);
  }
  return codes;
}

/** Every `code status` pair some public route's response declares (the admin API is not in the seeds). */
function declaredErrorPairs(): Set<string> {
  const pairs = new Set<string>();
  for (const op of listOperations(doc)) {
    if (op.section !== 'paths' || !op.key.startsWith('/v1/')) continue;
    const responses = isObject(op.operation.responses) ? op.operation.responses : {};
    for (const [status, raw] of Object.entries(responses)) {
      if (!/^\d{3}$/.test(status)) continue;
      const response = deref<JsonObject>(doc, raw);
      const content = isObject(response.content) ? response.content : {};
      for (const media of Object.values(content)) {
        if (!isObject(media)) continue;
        for (const code of errorCodesOf(media.schema)) pairs.add(`${code} ${status}`);
      }
    }
  }
  return pairs;
}

/** Strings found as `const` or `enum` members of `property` anywhere in a JSON Schema document. */
function constsOfProperty(node: Json, property: string, out = new Set<string>()): Set<string> {
  if (Array.isArray(node)) for (const n of node) constsOfProperty(n, property, out);
  else if (isObject(node)) {
    const props = node.properties;
    if (isObject(props) && isObject(props[property])) {
      const p = props[property];
      if (typeof p.const === 'string') out.add(p.const);
      if (Array.isArray(p.enum)) for (const v of p.enum) if (typeof v === 'string') out.add(v);
    }
    for (const value of Object.values(node)) constsOfProperty(value, property, out);
  }
  return out;
}

describe('coverage of the seed documents', () => {
  it('has every route of the endpoint tables (operations.txt)', () => {
    const routes = new Set(
      listOperations(doc)
        .filter((op) => op.section === 'paths' && op.key.startsWith('/v1/'))
        .map((op) => `${op.method.toUpperCase()} ${op.key}`),
    );
    const seeds = seedList('operations.txt');
    expect(seeds.length).toBe(55);
    expect(seeds.filter((route) => !routes.has(route))).toEqual([]);
  });

  it('declares every error code with its status in a response of that status (error-codes.txt)', () => {
    const declared = declaredErrorPairs();
    const seeds = seedList('error-codes.txt');
    expect(seeds.length).toBeGreaterThan(0);
    expect(seeds.filter((pair) => !declared.has(pair))).toEqual([]);
  });

  it('has a webhook for every event type, whose body `type` is that type (event-types.txt)', () => {
    const webhooks = isObject(doc.webhooks) ? doc.webhooks : {};
    const missing: string[] = [];
    for (const type of seedList('event-types.txt')) {
      const item = webhooks[type];
      if (!isObject(item)) {
        missing.push(`${type}: no webhooks entry`);
        continue;
      }
      const post = deref<JsonObject>(doc, deref<JsonObject>(doc, item).post);
      const body = deref<JsonObject>(doc, post?.requestBody);
      const content = isObject(body?.content) ? body.content : {};
      const media = content['application/json'];
      const schema = isObject(media) ? deref<JsonObject>(doc, media.schema) : {};
      const props = isObject(schema.properties) ? schema.properties : {};
      const typeSchema = props.type === undefined ? {} : deref<JsonObject>(doc, props.type);
      if (typeSchema.const !== type) missing.push(`${type}: body type const is ${JSON.stringify(typeSchema.const)}`);
    }
    expect(missing).toEqual([]);
  });

  it('lists every validation code in the ValidationIssue `code` enum (validation-codes.txt)', () => {
    const schemas = isObject(doc.components) && isObject(doc.components.schemas) ? doc.components.schemas : {};
    expect(schemas.ValidationIssue, 'components.schemas.ValidationIssue').toBeDefined();
    const codes = codeConsts(schemas.ValidationIssue, 0);
    expect(seedList('validation-codes.txt').filter((code) => !codes.includes(code))).toEqual([]);
  });

  it('has every block type in the block catalog (block-types.txt)', () => {
    const catalog = JSON.parse(readFileSync(join(repoRoot, 'generated/block-catalog.schema.json'), 'utf8')) as Json;
    const types = constsOfProperty(catalog, 'type');
    expect(seedList('block-types.txt').filter((type) => !types.has(type))).toEqual([]);
  });
});
