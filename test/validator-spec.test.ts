// The bundled spec as the server's request validator reads it (server/http/spec.ts) differs from the published
// one where the service answers itself: a sent block is checked for its format only (the service answers
// 422 invalid_graph or lists the problems), and a required If-Match is left to the service (428, not a 400).
import { Ajv2020 } from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { deref, isObject, listOperations, type JsonObject } from '../scripts/lib/openapi.js';
import { leanValidatorSpec, validatorSpec } from '../server/http/spec.js';
import { bundledSpec } from './helpers.js';

const served: unknown = validatorSpec();
if (!isObject(served)) throw new Error('the validator spec is not an object');

/** The If-Match parameter of PATCH /v1/workflows/{workflowId} in a document. */
function ifMatchOfPatch(doc: JsonObject): JsonObject {
  const op = listOperations(doc).find((o) => o.key === '/v1/workflows/{workflowId}' && o.method === 'patch');
  const parameters = Array.isArray(op?.operation.parameters) ? op.operation.parameters : [];
  const found = parameters.map((p) => deref<JsonObject>(doc, p)).find((p) => p.name === 'If-Match');
  if (!found) throw new Error('PATCH /v1/workflows/{workflowId} has no If-Match');
  return found;
}

describe('the server validator', () => {
  it('checks only the format of a sent block, so the service answers with the catalog codes (not a 400)', () => {
    const components = served.components;
    const block = isObject(components) && isObject(components.schemas) ? components.schemas.WorkflowNodeInput : null;
    if (!isObject(block)) throw new Error('no WorkflowNodeInput in the validator spec');
    expect(block.oneOf).toBeUndefined();
    expect(isObject(block.properties) && Object.keys(block.properties).sort()).toEqual(['data', 'position', 'type']);
    expect(block.additionalProperties).toBeUndefined();
    const format = new Ajv2020({ strict: false }).compile(block);
    expect(format({ type: 'rooot', data: { txet: 'Hi' }, colour: 'red' })).toBe(true);
    expect(format({ type: 'message', data: 'Hi' })).toBe(false);
  });

  it('holds no example or code sample as the validators compile it, and every schema of the description', () => {
    // The mock's copy keeps them: Prism answers with the examples.
    expect(JSON.stringify(served)).toContain('#/components/examples/');
    const lean: unknown = leanValidatorSpec();
    if (!isObject(lean)) throw new Error('the lean validator spec is not an object');
    const text = JSON.stringify(lean);
    expect(text).not.toContain('#/components/examples/');
    expect(text).not.toContain('x-codeSamples');
    expect(isObject(lean.components) && lean.components.examples).toBeUndefined();
    const published = bundledSpec();
    const schemasOf = (doc: JsonObject) => (isObject(doc.components) ? doc.components.schemas : undefined);
    const servedSchemas = schemasOf(lean);
    const publishedSchemas = schemasOf(published);
    if (!isObject(servedSchemas) || !isObject(publishedSchemas)) throw new Error('no components.schemas');
    expect(Object.keys(servedSchemas)).toEqual(Object.keys(publishedSchemas));
    for (const name of Object.keys(publishedSchemas))
      if (name !== 'WorkflowNodeInput') expect(servedSchemas[name], name).toEqual(publishedSchemas[name]);
  });

  it('leaves a missing If-Match of PATCH /v1/workflows/{workflowId} to the service (428), which the description requires', () => {
    expect(ifMatchOfPatch(bundledSpec()).required).toBe(true);
    expect(ifMatchOfPatch(served).required).toBe(false);
    expect(ifMatchOfPatch(served).schema).toEqual(ifMatchOfPatch(bundledSpec()).schema);
  });
});
