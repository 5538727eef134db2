// comment: A note on the canvas: it does nothing; the run follows its one output.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'comment'> = { outputs: fixed(1) };
