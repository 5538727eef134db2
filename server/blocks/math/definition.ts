// math: `result_field` = a <operator> b, operands a field's value or a constant. 1 output.
import {
  fixed,
  isObject,
  referenceAt,
  type BlockDefinition,
  type BlockReference,
  type SentData,
} from '../definition.js';

function references(data: SentData<'math'>): BlockReference[] {
  const refs = referenceAt('custom_field', data.result_field, 'data.result_field');
  for (const operand of ['operand_a', 'operand_b'] as const) {
    const o = data[operand];
    if (isObject(o) && o.type === 'field') refs.push(...referenceAt('custom_field', o.value, `data.${operand}.value`));
  }
  return refs;
}

export const definition: BlockDefinition<'math'> = { outputs: fixed(1), readsFields: true, references };
