// tags: adds or removes tags by name. 1 output.
import { arrayOf, fixed, type BlockDefinition, type BlockReference } from '../definition.js';

export const definition: BlockDefinition<'tags'> = {
  outputs: fixed(1),
  references: (data) =>
    arrayOf(data.tags).flatMap((tag, i): BlockReference[] =>
      typeof tag === 'string' ? [{ kind: 'tag', value: tag, path: `data.tags[${i}]` }] : [],
    ),
};
