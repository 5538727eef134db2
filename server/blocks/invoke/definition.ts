// invoke: calls an HTTP endpoint and saves fields of its answer. 2 outputs: success, failure.
import { arrayOf, fixed, isObject, referenceAt, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'invoke'> = {
  outputs: fixed(2),
  references: (data) =>
    arrayOf(data.fields).flatMap((f, i) =>
      isObject(f) ? referenceAt('custom_field', f.name, `data.fields[${i}].name`) : [],
    ),
};
