// message: sends a text. 1 output.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'message'> = { outputs: fixed(1), sends: true };
