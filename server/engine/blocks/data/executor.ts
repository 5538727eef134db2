// data (Part B): writes a custom field: `$input`, `$timestamp`, or a text with variables; without `value` it
// clears the contact's value. 1 output.
import { dataValue } from '../../evaluate/variables.js';
import type { BlockExecutor } from '../../context.js';
import { writeField } from '../field-write.js';
import type { ExecutorEntry } from '../entry.js';

export const execute: BlockExecutor<'data'> = async (ctx) => {
  const input = typeof ctx.run.variables.$input === 'string' ? ctx.run.variables.$input : null;
  const value = dataValue(ctx.data.value, { input, nowMs: ctx.now.getTime() }, ctx.vars.lookup);
  const error = await writeField(ctx, ctx.data.name, value);
  return error ? { failed: error, output: 0 } : { next: 0 };
};

export const executor: ExecutorEntry<'data'> = { execute };
