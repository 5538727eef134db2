// sheets: writes a row of a spreadsheet through the account's spreadsheet account. 1 output. `POST …/runs` of an
// automation reaching one checks that the spreadsheet account its `sheets_external_id` names is connected
// (engine/api-start.ts); its values may name custom fields as `$key`, so a run loads them.
import { fixed, str, type BlockDefinition } from '../definition.js';

export const definition: BlockDefinition<'sheets'> = {
  outputs: fixed(1),
  readsFields: true,
  integration: 'sheets',
  integrationAccount: (data) => str(data.sheets_external_id),
};
