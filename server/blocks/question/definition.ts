// question: sends a question and waits for the answer, saved to `answer_field` when one is named. 1 output.
import { fixed, str, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'question'> = {
  outputs: fixed(1),
  sends: true,
  references: (data) => {
    const field = str(data.answer_field);
    return field ? [{ kind: 'custom_field', value: field, path: 'data.answer_field' }] : [];
  },
};
