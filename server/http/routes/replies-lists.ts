// The five /v1/replies-lists routes; the rules live in domain/workflows/replies-lists.
import {
  createRepliesList,
  deleteRepliesList,
  getRepliesList,
  listRepliesLists,
  repliesListSummaryView,
  repliesListView,
  updateRepliesList,
} from '../../domain/workflows/replies-lists.js';
import type { Handlers } from '../context.js';
import { pageRequest } from '../page.js';

export const repliesListHandlers: Handlers = {
  listRepliesLists: async ({ app, caller, query }) => {
    const page = await listRepliesLists(app.database.db, app.clock, caller.account.id, pageRequest(query));
    return { status: 200, body: { data: page.data.map(repliesListSummaryView), next_cursor: page.next_cursor } };
  },
  createRepliesList: async ({ app, caller, body }) => ({
    status: 201,
    body: repliesListView(await createRepliesList(app.database.db, app.clock, caller.account.id, body)),
  }),
  getRepliesList: async ({ app, caller, params }) => ({
    status: 200,
    body: repliesListView(await getRepliesList(app.database.db, caller.account.id, params.repliesListId)),
  }),
  updateRepliesList: async ({ app, caller, params, body }) => ({
    status: 200,
    body: repliesListView(
      await updateRepliesList(app.database.db, app.clock, caller.account.id, params.repliesListId, body),
    ),
  }),
  deleteRepliesList: async ({ app, caller, params }) => {
    const { id } = await deleteRepliesList(app.database.db, caller.account.id, params.repliesListId);
    return { status: 200, body: { id, deleted: true } };
  },
};
