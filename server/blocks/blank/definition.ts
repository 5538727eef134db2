// blank: does nothing; its `next` has 1 entry or is left out (then the branch ends there).
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'blank'> = { outputs: fixed(1), nextOptional: true };
