// sleep: Waits `seconds` on the one clock, then follows its one output.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'sleep'> = { outputs: fixed(1) };
