// The five /v1/tags routes; the rules live in domain/tags.
import { createTag, deleteTag, getTag, listTags, renameTag, tagView } from '../../domain/tags/tags.js';
import type { Handlers } from '../context.js';
import { pageRequest } from '../page.js';

export const tagHandlers: Handlers = {
  listTags: async ({ app, caller, query }) => {
    const page = await listTags(app.database.db, app.clock, caller.account.id, pageRequest(query));
    return { status: 200, body: { data: page.data.map(tagView), next_cursor: page.next_cursor } };
  },
  createTag: async ({ app, caller, body }) => ({
    status: 201,
    body: tagView(await createTag(app.database.db, app.clock, caller.account.id, body.name)),
  }),
  getTag: async ({ app, caller, params }) => ({
    status: 200,
    body: tagView(await getTag(app.database.db, caller.account.id, params.tagId)),
  }),
  updateTag: async ({ app, caller, params, body }) => ({
    status: 200,
    body: tagView(await renameTag(app.database.db, app.clock, caller.account.id, params.tagId, body.name)),
  }),
  deleteTag: async ({ app, caller, params }) => {
    await deleteTag(app.database.db, app.clock, caller.account.id, params.tagId);
    return { status: 204 };
  },
};
