// `WebhookEvent` in components.schemas: a `oneOf` of the bodies of all 3.1 `webhooks` (one per event type) with
// a discriminator on `type` and an explicit mapping (hey-api's union collapses to `never` without it), so
// generators that skip `webhooks` still give a receiver a type to narrow on.
import { describe, expect, it } from 'vitest';
import { isObject, listOperations, type JsonObject } from '../scripts/lib/openapi.js';
import { bundledSpec } from './helpers.js';

const doc = bundledSpec();
const schemas = (doc.components as { schemas: Record<string, JsonObject> }).schemas;

/** event type → the `#/components/schemas/…` of its webhook's request body. */
function webhookBodies(): Map<string, string> {
  const bodies = new Map<string, string>();
  for (const op of listOperations(doc).filter((o) => o.section === 'webhooks')) {
    const body = op.operation.requestBody as { content: { 'application/json': { schema: { $ref: string } } } };
    bodies.set(op.key, body.content['application/json'].schema.$ref);
  }
  return bodies;
}

describe('WebhookEvent', () => {
  const union = schemas.WebhookEvent!;
  const bodies = webhookBodies();

  it('is a oneOf of the body of every webhook, 16 event types', () => {
    expect(bodies.size).toBe(16);
    expect((union.oneOf as JsonObject[]).map((m) => m.$ref).sort()).toEqual([...bodies.values()].sort());
  });

  it('has a discriminator on `type` whose explicit mapping names each event type with its body', () => {
    expect(union.discriminator).toEqual({ propertyName: 'type', mapping: Object.fromEntries(bodies) });
    for (const [type, ref] of bodies) {
      const body = schemas[ref.replace('#/components/schemas/', '')]!;
      const property = isObject(body.properties) ? body.properties.type : undefined;
      expect(isObject(property) && property.const, ref).toBe(type);
      expect(body.required, ref).toContain('type');
    }
  });
});
