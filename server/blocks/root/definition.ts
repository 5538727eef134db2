// root: The start of the automation: it does nothing; its one output leads to the first block that runs.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'root'> = { outputs: fixed(1) };
