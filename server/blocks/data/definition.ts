// data: writes (or clears) a custom field. 1 output.
import { fixed, referenceAt, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'data'> = {
  outputs: fixed(1),
  readsFields: true,
  references: (data) => referenceAt('custom_field', data.name, 'data.name'),
};
