// The block schemas of the OpenAPI description (spec/components/schemas/blocks/, generated from the catalog):
// one closed schema per block type and the union `WorkflowNodeInput` with a discriminator on `type` and an
// explicit mapping, which is what a client sends; what it reads (`WorkflowNode`) stays open. (The server's
// validator checks a sent block's format only: test/validator-spec.test.ts.)
import { readFileSync } from 'node:fs';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin, { type FormatsPlugin } from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { blockSchemaName } from '../scripts/lib/catalog.js';
import type { JsonObject } from '../scripts/lib/openapi.js';
import { catalogGraphs } from '../scripts/examples/catalog.js';
import { buildWorld } from '../scripts/examples/world.js';
import { bundledSpec, seedList } from './helpers.js';

// ajv-formats is CommonJS (`module.exports = plugin`): under NodeNext its default import is the plugin itself.
const addFormats = addFormatsPlugin as unknown as FormatsPlugin;

const doc = bundledSpec();
const schemas = (doc.components as { schemas: Record<string, JsonObject> }).schemas;
const catalog = JSON.parse(
  readFileSync(new URL('../spec/catalog/graph-nodes.schema.json', import.meta.url), 'utf8'),
) as { $defs: Record<string, JsonObject> };
const catalogDefs = catalog.$defs;
const blockTypes = seedList('block-types.txt');

const SPEC_ID = 'https://spec.local/openapi.json';
const ajv = new Ajv2020({ strict: false, allErrors: true, validateSchema: false, logger: false });
addFormats(ajv);
ajv.addSchema({ ...doc, $id: SPEC_ID }, SPEC_ID);
const schemaAt = (name: string): ValidateFunction => ajv.compile({ $ref: `${SPEC_ID}#/components/schemas/${name}` });
const sent = schemaAt('WorkflowNodeInput');
const read = schemaAt('WorkflowNode');

describe('block schemas in components.schemas', () => {
  it('has one schema per block type of the catalog, named <Type>Block, with `type` a required const', () => {
    expect(Object.keys(catalogDefs).sort()).toEqual([...blockTypes].sort());
    for (const type of blockTypes) {
      const schema = schemas[blockSchemaName(type)];
      expect(schema, type).toBeDefined();
      expect(schema!.required).toEqual(['type', 'data']);
      expect(schema!.additionalProperties).toBe(false);
      expect((schema!.properties as Record<string, JsonObject>).type!.const).toBe(type);
    }
  });

  it('takes every data field, its type and description from the catalog (without its if/then rules)', () => {
    for (const type of blockTypes) {
      const mine = (schemas[blockSchemaName(type)]!.properties as { data: JsonObject }).data;
      const theirs = structuredClone((catalogDefs[type]!.properties as { data: JsonObject }).data);
      // The only if/then of the catalog: the operators a condition's field_type allows (generators skip if/then).
      if (type === 'conditional')
        delete (theirs.properties as { conditions: { items: JsonObject } }).conditions.items.allOf;
      expect(mine.required, type).toEqual(theirs.required);
      expect(mine.additionalProperties, type).toEqual(theirs.additionalProperties);
      expect(mine.properties, type).toEqual(theirs.properties);
    }
  });

  it('unites them in WorkflowNodeInput: oneOf with a discriminator on `type` and an explicit mapping', () => {
    const union = schemas.WorkflowNodeInput!;
    const refs = blockTypes.map((type) => `#/components/schemas/${blockSchemaName(type)}`);
    expect((union.oneOf as JsonObject[]).map((m) => m.$ref).sort()).toEqual([...refs].sort());
    expect(union.discriminator).toEqual({
      propertyName: 'type',
      mapping: Object.fromEntries(blockTypes.map((type) => [type, `#/components/schemas/${blockSchemaName(type)}`])),
    });
    expect(String(union.description)).toMatch(/Blocks you read but do not know/);
  });

  it('types what a client sends: create, update and both validate routes take graphs of WorkflowNodeInput', () => {
    const graph = schemas.WorkflowGraphInput!;
    expect(((graph.properties as JsonObject).nodes as JsonObject).additionalProperties).toEqual({
      $ref: '#/components/schemas/WorkflowNodeInput',
    });
    for (const name of ['WorkflowCreate', 'WorkflowUpdate', 'WorkflowValidateRequest'])
      expect((schemas[name]!.properties as JsonObject).graph, name).toEqual({
        $ref: '#/components/schemas/WorkflowGraphInput',
      });
  });

  it('accepts every block of the sample graphs, and refuses a misspelled block type or field', () => {
    const graphs = catalogGraphs(buildWorld());
    const blocks = [...Object.values(graphs.blackFriday), ...Object.values(graphs.whatsappWelcome)];
    expect(new Set(blocks.map((b) => b.type)).size).toBeGreaterThan(10);
    for (const block of blocks) expect(sent(block), JSON.stringify(sent.errors)).toBe(true);
    expect(sent({ type: 'rooot', data: { next: [null] } })).toBe(false);
    expect(sent({ type: 'message', data: { txet: 'Hi', next: [null] } })).toBe(false);
    expect(sent({ type: 'message', data: { text: 'Hi', next: [null] }, colour: 'red' })).toBe(false);
  });

  it('leaves what a client reads open: an unknown block type or field reads back as stored', () => {
    const position = { x: 0, y: 0 };
    expect(read({ type: 'teleport', data: { where: 'mars', next: [null] }, position })).toBe(true);
    expect(read({ type: 'message', data: { text: 'Hi', next: [null], emphasis: 'bold' }, position })).toBe(true);
  });
});
