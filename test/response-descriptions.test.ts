// Every field of what a client reads has a description, so generated SDKs carry a doc comment on it: each
// property of a schema reachable from a response of a /v1 route or from an event body (3.1 `webhooks`) has a
// `description`, or is a `$ref` to a schema that has one. And no response of either description (/v1, /admin/v1)
// holds an inline union.
import { describe, expect, it } from 'vitest';
import { deref, isObject, listOperations, type Json, type JsonObject } from '../scripts/lib/openapi.js';
import { adminBundledSpec, bundledSpec } from './helpers.js';

const doc = bundledSpec();

/** `<schema>.<property>` of every property without a description, reachable from `schema`. */
function undescribed(schema: Json, at: string, seen: Set<string>, found: string[]): string[] {
  if (!isObject(schema)) return found;
  if (typeof schema.$ref === 'string') {
    if (seen.has(schema.$ref)) return found;
    seen.add(schema.$ref);
    return undescribed(deref(doc, schema), schema.$ref.split('/').pop() ?? at, seen, found);
  }
  for (const key of ['oneOf', 'anyOf', 'allOf'] as const) {
    const parts = schema[key];
    if (Array.isArray(parts)) for (const part of parts) undescribed(part, at, seen, found);
  }
  if (schema.items !== undefined) undescribed(schema.items, `${at}[]`, seen, found);
  if (isObject(schema.additionalProperties)) undescribed(schema.additionalProperties, `${at}{}`, seen, found);
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property)) continue;
    const target = typeof property.$ref === 'string' ? deref<JsonObject>(doc, property) : property;
    if (typeof property.description !== 'string' && typeof target.description !== 'string') found.push(`${at}.${name}`);
    undescribed(property, `${at}.${name}`, seen, found);
  }
  return found;
}

/** The schemas a client reads: /v1 responses and event bodies. */
function readSchemas(): [string, Json][] {
  const schemas: [string, Json][] = [];
  for (const op of listOperations(doc)) {
    const label = `${op.method.toUpperCase()} ${op.key}`;
    if (op.section === 'paths' && op.key.startsWith('/v1/')) {
      const responses = isObject(op.operation.responses) ? op.operation.responses : {};
      for (const [status, raw] of Object.entries(responses)) {
        const content = deref<JsonObject>(doc, raw).content;
        if (isObject(content))
          for (const media of Object.values(content))
            if (isObject(media) && media.schema !== undefined) schemas.push([`${label} ${status}`, media.schema]);
      }
    }
    if (op.section === 'webhooks') {
      const body = deref<JsonObject>(doc, op.operation.requestBody ?? null);
      const content = isObject(body) ? body.content : undefined;
      if (isObject(content))
        for (const media of Object.values(content))
          if (isObject(media) && media.schema !== undefined) schemas.push([`event ${op.key}`, media.schema]);
    }
  }
  return schemas;
}

describe('response fields', () => {
  it('every property of a response or event body has a description (on it or on the schema it references)', () => {
    const seen = new Set<string>();
    const schemas = readSchemas();
    expect(schemas.length).toBeGreaterThan(100);
    const missing = schemas.flatMap(([label, schema]) => undescribed(schema, label, seen, []));
    expect(missing).toEqual([]);
  });

  it('every error union of a /v1 response is a named schema (SDKs name it, not `CreateContact409`)', () => {
    const inline = readSchemas()
      .filter(([label, schema]) => !label.startsWith('event ') && isObject(schema) && Array.isArray(schema.oneOf))
      .map(([label]) => label);
    expect(inline).toEqual([]);
  });

  it('the check finds a property without a description', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' }, name: { type: 'string', description: 'x' } },
    };
    expect(undescribed(schema, 'Example', new Set(), [])).toEqual(['Example.id']);
  });

  it('every error union of an /admin/v1 response is a named schema too', () => {
    const admin = adminBundledSpec();
    const inline: string[] = [];
    for (const op of listOperations(admin)) {
      const responses = isObject(op.operation.responses) ? op.operation.responses : {};
      for (const [status, raw] of Object.entries(responses)) {
        const content = deref<JsonObject>(admin, raw).content;
        if (!isObject(content)) continue;
        for (const media of Object.values(content))
          if (isObject(media) && isObject(media.schema) && Array.isArray(media.schema.oneOf))
            inline.push(`${op.method.toUpperCase()} ${op.key} ${status}`);
      }
    }
    expect(listOperations(admin).length).toBeGreaterThan(30);
    expect(inline).toEqual([]);
  });
});
