// unsupported: A block of a type the console knows and this service does not: it does nothing; the run follows its output.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'unsupported'> = { outputs: fixed(1) };
