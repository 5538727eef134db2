// The typed client exports the block catalog's types (generated from spec/catalog/ by `npm run generate`): a
// client team builds a graph with compile-time checks. The @ts-expect-error lines fail the typecheck (part of
// `npm test`) when a wrong block stops being an error.
import { describe, expect, it } from 'vitest';
import { catalogVersion, type Block, type BlockData, type BlockType, type GraphNodes } from '../client/index.js';
import catalog from '../generated/block-catalog.schema.json' with { type: 'json' };
import type { BlockExecutor } from '../server/engine/context.js';
import { passThrough } from '../server/engine/blocks/pass-through.js';

describe('block types of the typed client', () => {
  it('types every block of the catalog, and a graph built with them compiles', () => {
    const types: Record<BlockType, true> = Object.fromEntries(
      Object.keys(catalog.$defs).map((t) => [t, true]),
    ) as Record<BlockType, true>;
    expect(Object.keys(types).sort()).toEqual(Object.keys(catalog.$defs).sort());
    const ask: Block<'buttons'> = {
      type: 'buttons',
      data: {
        subtitle: 'Quer o link?',
        buttons: [{ id: 'sim', title: 'Sim', url: 'https://loja.example.com' }],
        next: ['obrigado', null, null, null],
      },
      position: { x: 0, y: 120 },
    };
    const nodes: GraphNodes = {
      root: { type: 'root', data: { next: ['ask'] } },
      ask,
      obrigado: { type: 'message', data: { text: 'Obrigado, {contact.first_name}!', next: [null] } },
    };
    expect(Object.keys(nodes)).toHaveLength(3);
    expect(catalogVersion).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('refuses at compile time a wrong next count, an unknown field, a wrong enum value or a missing field', () => {
    // @ts-expect-error a message block has exactly one output
    const twoNext: BlockData<'message'> = { text: 'x', next: [null, null] };
    // @ts-expect-error a tags block's operation is add or remove
    const wrongOperation: BlockData<'tags'> = { operation: 'toggle', tags: ['VIP'], next: [null] };
    // @ts-expect-error data of a message block is closed: no `body`
    const extra: BlockData<'message'> = { text: 'x', body: 'y', next: [null] };
    // @ts-expect-error sleep needs its seconds
    const missing: BlockData<'sleep'> = { next: [null] };
    const unquoted: BlockData<'math'> = {
      result_field: 'total',
      operator: 'add',
      // @ts-expect-error math operands are strings, also for constants
      operand_a: { type: 'constant', value: 1 },
      operand_b: { type: 'field', value: 'x' },
      next: [null],
    };
    expect([twoNext, wrongOperation, extra, missing, unquoted]).toHaveLength(5);
  });

  it('types the engine by the catalog: an executor reading a field its block does not have, or a table missing a type, does not compile', () => {
    // @ts-expect-error a math block has no `operand_c`
    const reads: BlockExecutor<'math'> = async (ctx) => ({ next: ctx.data.operand_c ? 0 : 1 });
    // A math block's operator is the catalog's enum: comparing it with a value it cannot hold is an error too.
    // @ts-expect-error 'modulo' is not one of the catalog's operators
    const compares: BlockExecutor<'math'> = async (ctx) => ({ next: ctx.data.operator === 'modulo' ? 0 : 1 });
    // @ts-expect-error the table of executors names every type of the catalog
    const table: { [T in BlockType]: BlockExecutor<T> } = { root: passThrough };
    expect([reads, compares, table]).toHaveLength(3);
  });
});
