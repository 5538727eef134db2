// conditional: the conditions with `and`/`or`; 2 outputs (true, false). Its tag and custom-field conditions name
// account resources.
import {
  arrayOf,
  fixed,
  isObject,
  problem,
  str,
  type BlockDefinition,
  type BlockProblem,
  type BlockReference,
  type Json,
  type SentData,
} from '../definition.js';

/** The conditions of a conditional: `conditions`, or the old one-condition form kept directly in `data`. */
export function conditionsOf(data: SentData<'conditional'>): { condition: Json; base: string }[] {
  if (data.conditions !== undefined) {
    return arrayOf(data.conditions).map((c, i) => ({
      condition: isObject(c) ? c : {},
      base: `data.conditions[${i}]`,
    }));
  }
  const oldForm = (['field_type', 'field_name', 'operator', 'value'] as const).some((k) => data[k] !== undefined);
  return oldForm ? [{ condition: data, base: 'data' }] : [];
}

const NAMED_FIELD_TYPES = new Set(['tag', 'custom_field', 'variable']);

function references(data: SentData<'conditional'>): BlockReference[] {
  const refs: BlockReference[] = [];
  for (const { condition, base } of conditionsOf(data)) {
    const name = str(condition.field_name);
    if (name === null) continue;
    if (condition.field_type === 'tag') refs.push({ kind: 'tag', value: name, path: `${base}.field_name` });
    if (condition.field_type === 'custom_field') {
      refs.push({ kind: 'custom_field', value: name, path: `${base}.field_name` });
    }
  }
  return refs;
}

function compile(data: SentData<'conditional'>): BlockProblem | null {
  const conditions = conditionsOf(data);
  if (conditions.length === 0) {
    return problem('conditional_incomplete', 'data.conditions', 'A conditional has no condition.');
  }
  for (const { condition, base } of conditions) {
    if (typeof condition.field_type !== 'string') {
      return problem('conditional_incomplete', `${base}.field_type`, 'A condition has no field_type.');
    }
    if (typeof condition.operator !== 'string') {
      return problem('conditional_incomplete', `${base}.operator`, 'A condition has no operator.');
    }
    if (NAMED_FIELD_TYPES.has(condition.field_type) && typeof condition.field_name !== 'string') {
      return problem(
        'conditional_incomplete',
        `${base}.field_name`,
        `A ${condition.field_type} condition has no field_name.`,
      );
    }
  }
  return null;
}

export const definition: BlockDefinition<'conditional'> = { outputs: fixed(2), readsFields: true, references, compile };
