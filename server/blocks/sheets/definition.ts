// sheets: writes to a spreadsheet. 1 output. It needs the account's spreadsheet integration, which the console
// connects; this service has no such connection yet (it arrives with the spreadsheet block's issue), so `POST
// …/runs` of an automation holding one answers integration_disconnected.
import { fixed, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'sheets'> = { outputs: fixed(1), integration: 'sheets' };
