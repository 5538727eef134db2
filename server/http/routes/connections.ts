// GET /v1/connections: the account's connections, oldest first.
import { listConnections } from '../../domain/console/connections.js';
import type { Handlers } from '../context.js';
import { pageRequest } from '../page.js';

export const connectionHandlers: Handlers = {
  listConnections: async ({ app, caller, query }) => ({
    status: 200,
    body: await listConnections(app.database.db, app.clock, caller.account.id, pageRequest(query)),
  }),
};
