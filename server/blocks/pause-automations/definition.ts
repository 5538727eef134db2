// pause-automations: Pauses the contact's automations for `minutes` and ends the run.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'pause-automations'> = { outputs: fixed(1) };
