// buttons: a text with up to 3 buttons; output i for a tap on button i, the 4th right after the send.
import { buttonReferences, fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'buttons'> = {
  outputs: fixed(4),
  sends: true,
  references: (data) => buttonReferences(data.buttons, 'data.buttons'),
};
