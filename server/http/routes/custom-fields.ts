// GET /v1/custom-fields: the account's custom fields, ordered by `name`.
import { listCustomFields } from '../../domain/console/custom-fields.js';
import type { Handlers } from '../context.js';
import { pageRequest } from '../page.js';

export const customFieldHandlers: Handlers = {
  listCustomFields: async ({ app, caller, query }) => ({
    status: 200,
    body: await listCustomFields(app.database.db, app.clock, caller.account.id, pageRequest(query)),
  }),
};
