// data (Part B): writes a custom field: `$input`, `$timestamp`, or a text with variables; without `value` it
// clears the contact's value. 1 output.
import { dataValue } from '../evaluate/variables.js';
import type { BlockExecutor } from '../context.js';
import { writeField } from './field-write.js';

export const data: BlockExecutor = async (ctx) => {
  const name = typeof ctx.data.name === 'string' ? ctx.data.name : '';
  const input = typeof ctx.run.variables.$input === 'string' ? ctx.run.variables.$input : null;
  const value = dataValue(
    typeof ctx.data.value === 'string' ? ctx.data.value : undefined,
    { input, nowMs: ctx.now.getTime() },
    ctx.vars.lookup,
  );
  const error = await writeField(ctx, name, value);
  return error ? { failed: error, output: 0 } : { next: 0 };
};
