// math (Part B): `result_field` = a <operator> b, operands a field's value or a constant; the result is a plain
// dotted number, which the field variable shows afterwards. 1 output.
import { computeMath, type MathOperator } from '../evaluate/math.js';
import type { BlockExecutor } from '../context.js';
import { writeField } from './field-write.js';

type Operand = { type?: string; value?: unknown } | undefined;

export const math: BlockExecutor = async (ctx) => {
  const operand = (o: Operand): string | null => {
    if (!o || typeof o.value !== 'string') return null;
    return o.type === 'field' ? (ctx.vars.lookup(o.value) ?? null) : o.value;
  };
  const result = computeMath(
    ctx.data.operator as MathOperator,
    operand(ctx.data.operand_a as Operand),
    operand(ctx.data.operand_b as Operand),
  );
  const error = await writeField(ctx, typeof ctx.data.result_field === 'string' ? ctx.data.result_field : '', result);
  return error ? { failed: error, output: 0 } : { next: 0 };
};
