// math (Part B): `result_field` = a <operator> b, operands a field's value or a constant; the result is a plain
// dotted number, which the field variable shows afterwards. 1 output.
import type { BlockData } from '../../../../generated/block-catalog.js';
import type { BlockExecutor } from '../../context.js';
import type { VariableLookup } from '../../evaluate/variables.js';
import { writeField } from '../field-write.js';
import { computeMath } from './evaluate.js';
import type { ExecutorEntry } from '../entry.js';

type Operand = BlockData<'math'>['operand_a'];

/** An operand's text: a field's value (null without one), or the constant. */
const operandText = (operand: Operand, lookup: VariableLookup): string | null =>
  operand.type === 'field' ? (lookup(operand.value) ?? null) : operand.value;

export const execute: BlockExecutor<'math'> = async (ctx) => {
  const { operator, operand_a, operand_b, result_field } = ctx.data;
  const result = computeMath(
    operator,
    operandText(operand_a, ctx.vars.lookup),
    operandText(operand_b, ctx.vars.lookup),
  );
  const error = await writeField(ctx, result_field, result);
  return error ? { failed: error, output: 0 } : { next: 0 };
};

export const executor: ExecutorEntry<'math'> = { execute };
