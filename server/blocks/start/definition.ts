// start: starts another automation for the same contact. 1 output.
import { fixed, referenceAt, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'start'> = {
  outputs: fixed(1),
  references: (data) => referenceAt('workflow', data.workflow_id, 'data.workflow_id'),
};
